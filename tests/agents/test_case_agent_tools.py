"""The case memory tools an agent gets (spec 000 via issue 14): case_note's update
path, case_entry, case_index's filters, exact argument descriptions, and a case with
damaged entries that still takes a note — over a real MCP stdio server and the
in-memory client."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from agents_helpers import data_of, stdio_session, text_of

from jupyter_memory import Memory
from jupyter_memory.agents import mcp_compat
from jupyter_memory.agents.mcp_server import build_server
from jupyter_memory.agents.tool_args import CASE_TOOL_DOCS, CaseIndexArgs, CaseNoteArgs
from jupyter_memory.service.agent_access import AgentAccess

pytestmark = pytest.mark.anyio

SAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "sample_workspace"
CASE = "CASE-2026-001"
LEGACY = "2026-05-31_hesitate_related-party-doubt.md"
BROKEN = "2026-06-03_hesitate_overseas-payment.md"
NOTE = {
    "case": CASE,
    "type": "hesitate",
    "title": "海外付款来源不明",
    "body": "三笔海外付款的收款方与供应商名单不符，需核实是否为关联方。",
}


def _access(home: Path, workspace: Path) -> tuple[Memory, AgentAccess]:
    mem = Memory(home)
    return mem, AgentAccess(mem, agent="mcp", workspace=workspace)


async def test_case_tools_say_exactly_what_each_argument_accepts(
    memory_home: Path, workspace: Path
) -> None:
    mem, access = _access(memory_home, workspace)
    async with mcp_compat.open_memory_client(build_server(access)) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert {"case_note", "case_index", "case_entry"} <= set(tools)
        for name, text in CASE_TOOL_DOCS.items():
            assert mcp_compat.field(tools[name], "description") == text
        note = mcp_compat.field(tools["case_note"], "input_schema")["properties"]
        for arg in ("evidence", "hypotheses", "status", "related", "files", "title", "body"):
            assert CaseNoteArgs.model_fields[arg].description in str(note[arg])
        assert "E-007" in note["evidence"]["description"]
        assert "registry ids, files, quotes" not in str(note)  # what it used to claim
        assert note["evidence"]["items"]["pattern"] == r"^E-\d{1,6}$"
        assert note["case"]["pattern"] == r"^CASE-\d{4}-\d{3}$"
        assert set(str(note["status"])) >= set("已纳入存档待查已排除")
        index = mcp_compat.field(tools["case_index"], "input_schema")["properties"]
        assert set(index) == {"case", "type", "evidence", "hypothesis"}
        assert CaseIndexArgs.model_fields["hypothesis"].description in str(index["hypothesis"])
        refused = await s.call_tool("case_note", NOTE | {"evidence": ["the bank statement"]})
        assert mcp_compat.is_error(refused) and "evidence" in text_of(refused)
        nothing = list((workspace / "cases" / CASE).rglob("*.md"))
        assert nothing == []
    mem.close()


async def test_case_note_takes_the_update_path_and_case_entry_reads_it(
    memory_home: Path, workspace: Path
) -> None:
    mem, access = _access(memory_home, workspace)
    async with mcp_compat.open_memory_client(build_server(access)) as s:
        first = data_of(await s.call_tool("case_note", NOTE | {"evidence": ["E-009"]}))
        other = data_of(
            await s.call_tool(
                "case_note",
                {
                    "case": CASE,
                    "type": "insight",
                    "title": "返利与退款同周",
                    "body": "返利高峰与退款高峰在同一周，可能有关。",
                },
            )
        )
        assert first["action"] == "created" and other["action"] == "created"
        entry = data_of(await s.call_tool("case_entry", {"case": CASE, "entry": first["entry"]}))
        assert entry["status"] == "存档待查" and entry["body"] == NOTE["body"]
        assert "path" not in entry
        update = {
            "case": CASE,
            "type": entry["type"],
            "title": entry["title"],
            "body": entry["body"],
            "status": "已纳入",
            "related": other["entry"],
            "files": ["working_papers/interview-3.md"],
            "hypotheses": ["H-2"],
        }
        updated = data_of(await s.call_tool("case_note", update))
        assert updated["action"] == "updated" and updated["entry"] == first["entry"]
        again = data_of(await s.call_tool("case_entry", {"case": CASE, "entry": first["entry"]}))
        assert again["status"] == "已纳入" and again["related"] == other["entry"]
        assert again["evidence"] == ["E-009"] and again["hypotheses"] == ["H-2"]
        assert [f["path"] for f in again["files"]] == ["working_papers/interview-3.md"]
        index = data_of(await s.call_tool("case_index", {"case": CASE}))
        assert "| 海外付款来源不明 | E-009 | 已纳入 |" in index["index"]
        assert data_of(await s.call_tool("case_note", update))["action"] == "skipped"
        missing = await s.call_tool("case_entry", {"case": CASE, "entry": "2026-01-01_think_x.md"})
        assert mcp_compat.is_error(missing) and "2026-01-01_think_x.md" in text_of(missing)
    mem.close()


async def test_case_index_filters_by_type_evidence_and_hypothesis(
    memory_home: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    mem, access = _access(memory_home, ws)
    async with mcp_compat.open_memory_client(build_server(access)) as s:

        async def files(**filters: str) -> list[str]:
            data = data_of(await s.call_tool("case_index", {"case": CASE, **filters}))
            return [e["file"] for e in data["entries"]]

        assert len(await files()) == 15
        assert await files(evidence="E-018") == [
            "2026-06-14_hesitate_dealer-b-refund-timing.md",
            "2026-06-15_think_hypothesis-2-revised.md",
        ]
        assert len(await files(hypothesis="H-2")) == 5
        assert all("_hesitate_" in f for f in await files(type="hesitate"))
        both = await files(type="think", evidence="E-018")
        assert both == ["2026-06-15_think_hypothesis-2-revised.md"]
        only = data_of(await s.call_tool("case_index", {"case": CASE, "evidence": "E-018"}))
        assert only["index"].count("\n| 2026-") == 2  # the rows of the matching entries
        bad = await s.call_tool("case_index", {"case": CASE, "hypothesis": "2"})
        assert mcp_compat.is_error(bad) and "hypothesis" in text_of(bad)
    mem.close()


async def test_a_damaged_case_still_takes_a_note_over_stdio(memory_home: Path, tmp_path: Path):
    """A v1 entry without a status section and an unreadable entry: the note is written."""
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    folder = ws / "cases" / CASE / "case_memory"
    text = (folder / LEGACY).read_text("utf-8")
    (folder / LEGACY).write_text(text[: text.index("## 后续状态")], "utf-8")
    (folder / BROKEN).write_bytes(b"# \xff broken\n")
    (ws / "team-profile.md").write_text("Memory Write Policy: someday\n", "utf-8")
    async with stdio_session(memory_home, "--workspace", str(ws)) as s:
        written = data_of(await s.call_tool("case_note", NOTE))
        assert written["action"] == "created" and written["policy"] == "notify"
        assert len(written["notice"]) == 2 and "someday" in written["notice"][0]
        assert "someday" in written["hint"]  # unknown value: notify, with the hint
        assert len(written["problems"]) == 1 and BROKEN in written["problems"][0]
        index = data_of(await s.call_tool("case_index", {"case": CASE}))
        legacy = next(e for e in index["entries"] if e["file"] == LEGACY)
        assert legacy["status"] == "" and legacy["legacy"] is True
        assert BROKEN in index["problems"][0] and "海外付款来源不明" in index["index"]
        assert "| 境外付款路线证据不足 | E-009 | 已纳入 |" in index["index"]  # row kept
        broken = await s.call_tool("case_entry", {"case": CASE, "entry": BROKEN})
        assert mcp_compat.is_error(broken) and BROKEN in text_of(broken)
    assert (folder / written["entry"]).exists()
