"""``%%ask`` gets memories by tier in its system block and a read-only ``recall`` (issue 13).

A real local OpenAI-compatible server (the only double: the LLM) and real files.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from openai_test_server import Scripted, llm_server

from jupyter_memory import Memory
from jupyter_memory.agents.ask_loop import run_ask
from jupyter_memory.agents.chat_stream import ChatStreamClient
from jupyter_memory.service.agent_access import AgentAccess

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


def test_ask_sees_memories_by_tier_and_recalls_under_the_mcp_rules(memory_home: Path) -> None:
    clock = [NOW - timedelta(days=40)]
    mem = Memory(memory_home, clock=lambda: clock[0])
    # 40 days old (semantic, attention ≈ 0.67): WARM, loaded only when the cell is about it.
    mem.remember("Churn counts ninety days without orders.", title="Churn", type="semantic")
    mem.remember("Cohorts start at the first paid purchase.", title="Cohorts", type="semantic")
    clock[0] = NOW
    mem.remember("Always dedupe orders on order_id")  # fresh: HOT
    mem.remember("DIGEST-ONLY the join drops refunds", source="session-digest", reviewed=False)
    mem.remember("CODEX-PRIVATE orders scratch", agent="codex", reviewed=True)
    access = AgentAccess(mem, agent="ask", conversation="ask-tiers")
    turns = [
        Scripted("", [("recall", {"query": "orders", "limit": 10})]),
        Scripted("Deduped on order_id; churn is 90 days."),
    ]
    with llm_server(turns) as llm:
        client = ChatStreamClient(llm.url, "test-model", api_key="k")
        result = run_ask(access, client, "How is churn computed for the orders table?")
    first, second = llm.requests
    system = first["messages"][0]["content"]
    assert "Always dedupe orders on order_id" in system  # HOT, always
    assert "Churn counts ninety days" in system  # WARM: what the cell is about
    assert "Cohorts start" not in system and "Cohorts" in system  # only its title (COLD index)
    assert "DIGEST-ONLY" not in system and "CODEX-PRIVATE" not in system
    recall_tool = next(t for t in first["tools"] if t["function"]["name"] == "recall")
    assert recall_tool["function"]["parameters"]["properties"]["query"]["type"] == "string"

    recalled = json.loads(next(m for m in second["messages"] if m["role"] == "tool")["content"])
    texts = " ".join(m["text"] for m in recalled["memories"])
    assert "dedupe orders" in texts
    assert "DIGEST-ONLY" not in texts and "CODEX-PRIVATE" not in texts
    # Read only: nothing was written by the agent's turn.
    assert result.tool_results[0]["tool"] == "recall"
    assert len(mem.memories()) == 5
    mem.close()


def test_ask_recall_rejects_bad_arguments_readably(memory_home: Path) -> None:
    mem = Memory(memory_home)
    access = AgentAccess(mem, agent="ask", conversation="ask-bad")
    turns = [Scripted("", [("recall", {"limit": 500})]), Scripted("ok")]
    with llm_server(turns) as llm:
        result = run_ask(access, ChatStreamClient(llm.url, "m", api_key="k"), "hi")
    assert "limit" in result.tool_results[0]["error"]
    mem.close()
