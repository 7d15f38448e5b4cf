"""Every agent is told 宁可少记 ("when unsure, don't write") and what is worth a case note:
the case_note tool over a real MCP stdio server, the server's instructions, the Jupyter AI
tool and the Memory persona; and a Chinese entry's readable name and an unknown evidence
id reach the agent over MCP."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from agents_helpers import data_of, stdio_session

from jupyter_memory.agents import jupyter_ai_tools, mcp_compat
from jupyter_memory.agents.mcp_server import INSTRUCTIONS
from jupyter_memory.agents.persona_prompt import BASE_PROMPT
from jupyter_memory.agents.tool_args import CASE_GUIDANCE, CASE_TOOL_DOCS

pytestmark = pytest.mark.anyio

SAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "sample_workspace"
CASE = "CASE-2026-001"
# What the guidance must say, in the words an agent reads (English) and the team's (Chinese).
SAYS = ("When unsure, don't write", "宁可少记，不可滥记", "拿不准时不写")
WORTH = ("discuss", "hesitate", "insight", "observe", "think", "Not worth one", "chit-chat")


def test_the_guidance_says_when_unsure_dont_write_and_what_is_worth_a_note() -> None:
    for text in (CASE_GUIDANCE, CASE_TOOL_DOCS["case_note"], BASE_PROMPT):
        assert all(phrase in text for phrase in SAYS), text
        assert all(word in text for word in WORTH), text
    assert jupyter_ai_tools.case_note.__doc__ == CASE_TOOL_DOCS["case_note"]
    assert CASE_GUIDANCE in INSTRUCTIONS  # the MCP server's instructions to every client


async def test_an_mcp_agent_reads_the_guidance_and_gets_readable_names(
    memory_home: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    async with stdio_session(memory_home, "--workspace", str(ws)) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        note = tools["case_note"]
        assert all(phrase in (note.description or "") for phrase in SAYS)
        schema = mcp_compat.field(note, "input_schema")  # inputSchema on mcp 1.x
        assert "unknown_evidence" in str(schema["properties"]["evidence"])
        made = data_of(
            await s.call_tool(
                "case_note",
                {
                    "case": CASE,
                    "type": "hesitate",
                    "title": "退款不计入收入",
                    "body": "退款冲减的口径与财务报表不一致，尚无法判断是否为故意。",
                    "evidence": ["E-009", "E-404"],
                },
            )
        )
        assert made["entry"].endswith("_hesitate_退款不计入收入.md")
        assert made["unknown_evidence"] == ["E-404"]
        entry = data_of(await s.call_tool("case_entry", {"case": CASE, "entry": made["entry"]}))
        assert entry["evidence"] == ["E-009"] and entry["files"] == []  # MCP names no file
