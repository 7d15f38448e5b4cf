"""LLM extraction at the end of a conversation in the kernel, never per cell (issue 32).

Spec 002 §4.1 reads the person's recent texts when a conversation ends. In a
notebook that is: a ``%%ask`` exchange (its cell has run), the notebook idle
for ``MemoryMagics.llm_idle_minutes`` (default 5) after a run, and kernel
shutdown. Each boundary with new cells since the last one makes at most one
LLM call (``Memory.extract(llm=True)``), counted against the daily budget; the
per-cell round (worker.py) reads only explicit notes and never calls the LLM.

The capture hook only marks the notebook as changed and re-arms a timer; the
round runs on the timer's (or a short-lived) thread under the session lock,
and its cards and notices go under the cell that ran last, through the
context captured when it ran (as the worker's cards do). When the budget is
spent the round says so on that cell's stderr, never silently.
"""

from __future__ import annotations

import contextvars
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._i18n import localized, tr

if TYPE_CHECKING:
    from .cells import CapturedCell, Gotcha

SHUTDOWN_WAIT_S = 20.0  # at exit a slow model is not waited for longer
_ASK_CELL = re.compile(r"^\s*%%ask\b")


@dataclass(frozen=True)
class BoundaryRound:
    """What one boundary did, for ``%memory status`` and tests."""

    boundary: str  # ask | idle | shutdown
    called_llm: bool
    proposals: int
    notices: list[str]


class ConversationBoundary:
    def __init__(
        self,
        run_round: Callable[[str], tuple[list[Any], bool, list[str]]],
        show: Callable[[list[Any]], None],
        idle_seconds: Callable[[], float],
        wanted: Callable[[], bool],
    ) -> None:
        self._run_round = run_round  # boundary -> (proposals, called_llm, notices)
        self._show = show
        self._idle_seconds = idle_seconds
        self._wanted = wanted  # memory enabled
        self._lock = threading.Lock()
        self._dirty = False
        self._context: contextvars.Context | None = None
        self._timer: threading.Timer | None = None
        self._running: threading.Thread | None = None
        self.last: BoundaryRound | None = None
        self.closed = False

    # -- the capture hook's listener (keep cheap) -----------------------------------------

    def on_cell(self, cell: CapturedCell, _gotcha: Gotcha | None) -> None:
        with self._lock:
            if self.closed:
                return
            self._dirty = True
            self._context = contextvars.copy_context()
            if self._timer is not None:
                self._timer.cancel()
            if _ASK_CELL.match(cell.text):
                self._timer = None
                self._start("ask")
                return
            self._timer = threading.Timer(self._idle_seconds(), self._start, args=("idle",))
            self._timer.daemon = True
            self._timer.start()

    # -- rounds ---------------------------------------------------------------------------

    def _start(self, boundary: str) -> threading.Thread:
        thread = threading.Thread(
            target=self.run, args=(boundary,), name="jupyter-memory-boundary", daemon=True
        )
        self._running = thread
        thread.start()
        return thread

    def run(self, boundary: str) -> BoundaryRound | None:
        """One boundary round if cells ran since the last one; its cards and notice shown."""
        with self._lock:
            if not self._dirty:
                return None
            self._dirty = False
            context = self._context or contextvars.copy_context()
        if not self._wanted():
            return None
        try:
            proposals, called, notices = self._run_round(boundary)
        except Exception as exc:  # noqa: BLE001 - said under the cell, the notebook goes on
            said = tr("extraction at the end of the conversation failed: {error}")
            notices = [said.format(error=f"{type(exc).__name__}: {localized(exc)}")]
            proposals, called = [], False
        self.last = BoundaryRound(boundary, called, len(proposals), notices)
        for notice in notices:
            context.run(_say, notice)
        if proposals:
            context.run(self._show, proposals)
        return self.last

    def wait(self, timeout: float = 30.0) -> None:
        """Until the running round (if any) is done (tests, ``%memory status``)."""
        thread = self._running
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def shutdown(self) -> None:
        """Kernel shutdown is a boundary: one round, waited for at most ``SHUTDOWN_WAIT_S``."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            if self._timer is not None:
                self._timer.cancel()
        self.wait(SHUTDOWN_WAIT_S)
        self._start("shutdown").join(SHUTDOWN_WAIT_S)

    def stop(self) -> None:
        """``%unload_ext``: no more rounds (what is pending waits for the next boundary)."""
        with self._lock:
            self.closed = True
            if self._timer is not None:
                self._timer.cancel()


def _say(notice: str) -> None:
    print(f"jupyter-memory: {notice}")
