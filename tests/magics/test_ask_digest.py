"""``%%ask`` conversations reach the session digest like cells: a correction is seen."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openai_test_server import Scripted, llm_server


@pytest.fixture
def ask_ip(ip: Any) -> Iterator[Any]:
    yield ip
    ip.config.pop("AskMagics", None)


def _pending(magics) -> list[dict]:
    feed = magics.digest_feed
    feed.flush()
    store = magics.service.hooks.learning_services.digest.store
    inbox = store.pending(feed.session_key)
    return inbox[0]["messages"] if inbox else []


def test_ask_turns_are_recorded_between_cells_and_a_correction_is_learned(
    ask_ip: Any, magics: Any
) -> None:
    turns = [
        Scripted("I'll install it with yarn add pandas-profiling."),
        Scripted("OK, npm it is."),
    ]
    with llm_server(turns) as llm:
        ask_ip.run_cell(f'%config AskMagics.base_url = "{llm.url}"')
        ask_ip.run_cell('%config AskMagics.model = "local-test"')
        ask_ip.run_cell("x = 1")
        ask_ip.run_cell("%%ask\nInstall pandas-profiling for me")
        ask_ip.run_cell("%%ask\nno, use npm not yarn")
    messages = [m for m in _pending(magics) if m["kind"] == "chat"]
    assert [(m["role"], m["text"]) for m in messages] == [
        ("user", "Install pandas-profiling for me"),
        ("assistant", "I'll install it with yarn add pandas-profiling."),
        ("user", "no, use npm not yarn"),
        ("assistant", "OK, npm it is."),
    ]
    texts = [m["text"] for m in _pending(magics)]
    assert not any(t.startswith("%%ask") for t in texts)  # the cell is not recorded twice
    ask_ip.run_line_magic("memory", "digest")
    (cand,) = magics.service.learning_candidates()
    assert (
        cand.rule == "Use npm, not yarn." and cand.evidence_items[0].quote == "no, use npm not yarn"
    )
