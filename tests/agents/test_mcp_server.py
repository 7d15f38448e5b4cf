"""The MCP server end to end: a real subprocess, the SDK's own clients, the governance rules."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from agents_helpers import (
    INITIALIZE,
    data_of,
    http_server,
    print_token,
    resource_text,
    server_argv,
    stdio_session,
    text_of,
)

from jupyter_memory import Memory
from jupyter_memory.agents import mcp_compat
from jupyter_memory.agents.mcp_server import build_server
from jupyter_memory.agents.tool_args import RecallArgs
from jupyter_memory.core.knowledge.agent_tools import ProposeKnowledgeArgs
from jupyter_memory.service.agent_access import AgentAccess

pytestmark = pytest.mark.anyio

BASE_TOOLS = {
    "memory_context",
    "expand_knowledge_catalog",
    "propose_knowledge",
    "recall",
    "case_note",
    "case_index",
    "case_entry",
}
PERSON_SAID = "Note for later: revenue always excludes refunds in this project."
AGENT_SAID = "The orders table has 1,204 rows after the join."


def _seed(home: Path, project_dir: Path) -> str:
    """Approved user knowledge, the person's words, an agent reply, and memories."""
    with Memory(home, project=project_dir) as mem:
        mem.save_knowledge(
            "user", "## Rules\n- Always state the currency of an amount.\n\n## Info\n"
        )
        access = AgentAccess(mem, agent="mcp")
        access.record_person_text(PERSON_SAID, role="user", message_id="m1")
        access.record_agent_output(AGENT_SAID, message_id="m2")
        mem.remember("Refunds are booked in the month they are paid.", title="refund timing")
        mem.remember("Refunds draft from an extraction", reviewed=False, source="extraction")
        mem.remember("Refunds private note of another agent", agent="other")
        mem.remember("Refunds note this agent wrote, reviewed", agent="mcp")
        assert mem.project_id is not None
        return mem.project_id


async def test_stdio_server_tools_resource_and_governance(
    memory_home: Path, project_dir: Path
) -> None:
    pid = _seed(memory_home, project_dir)
    async with stdio_session(memory_home, "--project", str(project_dir)) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert set(tools) == BASE_TOOLS  # no remember: agent writes are off by default
        schema = mcp_compat.field(tools["propose_knowledge"], "input_schema")
        for name in ("text", "kind", "evidence_quote"):
            want = ProposeKnowledgeArgs.model_fields[name].description
            assert schema["properties"][name]["description"] == want
        assert schema["properties"]["kind"]["enum"] == ["rule", "info"]
        recall_schema = mcp_compat.field(tools["recall"], "input_schema")
        assert recall_schema["properties"]["query"]["description"] == (
            RecallArgs.model_fields["query"].description
        )

        context = data_of(await s.call_tool("memory_context", {}))
        assert "Always state the currency" in context
        assert "<approved-knowledge" in context
        assert resource_text(await s.read_resource("memory://context")) == context
        by_project = resource_text(await s.read_resource(f"memory://context/{pid}"))
        assert "Always state the currency" in by_project

        # A proposal with the person's words lands in the queue as pending ...
        queued = data_of(
            await s.call_tool(
                "propose_knowledge",
                {
                    "text": "Revenue excludes refunds.",
                    "kind": "rule",
                    "evidence_quote": "revenue always  excludes refunds",
                },
            )
        )
        assert queued["status"] == "queued"
        # ... and is not in any context until a person applies it.
        assert "excludes refunds" not in data_of(await s.call_tool("memory_context", {}))
        assert "excludes refunds" not in resource_text(await s.read_resource("memory://context"))

        # The agent's own words are never evidence; neither is an invented quote.
        own = await s.call_tool(
            "propose_knowledge",
            {"text": "Orders have 1,204 rows.", "kind": "info", "evidence_quote": AGENT_SAID},
        )
        assert mcp_compat.is_error(own) and "agent output" in text_of(own)
        invented = await s.call_tool(
            "propose_knowledge",
            {"text": "Use EUR.", "kind": "rule", "evidence_quote": "always report in EUR"},
        )
        assert mcp_compat.is_error(invented)
        assert "does not appear in the person's messages" in text_of(invented)

        bad = await s.call_tool(
            "propose_knowledge", {"text": "x y z", "kind": "maybe", "evidence_quote": "q"}
        )
        assert mcp_compat.is_error(bad) and "kind" in text_of(bad)
        bad_limit = await s.call_tool("recall", {"query": "refunds", "limit": 500})
        assert mcp_compat.is_error(bad_limit) and "limit" in text_of(bad_limit)

        # recall: reviewed memories only, never another agent's private notes.
        hits = data_of(await s.call_tool("recall", {"query": "refunds", "level": "full"}))
        texts = " | ".join(h["text"] for h in hits)
        assert "booked in the month they are paid" in texts
        assert "this agent wrote" in texts
        assert "extraction" not in texts and "another agent" not in texts

        # The person applies it (outside any agent tool); the same server now serves it.
        with Memory(memory_home, project=project_dir) as mem:
            pending = [p for p in mem.queue() if p.status == "pending"]
            assert [p.id for p in pending] == [queued["id"]]
            assert pending[0].source == "agent"
            mem.apply(queued["id"], to="project")
        assert "Revenue excludes refunds." in data_of(await s.call_tool("memory_context", {}))


async def test_http_server_serves_the_same_tools(
    memory_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    _seed(memory_home, project_dir)
    from mcp import ClientSession

    with http_server(memory_home, "--project", str(project_dir), log=tmp_path / "err.log") as url:
        async with (
            mcp_compat.open_http_client(url, print_token(memory_home)) as (read, write),
            ClientSession(read, write) as s,
        ):
            await s.initialize()
            assert {t.name for t in (await s.list_tools()).tools} == BASE_TOOLS
            context = data_of(await s.call_tool("memory_context", {}))
            assert "Always state the currency" in context
            assert resource_text(await s.read_resource("memory://context")) == context


async def test_agent_writes_only_when_the_person_allows_them(
    memory_home: Path, project_dir: Path
) -> None:
    _seed(memory_home, project_dir)
    async with stdio_session(memory_home, "--allow-agent-writes", "--agent", "mcp") as s:
        assert "remember" in {t.name for t in (await s.list_tools()).tools}
        stored = data_of(
            await s.call_tool("remember", {"text": "Refunds spike every January.", "tags": ["q1"]})
        )
        assert stored["reviewed"] is False and stored["source"] == "agent"
        hits = data_of(await s.call_tool("recall", {"query": "January", "level": "full"}))
        assert all("January" not in h["text"] for h in hits)  # unreviewed: not served back
    with Memory(memory_home) as mem:
        entry = mem.get(stored["id"])
        assert entry.meta.source.value == "agent" and entry.meta.reviewed is False
        assert entry.meta.scope == "agent:mcp"


def _access(home: Path, **kwargs: object) -> tuple[Memory, AgentAccess]:
    mem = Memory(home)
    return mem, AgentAccess(mem, agent="mcp", **kwargs)  # type: ignore[arg-type]


async def test_refusals_come_back_as_tool_errors(memory_home: Path) -> None:
    mem, access = _access(memory_home)
    server = build_server(access)
    async with mcp_compat.open_memory_client(server) as s:
        # remember is not offered, and the service refuses it too.
        assert "remember" not in {t.name for t in (await s.list_tools()).tools}
        with pytest.raises(Exception, match="agent writes are off"):
            access.remember("x")
        missing = await s.call_tool("expand_knowledge_catalog", {"labels": ["Nope"]})
        assert data_of(missing)["unknown"] == ["Nope"]
        empty = await s.call_tool("expand_knowledge_catalog", {"labels": []})
        assert mcp_compat.is_error(empty) and "labels" in text_of(empty)
        no_ws = await s.call_tool("case_index", {"case": "CASE-2026-001"})
        assert mcp_compat.is_error(no_ws) and "--workspace" in text_of(no_ws)
    mem.close()


async def test_memory_disabled_means_no_memory_at_all(memory_home: Path) -> None:
    mem, access = _access(memory_home)
    mem.save_knowledge("user", "## Rules\n- Never round before summing.\n\n## Info\n")
    mem.remember("Refund rule reviewed", title="refund rule")
    mem.update_settings(enabled=False)
    async with mcp_compat.open_memory_client(build_server(access)) as s:
        assert data_of(await s.call_tool("memory_context", {})) == ""
        assert data_of(await s.call_tool("recall", {"query": "refund"})) == []
        refused = await s.call_tool(
            "propose_knowledge",
            {"text": "Never round early.", "kind": "rule", "evidence_quote": "Never round"},
        )
        assert mcp_compat.is_error(refused) and "disabled" in text_of(refused)
    assert access.record_person_text("Never round before summing.") is False
    mem.close()


async def test_case_tools_follow_the_write_policy(memory_home: Path, workspace: Path) -> None:
    mem, access = _access(memory_home, workspace=workspace)
    async with mcp_compat.open_memory_client(build_server(access)) as s:
        note = {
            "case": "CASE-2026-001",
            "type": "hesitate",
            "title": "海外付款来源不明",
            "body": "三笔海外付款的收款方与供应商名单不符，需核实是否为关联方。",
        }
        written = data_of(await s.call_tool("case_note", note))
        assert written["action"] == "created"
        index = data_of(await s.call_tool("case_index", {"case": "CASE-2026-001"}))
        assert "海外付款来源不明" in index["index"]
        # Case memory is never injected into the knowledge context.
        assert "海外付款" not in data_of(await s.call_tool("memory_context", {}))
        bad_type = await s.call_tool("case_note", note | {"type": "gossip"})
        assert mcp_compat.is_error(bad_type) and "type" in text_of(bad_type)

        (workspace / "team-profile.md").write_text("Memory Write Policy: disabled\n", "utf-8")
        refused = await s.call_tool("case_note", note | {"title": "另一条"})
        assert mcp_compat.is_error(refused) and "disabled" in text_of(refused)
    mem.close()


def test_stdio_stdout_carries_only_protocol_messages(memory_home: Path) -> None:
    requests = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_context"}},
    ]
    proc = subprocess.Popen(
        [sys.executable, *server_argv(memory_home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    replies = []
    for request in requests:
        proc.stdin.write((json.dumps(request) + "\n").encode())
        proc.stdin.flush()
        if "id" in request:
            replies.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    rest = proc.stdout.read()
    proc.wait(timeout=10)
    proc.stdout.close()
    assert proc.stderr is not None
    proc.stderr.close()
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert all(r["jsonrpc"] == "2.0" and "error" not in r for r in replies)
    assert rest.strip() == b""  # nothing but protocol lines ever reaches stdout


def test_http_refuses_a_non_loopback_host(memory_home: Path) -> None:
    done = subprocess.run(
        [sys.executable, *server_argv(memory_home, "--http", "--host", "0.0.0.0")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "--host" in done.stderr and "this machine" in done.stderr
