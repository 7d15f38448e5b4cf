"""In a real ipykernel, the worker's cards are addressed to the cell that produced them.

Front ends put output under the cell whose execute request is the message's
parent, so the card must carry that cell's msg_id even though the worker
thread displays it after the cell has finished.
"""

from __future__ import annotations

import queue
import time

import pytest

from tests.support.kernels import kernel_env, started_kernel

pytestmark = pytest.mark.slow
CARD = "application/vnd.jupyter-memory.proposal+json"


def _execute(kc, code: str) -> str:
    msg_id = kc.execute(code)
    reply = kc.get_shell_msg(timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    return msg_id


def test_card_is_displayed_under_the_cell_that_produced_it(tmp_path):
    env = kernel_env(JUPYTER_MEMORY_HOME=str(tmp_path / "home"))
    with started_kernel(tmp_path, env) as (_, kc):
        _execute(kc, "%load_ext jupyter_memory")
        cell = _execute(kc, "# note: revenue excludes refunds issued in the same month\nx = 1")
        _execute(kc, "y = 2")  # the next cell must not receive the card
        cards: list[dict] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not cards:
            try:
                msg = kc.get_iopub_msg(timeout=1)
            except queue.Empty:
                continue
            if msg["msg_type"] == "display_data" and CARD in msg["content"]["data"]:
                cards.append(msg)
        assert cards, "no card was displayed"
        assert cards[0]["parent_header"]["msg_id"] == cell
        assert "Revenue excludes refunds" in cards[0]["content"]["data"]["text/plain"]
        # A document output, not an ipywidget: nothing to lose after a restart.
        assert "application/vnd.jupyter.widget-view+json" not in cards[0]["content"]["data"]
