"""The 5-proposal allowance belongs to the conversation, not to a server process (issue 19, G).

A stdio MCP server is one conversation of the client that started it; a
second or restarted server process for the same client shares its allowance.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from agents_helpers import data_of, stdio_session, text_of

from jupyter_memory import Memory
from jupyter_memory.agents import mcp_compat
from jupyter_memory.agents.conversation import stdio_conversation
from jupyter_memory.exceptions import PolicyError
from jupyter_memory.service.agent_access import AgentAccess

pytestmark = pytest.mark.anyio

QUOTE = "revenue always excludes refunds"
TEXTS = [
    "Revenue must always exclude refunds.",
    "Fiscal quarters should start in February.",
    "Never count test accounts in weekly actives.",
    "Churn is defined as ninety days without orders.",
    "Marketing spend includes agency retainers.",
    "Gross margin excludes shipping subsidies.",
    "Cohorts must use the first paid order date.",
    "Always report currency amounts in euros.",
]


def _seed(home: Path) -> None:
    with Memory(home) as mem:
        AgentAccess(mem).record_person_text(f"Note for later: {QUOTE}.", role="user")


def _args(i: int) -> dict[str, str]:
    return {"text": TEXTS[i], "kind": "rule", "evidence_quote": QUOTE}


async def test_two_server_processes_of_one_conversation_share_five_proposals(
    memory_home: Path,
) -> None:
    _seed(memory_home)
    async with stdio_session(memory_home) as a, stdio_session(memory_home) as b:
        for i in range(5):
            server = a if i % 2 == 0 else b
            assert data_of(await server.call_tool("propose_knowledge", _args(i)))["status"] in (
                "queued",
                "superseded",
            )
        for server in (a, b):
            refused = await server.call_tool("propose_knowledge", _args(5))
            assert mcp_compat.is_error(refused) and "rate limit" in text_of(refused)
    # A restarted server for the same client gets no new allowance ...
    async with stdio_session(memory_home) as c:
        refused = await c.call_tool("propose_knowledge", _args(6))
        assert mcp_compat.is_error(refused) and "rate limit" in text_of(refused)
    # ... a conversation the person names is another conversation.
    async with stdio_session(memory_home, "--conversation", "review-2026-11") as d:
        assert data_of(await d.call_tool("propose_knowledge", _args(7)))["status"] == "queued"
    with Memory(memory_home) as mem:
        assert len(mem.queue(include_decided=True)) == 6


def test_a_named_conversation_is_counted_across_memory_objects(memory_home: Path) -> None:
    _seed(memory_home)
    for i in range(5):
        with Memory(memory_home) as mem:
            access = AgentAccess(mem, conversation="chat-7")
            access.propose(TEXTS[i], "rule", QUOTE)
    with Memory(memory_home) as mem:
        with pytest.raises(PolicyError, match="rate limit"):
            AgentAccess(mem, conversation="chat-7").propose(TEXTS[5], "rule", QUOTE)
        assert AgentAccess(mem, conversation="chat-8").propose(TEXTS[5], "rule", QUOTE)


def test_the_stdio_conversation_is_the_client_process_behind_any_launcher() -> None:
    """A shell (or uv, npx's sh, …) between the client and the server is looked through."""
    code = (
        "from jupyter_memory.agents.conversation import stdio_conversation;"
        "print(stdio_conversation('mcp'))"
    )
    # The trailing ':' keeps the shell alive as the server's real parent.
    cmd = f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}; :"
    done = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    mine = stdio_conversation("mcp", client_pid=os.getpid())
    assert done.stdout.strip() == mine
    assert mine.startswith(f"mcp-stdio:mcp:{os.getpid()}:")
    assert stdio_conversation("other", client_pid=os.getpid()) != mine
