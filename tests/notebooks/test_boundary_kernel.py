"""In a real ipykernel: the LLM reads at conversation ends, within the daily budget (issue 32).

Cells never call the LLM; a notebook that goes idle is the end of a
conversation and makes at most one extraction call over the recent cells;
once today's budget is spent no call is made and the notice is shown under
the last cell. The LLM is the local test server (the one allowed double).
"""

from __future__ import annotations

import queue
import time

import pytest
from openai_test_server import Scripted, llm_server

from tests.support.kernels import kernel_env, started_kernel

pytestmark = pytest.mark.slow
IDLE_S = 3.0
EXTRACT = '{"proposals": []}'
NOTHING = "[]"  # the digest's reply: no work memories


def _execute(kc, code: str) -> str:
    msg_id = kc.execute(code)
    reply = kc.get_shell_msg(timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    return msg_id


def _extraction_calls(server) -> int:
    return sum(
        1
        for r in server.requests
        if r["messages"][0]["content"].startswith("You extract reusable analysis knowledge")
    )


def _streams(kc, until: float) -> list[dict]:
    out = []
    while time.monotonic() < until:
        try:
            msg = kc.get_iopub_msg(timeout=0.5)
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
        seen += _streams(kc, time.monotonic() + 0.5)
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
            _execute(kc, f"%config MemoryMagics.llm_idle_minutes = {IDLE_S / 60}")
            for cell in (
                "# this includes the header row\nx = 1",
                "# should be faster now\ny = 2",
                "# must re-run this after changing the filter above\nz = 3",
                "# note: refunds older than 90 days are booked as write-offs\nw = 4",
                "# TODO: reconcile refunds with the ledger\nv = 5",
            ):
                _execute(kc, cell)
            assert _extraction_calls(server) == 0  # never per cell
            _settle(kc, lambda _: len(server.requests) >= 2)
            # one end, one call (and one digest call): 2 of the 3 calls of the day
            assert _extraction_calls(server) == 1
            assert len(server.requests) == 2
            _execute(kc, "a = 1")
            _execute(kc, "b = 2")
            _settle(kc, lambda seen: _extraction_calls(server) >= 2 and _spent(seen))
            assert _extraction_calls(server) == 2  # the digest of this end found it spent
            assert len(server.requests) == 3
            last = _execute(kc, "c = 3")
            spent = _spent(_settle(kc, _spent))
            assert _extraction_calls(server) == 2  # spent: no call, and said so
            assert spent and spent[-1]["parent_header"]["msg_id"] == last  # under the cell
            assert "no more background extraction until tomorrow" in spent[0]["content"]["text"]
    with Memory(home=home) as mem:
        [card] = mem.queue()  # the note, cell by cell; none of the ordinary comments
        assert card.text == "Refunds older than 90 days are booked as write-offs"
        assert mem.hooks.llm_spend().calls == 3
