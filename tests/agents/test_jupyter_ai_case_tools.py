"""Jupyter AI gets the same case memory tools as MCP, under the same write policy
(spec 000 via issue 14). Runs in .venv-integrations (Jupyter AI installed)."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import shutil
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from jupyter_memory import Memory
from jupyter_memory.agents import jupyter_ai_tools
from jupyter_memory.agents.tool_args import CASE_TOOL_DOCS, CaseNoteArgs
from jupyter_memory.service.agent_access import AgentAccess

NEEDS_JAI = "Jupyter AI is missing: pip install 'jupyter-memory[jupyter-ai]' (or run make test-integrations)"
SAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "sample_workspace"
CASE = "CASE-2026-001"
LEGACY = "2026-05-31_hesitate_related-party-doubt.md"
BROKEN = "2026-06-03_hesitate_overseas-payment.md"
NOTE = {
    "case": CASE,
    "type": "observe",
    "title": "财务经理回避返利问题",
    "body": "访谈中财务经理两次回避返利结算时间的问题，原因不明。",
}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    registry = ws / "cases" / CASE / "evidence_registry.json"
    data = json.loads(registry.read_text("utf-8"))
    data["items"].append({"id": "E-099", "description": "财务经理访谈记录"})  # 关联证据 is checked
    registry.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return ws


@pytest.fixture
def access(memory_home: Path, ws: Path):
    mem = Memory(memory_home)
    access = AgentAccess(mem, agent="jupyter-ai", conversation="c1", workspace=ws)
    jupyter_ai_tools.reset_shared_access(access)
    yield access
    jupyter_ai_tools.reset_shared_access(None)


def test_case_tools_write_update_filter_and_read_under_the_policy(access, ws: Path) -> None:
    run = asyncio.run
    made = run(jupyter_ai_tools.case_note(**NOTE, evidence=["E-099"]))
    assert made["action"] == "created"
    entry = run(jupyter_ai_tools.case_entry(CASE, made["entry"]))
    assert entry["body"] == NOTE["body"] and entry["status"] == "存档待查"
    updated = run(
        jupyter_ai_tools.case_note(**NOTE, status="已排除", files=["working_papers/a.md"])
    )
    assert updated["action"] == "updated" and updated["entry"] == made["entry"]
    assert run(jupyter_ai_tools.case_entry(CASE, made["entry"]))["status"] == "已排除"
    found = run(jupyter_ai_tools.case_index(CASE, type="observe", evidence="E-099"))
    assert [e["file"] for e in found["entries"]] == [made["entry"]]
    assert len(run(jupyter_ai_tools.case_index(CASE, hypothesis="H-2"))["entries"]) == 5
    with pytest.raises(ValueError, match="evidence"):
        run(jupyter_ai_tools.case_note(**NOTE, evidence=["bank statement"]))
    (ws / "team-profile.md").write_text("Memory Write Policy: disabled\n", "utf-8")
    with pytest.raises(ValueError, match="disabled"):
        run(jupyter_ai_tools.case_note(**NOTE | {"title": "另一条"}))
    assert len(run(jupyter_ai_tools.case_index(CASE))["entries"]) == 16  # reading still works


def test_a_damaged_case_still_takes_a_note_through_the_jupyter_ai_tool(access, ws: Path) -> None:
    folder = ws / "cases" / CASE / "case_memory"
    text = (folder / LEGACY).read_text("utf-8")
    (folder / LEGACY).write_text(text[: text.index("## 后续状态")], "utf-8")
    (folder / BROKEN).write_bytes(b"\xff\xfe")
    made = asyncio.run(jupyter_ai_tools.case_note(**NOTE))
    assert made["action"] == "created" and BROKEN in made["problems"][0]
    index = asyncio.run(jupyter_ai_tools.case_index(CASE))
    assert {e["file"]: e["status"] for e in index["entries"]}[LEGACY] == ""


@pytest.mark.jupyter_ai
def test_jupyter_server_mcp_serves_the_case_tools_with_the_mcp_descriptions(access) -> None:
    try:
        from fastmcp import Client
        from jupyter_server_mcp.mcp_server import MCPServer
    except ImportError as exc:
        pytest.fail(f"{NEEDS_JAI}: {exc}")
    (ep,) = [
        e for e in entry_points(group="jupyter_server_mcp.tools") if e.name == "jupyter_memory"
    ]
    server = MCPServer()
    for spec in ep.load():
        module, name = spec.split(":")
        server.register_tool(getattr(importlib.import_module(module), name))

    async def talk() -> tuple[dict[str, Any], Any]:
        async with Client(server.mcp) as client:
            tools = {t.name: t for t in await client.list_tools()}
            result = await client.call_tool("case_note", NOTE)
            return tools, result

    tools, result = asyncio.run(talk())
    for name, text in CASE_TOOL_DOCS.items():
        assert tools[name].description == text
    props = tools["case_note"].inputSchema["properties"]
    for arg in ("evidence", "status", "related", "files"):
        assert CaseNoteArgs.model_fields[arg].description in str(props[arg])
    assert "created" in str(result.content[0].text)


@pytest.mark.jupyter_ai
def test_the_memory_persona_knows_the_case_tools(access) -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        from jupyterlab_chat.ychat import YChat
    except ImportError as exc:
        pytest.fail(f"{NEEDS_JAI}: {exc}")
    (ep,) = [e for e in entry_points(group="jupyter_ai.personas") if e.name == "memory"]
    prompt = ep.load()(chat=YChat()).system_prompt
    assert all(name in prompt for name in ("case_note", "case_index", "case_entry"))
