"""Issue 32: the kernel's conversation ends — a burst of cells is one end, %%ask is one."""

from __future__ import annotations

import threading

from jupyter_memory.magics.boundary import ConversationBoundary
from jupyter_memory.magics.cells import CapturedCell


class Ends:
    def __init__(self) -> None:
        self.rounds: list[str] = []
        self.done = threading.Event()

    def run(self, boundary: str):  # noqa: ANN201
        self.rounds.append(boundary)
        self.done.set()
        return [], True, [f"{boundary} round"]


def _boundary(ends: Ends, idle: float) -> ConversationBoundary:
    return ConversationBoundary(ends.run, lambda proposals: None, lambda: idle, lambda: True)


def test_a_burst_of_cells_is_one_end_after_the_idle_time(capsys) -> None:
    ends = Ends()
    feed = _boundary(ends, 0.3)
    for n in range(5):
        feed.on_cell(CapturedCell(f"x = {n}", f"c{n}", n), None)
    assert ends.rounds == []  # never per cell
    assert ends.done.wait(60)
    feed.wait()
    assert ends.rounds == ["idle"]
    assert "jupyter-memory: idle round" in capsys.readouterr().out
    assert feed.run("idle") is None  # nothing new since: no round
    feed.shutdown()
    assert ends.rounds == ["idle"]  # nothing new at exit either


def test_an_ask_exchange_ends_at_once_and_shutdown_reads_what_is_left() -> None:
    ends = Ends()
    feed = _boundary(ends, 600)
    feed.on_cell(CapturedCell("%%ask\nwhy is revenue down?", "c1", 1), None)
    assert ends.done.wait(60)
    feed.wait()
    feed.on_cell(CapturedCell("y = 2", "c2", 2), None)
    feed.shutdown()
    assert ends.rounds == ["ask", "shutdown"]
    feed.on_cell(CapturedCell("z = 3", "c3", 3), None)  # closed: nothing more
    assert ends.rounds == ["ask", "shutdown"]
