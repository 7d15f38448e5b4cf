"""A ``%%ask`` conversation lasts until ``%%ask --new`` or a new kernel session (issue 13, defect 4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai_test_server import Scripted, llm_server

from jupyter_memory import Memory
from jupyter_memory.service.agent_access import AgentAccess

QUOTE = "revenue always excludes refunds"
TEXTS = [f"Revenue rule number {i} excludes refunds in report {i * 11}." for i in range(12)]


def _seed(home: Path) -> None:
    with Memory(home) as mem:
        AgentAccess(mem).record_person_text(f"Note for later: {QUOTE}.", role="user")


def _propose_calls(n: int, first: int) -> Scripted:
    calls = [
        ("propose_knowledge", {"text": TEXTS[first + i], "kind": "rule", "evidence_quote": QUOTE})
        for i in range(n)
    ]
    return Scripted("Noted. ", calls)


def _tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def test_ask_new_starts_a_conversation_with_its_own_allowance(
    ip: Any, memory_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _seed(memory_home)
    turns = [
        _propose_calls(6, 0),  # one turn asking six times: the sixth is refused
        Scripted("Done."),
        _propose_calls(1, 6),  # the next cell of the same conversation: still refused
        Scripted("Done."),
        _propose_calls(1, 7),  # %%ask --new: a new allowance
        Scripted("Done."),
    ]
    with llm_server(turns) as llm:
        ip.run_cell(f'%config AskMagics.base_url = "{llm.url}"')
        ip.run_cell('%config AskMagics.model = "local-test"')
        ip.run_cell("%%ask\nRecord the revenue rules, please.")
        ip.run_cell("%%ask\nOne more rule.")
        ip.run_cell("%%ask --new\nA fresh topic with one rule.")
    ip.config.pop("AskMagics", None)
    first, second, third = (_tool_results(r) for r in llm.requests[1::2])
    assert [r.get("status") for r in first[:5]] == ["queued"] * 5
    assert "rate limit" in first[5]["error"]
    assert "rate limit" in second[0]["error"]
    assert third[0]["status"] == "queued"
    assert "new conversation" in capsys.readouterr().out


def test_a_new_kernel_session_is_a_new_ask_conversation(ip: Any) -> None:
    from jupyter_memory.magics import loaded_magics

    magics = loaded_magics(ip)
    assert magics is not None
    first = magics.ask_magics.conversation
    ip.run_line_magic("unload_ext", "jupyter_memory")
    ip.run_line_magic("load_ext", "jupyter_memory")
    magics = loaded_magics(ip)
    assert magics is not None
    # This test shell has no kernel: each load is its own session, like a restarted kernel.
    assert magics.ask_magics.conversation != first
    assert magics.ask_magics.conversation.startswith("ask:")
