"""The ``%%ask`` loop against a local OpenAI-compatible server: context, tools, evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_test_server import Scripted, llm_server

from jupyter_memory import Memory
from jupyter_memory.agents.ask_loop import run_ask
from jupyter_memory.agents.chat_stream import ChatStreamClient
from jupyter_memory.exceptions import UpstreamError
from jupyter_memory.service.agent_access import AgentAccess

CELL = "我们的口径：收入不含退款。Why does March revenue drop?"


@pytest.fixture
def access(memory_home: Path):
    mem = Memory(memory_home)
    mem.save_knowledge("user", "## Rules\n- Always state the currency of an amount.\n\n## Info\n")
    yield AgentAccess(mem, agent="ask", conversation="ask-test")
    mem.close()


@pytest.mark.parametrize("stream", [True, False])
def test_tool_calls_run_and_the_answer_streams(access: AgentAccess, stream: bool) -> None:
    turns = [
        Scripted(
            "Let me note that. ",
            [
                (
                    "propose_knowledge",
                    {"text": "收入不含退款。", "kind": "rule", "evidence_quote": "收入不含退款"},
                ),
                ("expand_knowledge_catalog", {"labels": ["Nope"]}),
            ],
        ),
        Scripted("March had large refunds (EUR)."),
    ]
    pieces: list[str] = []
    shown: list[dict] = []
    with llm_server(turns, stream=stream) as llm:
        client = ChatStreamClient(llm.url, "test-model", api_key="k")
        result = run_ask(access, client, CELL, on_text=pieces.append, on_proposal=shown.append)

    assert "".join(pieces) == "Let me note that. March had large refunds (EUR)."
    assert len(pieces) > 2 if stream else len(pieces) == 2  # streamed in small deltas
    first, second = llm.requests
    assert first["model"] == "test-model" and first["stream"] is True
    assert first["messages"][0]["role"] == "system"
    assert "Always state the currency" in first["messages"][0]["content"]
    assert first["messages"][1] == {"role": "user", "content": CELL}
    assert {t["function"]["name"] for t in first["tools"]} == {
        "propose_knowledge",
        "expand_knowledge_catalog",
        "recall",  # read only (issue 13)
    }
    tool_msgs = [m for m in second["messages"] if m["role"] == "tool"]
    assert json.loads(tool_msgs[0]["content"])["status"] == "queued"
    assert json.loads(tool_msgs[1]["content"])["unknown"] == ["Nope"]

    # The proposal is pending and shown, never in context.
    assert [p["id"] for p in shown] == [result.proposals[0]["id"]]
    pending = [p for p in access.memory.queue() if p.status == "pending"]
    assert [p.text for p in pending] == ["收入不含退款。"] and pending[0].source == "agent"
    assert "收入不含退款" not in access.context()


def test_the_reply_is_never_evidence(access: AgentAccess) -> None:
    turns = [
        Scripted("Refunds are netted monthly."),
        Scripted(
            "",
            [
                (
                    "propose_knowledge",
                    {
                        "text": "Refunds are netted monthly.",
                        "kind": "info",
                        "evidence_quote": "Refunds are netted monthly",
                    },
                )
            ],
        ),
        Scripted("I could not propose that."),
    ]
    with llm_server(turns) as llm:
        client = ChatStreamClient(llm.url, "m")
        run_ask(access, client, "How are refunds handled?")
        result = run_ask(access, client, "Please remember what you said.")
    error = result.tool_results[0]["error"]
    assert "agent output" in error
    assert access.memory.queue() == []


def test_bad_tool_calls_come_back_to_the_model(access: AgentAccess) -> None:
    turns = [
        Scripted("", [("apply_knowledge", {"id": "x"}), ("propose_knowledge", {"kind": "rule"})]),
        Scripted("ok"),
    ]
    with llm_server(turns) as llm:
        result = run_ask(access, ChatStreamClient(llm.url, "m"), "hello there")
    errors = [r["error"] for r in result.tool_results]
    assert "no tool named 'apply_knowledge'" in errors[0]  # nothing can apply knowledge
    assert "text" in errors[1]
    assert result.reply == "ok"


def test_an_unreachable_endpoint_is_a_clear_error(access: AgentAccess) -> None:
    with llm_server([]) as llm:
        url = llm.url
    with pytest.raises(UpstreamError, match="unreachable"):
        run_ask(access, ChatStreamClient(url, "m", timeout=5), "hello there")
