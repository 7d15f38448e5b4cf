"""The ``post_run_cell`` hook: the person's executed cells become evidence text.

What is recorded: each executed cell's raw source and its cell id (``In[n]``
when the front end sends no id). What is never recorded: outputs, agent
replies, and this extension's own magics (``%remember …`` is already a
decision, not evidence). With memory off nothing is recorded at all.

The hook must stay cheap (≤ 0.2 ms per cell, see benchmarks/notebook_bench.py):
it appends to a bounded deque and, when Automatic suggestions is on, hands a
snapshot to the worker thread. It never calls ``set_custom_exc`` (Jupyter AI's
``%%ai`` owns that); failures are seen through ``result.error_in_exec``.
"""

from __future__ import annotations

import contextvars
import re
import sys
import traceback
from collections import Counter, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .cells import CapturedCell, Gotcha

if TYPE_CHECKING:
    from .session import NotebookSession
    from .worker import SuggestionWorker

KEEP_CELLS = 64
GOTCHA_REPEATS = 3
OWN_MAGIC = re.compile(
    r"^\s*%{1,2}(?:remember|recall|forget|memories|memory|case|load_ext|config)\b"
)
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_NUMBER = re.compile(r"(?<![\w'\"])\d+(?:\.\d+)?(?![\w'\"])")
_WS = re.compile(r"\s+")


def exception_signature(exc: BaseException) -> str:
    """Type plus the message with addresses, numbers and spacing normalised."""
    message = _WS.sub(" ", _NUMBER.sub("N", _HEX.sub("0x…", str(exc)))).strip()
    return f"{type(exc).__name__}: {message}"[:300]


def failing_line(exc: BaseException, cell_text: str) -> str | None:
    """The innermost traceback line that is in the person's own cell (their words)."""
    lines = {ln.strip() for ln in cell_text.splitlines() if ln.strip()}
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.line and frame.line.strip() in lines:
            return frame.line.strip()
    return None


class CellCapture:
    def __init__(self, session: NotebookSession, worker: SuggestionWorker) -> None:
        self.session = session
        self.worker = worker
        self.cells: deque[CapturedCell] = deque(maxlen=KEEP_CELLS)
        self.error_counts: Counter[str] = Counter()
        self._broken: str | None = None
        # Called with every captured cell (and its gotcha, if it made one): the
        # session digest's feed (digest_feed.py) listens here. Must stay cheap.
        self.listeners: list[Callable[[CapturedCell, Gotcha | None], None]] = []

    def post_run_cell(self, result: Any) -> None:
        info = result.info
        raw = info.raw_cell if info is not None else None
        if not raw or OWN_MAGIC.match(raw) or self._broken:
            return
        try:
            enabled, auto = self.session.flags()
        except Exception as exc:  # noqa: BLE001 - shown once, capture pauses
            self._broken = f"{type(exc).__name__}: {exc}"
            print(f"jupyter-memory: cell capture paused: {self._broken}", file=sys.stderr)
            return
        if not enabled:
            return
        count = result.execution_count
        cell = CapturedCell(raw, getattr(info, "cell_id", None) or f"In[{count}]", count)
        self.cells.append(cell)
        self.session.cell_labels[cell.cell_id] = cell.label
        gotcha = None
        error = result.error_in_exec
        if error is not None:
            gotcha = self._count_error(error, cell)
        for listener in self.listeners:
            listener(cell, gotcha)
        if auto:
            # The copied context carries ipykernel's parent header, so the cards
            # the worker displays land under *this* cell, not the next one.
            self.worker.submit(contextvars.copy_context(), cell, tuple(self.cells), gotcha)

    def _count_error(self, exc: BaseException, cell: CapturedCell) -> Gotcha | None:
        sig = exception_signature(exc)
        self.error_counts[sig] += 1
        if self.error_counts[sig] != GOTCHA_REPEATS:
            return None
        return Gotcha(sig, failing_line(exc, cell.text), cell)

    def resume(self) -> None:
        """Try again after the problem that paused capture was fixed (``%memory on``)."""
        self._broken = None

    def recent(self, n: int) -> list[CapturedCell]:
        return list(self.cells)[-n:] if n > 0 else []
