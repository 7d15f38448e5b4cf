"""An MCP session reaches the session digest, and a client that disconnects ends it:
digested as a kernel's session is at exit (real stdio server, the SDK's client)."""

from __future__ import annotations

from pathlib import Path

import pytest
from agents_helpers import data_of, stdio_session

from jupyter_memory import Memory
from jupyter_memory.service.agent_access import AgentAccess

pytestmark = pytest.mark.anyio

PERSON_SAID = "Note: we must always exclude internal test accounts from refund totals."


async def test_a_disconnected_client_session_is_digested(memory_home: Path, project_dir: Path):
    with Memory(memory_home, project=project_dir) as mem:
        AgentAccess(mem, agent="mcp").record_person_text(PERSON_SAID, role="user", message_id="m1")
    async with stdio_session(
        memory_home, "--project", str(project_dir), "--conversation", "claude-1"
    ) as s:
        queued = data_of(
            await s.call_tool(
                "propose_knowledge",
                {
                    "text": "Exclude internal test accounts from refund totals.",
                    "kind": "rule",
                    "evidence_quote": "must always exclude internal test accounts from refund totals",
                },
            )
        )
        assert queued["status"] == "queued"
        with Memory(memory_home) as mem:
            assert mem.hooks.digest_pending("mcp:named:claude-1") == 2  # the turn, while connected
    # the client went away: the server digested its session before exiting
    with Memory(memory_home, project=project_dir) as mem:
        assert mem.hooks.digest_pending("mcp:named:claude-1") == 0
        rows = [r for r in mem.memories() if r["source"] == "session-digest"]
        assert rows and all(not r["reviewed"] for r in rows)
        texts = " ".join(mem.get(r["id"]).text for r in rows)
        assert "internal test accounts" in texts
