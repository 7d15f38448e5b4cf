"""In a real ipykernel: the LLM reads at conversation ends, within the daily budget (issue 32).

Cells never call the LLM; a notebook that goes idle is the end of a
conversation and makes at most one extraction call over the recent cells;
once today's budget is spent no call is made and the notice is shown under
the last cell. The LLM is the local test server (the one allowed double).
"""

from __future__ import annotations

import json
import queue
import time

import pytest
from openai_test_server import Scripted, llm_server

from tests.support.kernels import kernel_env, started_kernel

pytestmark = pytest.mark.slow
# The notebook's idle threshold (MemoryMagics.llm_idle_minutes), short so the test
# does not sit through real idle minutes. Only the last cell of a batch arms it:
# the others run under LONG_IDLE_MIN, so however long a loaded machine takes
# between two cells, a conversation cannot end in the middle of a batch.
IDLE_S = 0.5
LONG_IDLE_MIN = 60
EXTRACT = '{"proposals": []}'
NOTHING = "[]"  # the digest's reply: no work memories


def _execute(kc, code: str) -> str:
    msg_id = kc.execute(code)
    reply = kc.get_shell_msg(timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    return msg_id


def _extractions(server) -> list[str]:
    """The prompts of the extraction calls made so far, each as one text."""
    return [
        json.dumps(r["messages"], ensure_ascii=False)
        for r in server.requests
        if r["messages"][0]["content"].startswith("You extract reusable analysis knowledge")
    ]


def _extraction_calls(server) -> int:
    return len(_extractions(server))


def _run_then_idle(kc, cells: list[str]) -> str:
    """Run ``cells`` one after another; the notebook then goes idle after the last.

    The cells before the last run under a long idle threshold and the last under
    ``IDLE_S``, so the only idle end is the one after the last cell. Returns the
    last cell's msg_id.
    """
    _execute(kc, f"%config MemoryMagics.llm_idle_minutes = {LONG_IDLE_MIN}")
    for cell in cells[:-1]:
        _execute(kc, cell)
    _execute(kc, f"%config MemoryMagics.llm_idle_minutes = {IDLE_S / 60}")
    return _execute(kc, cells[-1])


def _streams(kc, until: float) -> list[dict]:
    out = []
    while time.monotonic() < until:
        try:
            msg = kc.get_iopub_msg(timeout=0.1)
        except queue.Empty:
            continue
        if msg["msg_type"] == "stream" and "jupyter-memory:" in msg["content"]["text"]:
            out.append(msg)
    return out


def _settle(kc, done) -> list[dict]:
    """The notices until ``done(notices)`` holds, then one more idle period's."""
    deadline = time.monotonic() + 60
    seen: list[dict] = []
    while not done(seen) and time.monotonic() < deadline:
        seen += _streams(kc, time.monotonic() + 0.1)
    seen += _streams(kc, time.monotonic() + IDLE_S + 1.0)  # a late call would come by then
    return seen


def _spent(notices: list[dict]) -> list[dict]:
    return [m for m in notices if "LLM budget is spent" in m["content"]["text"]]


def test_extraction_calls_come_at_conversation_ends_and_stop_when_the_budget_is_spent(tmp_path):
    from jupyter_memory import Memory

    home = tmp_path / "home"
    turns = [Scripted(EXTRACT), Scripted(NOTHING)] + [Scripted(EXTRACT)] * 6
    with llm_server(turns, stream=False) as server:
        with Memory(home=home) as mem:
            mem.update_settings(
                llm={"base_url": server.url, "model": "test"}, llm_budget={"calls_per_day": 3}
            )
        with started_kernel(tmp_path, kernel_env(JUPYTER_MEMORY_HOME=str(home))) as (_, kc):
            _execute(kc, "%load_ext jupyter_memory")
            cells = [
                "# this includes the header row\nx = 1",
                "# should be faster now\ny = 2",
                "# must re-run this after changing the filter above\nz = 3",
                "# note: refunds older than 90 days are booked as write-offs\nw = 4",
                "# TODO: reconcile refunds with the ledger\nv = 5",
            ]
            _run_then_idle(kc, cells)
            _settle(kc, lambda _: len(server.requests) >= 2)
            # one end, one call (and one digest call): 2 of the 3 calls of the day; never
            # per cell: the one call came after the last cell and read all five
            [prompt] = _extractions(server)
            assert all(json.dumps(c, ensure_ascii=False)[1:-1] in prompt for c in cells)
            assert len(server.requests) == 2
            _run_then_idle(kc, ["a = 1", "b = 2"])
            _settle(kc, lambda seen: _extraction_calls(server) >= 2 and _spent(seen))
            assert _extraction_calls(server) == 2  # the digest of this end found it spent
            assert "b = 2" in _extractions(server)[1]
            assert len(server.requests) == 3
            last = _run_then_idle(kc, ["c = 3"])
            spent = _spent(_settle(kc, _spent))
            assert _extraction_calls(server) == 2  # spent: no call, and said so
            assert spent and spent[-1]["parent_header"]["msg_id"] == last  # under the cell
            assert "no more background extraction until tomorrow" in spent[0]["content"]["text"]
    with Memory(home=home) as mem:
        [card] = mem.queue()  # the note, cell by cell; none of the ordinary comments
        assert card.text == "Refunds older than 90 days are booked as write-offs"
        assert mem.hooks.llm_spend().calls == 3
