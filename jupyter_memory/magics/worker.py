"""Extraction rounds off the kernel's main thread.

One daemon thread takes jobs from a queue; a burst of cells collapses into a
single round over the newest snapshot (older queued jobs are skipped, their
gotchas kept). Each round calls the service under the session lock, then
hands the new proposals to ``show`` inside the context captured when the
cell ran, so ipykernel routes the cards to that cell's output.
"""

from __future__ import annotations

import contextvars
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._i18n import localized
from .cells import CapturedCell, Gotcha


@dataclass
class Round:
    """What one round did, for ``%memory status`` and the benchmark."""

    cell: str
    proposals: list[Any] = field(default_factory=list)
    error: str | None = None
    submitted: float = 0.0
    finished: float = 0.0
    shown: float = 0.0


@dataclass(frozen=True)
class _Job:
    context: contextvars.Context
    cell: CapturedCell
    cells: tuple[CapturedCell, ...]
    gotcha: Gotcha | None
    submitted: float


class SuggestionWorker:
    def __init__(
        self,
        run_round: Callable[[CapturedCell, tuple[CapturedCell, ...], Gotcha | None], list[Any]],
        show: Callable[[list[Any], CapturedCell], None],
    ) -> None:
        self._run_round = run_round
        self._show = show
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.last: Round | None = None

    def submit(
        self,
        context: contextvars.Context,
        cell: CapturedCell,
        cells: tuple[CapturedCell, ...],
        gotcha: Gotcha | None,
    ) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(
                target=self._loop, name="jupyter-memory-suggestions", daemon=True
            )
            self._thread.start()
        self._jobs.put(_Job(context, cell, cells, gotcha, time.perf_counter()))

    def wait(self, timeout: float = 10.0) -> bool:
        """Block until every submitted round finished; False on timeout."""
        deadline = time.monotonic() + timeout
        while self._jobs.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)
        return True

    def stop(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self._jobs.put(None)
            self._thread.join(timeout=5)
        self._thread = None

    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                self._jobs.task_done()
                return
            gotchas = [job.gotcha] if job.gotcha else []
            contexts = {job.cell.cell_id: job.context}
            # Collapse a burst: run once over the newest snapshot.
            while True:
                try:
                    newer = self._jobs.get_nowait()
                except queue.Empty:
                    break
                self._jobs.task_done()
                if newer is None:
                    self._jobs.put(None)
                    break
                if newer.gotcha:
                    gotchas.append(newer.gotcha)
                contexts[newer.cell.cell_id] = newer.context
                job = newer
            try:
                self._one(job, gotchas, contexts)
            finally:
                self._jobs.task_done()

    def _one(
        self, job: _Job, gotchas: list[Gotcha], contexts: dict[str, contextvars.Context]
    ) -> None:
        rnd = Round(cell=job.cell.label, submitted=job.submitted)
        try:
            for gotcha in gotchas[:-1]:
                rnd.proposals += self._run_round(gotcha.cell, job.cells, gotcha)
            rnd.proposals += self._run_round(job.cell, job.cells, gotchas[-1] if gotchas else None)
        except Exception as exc:  # noqa: BLE001 - reported on stderr of the cell and in status
            rnd.error = f"{type(exc).__name__}: {localized(exc)}"
        rnd.finished = time.perf_counter()
        self.last = rnd
        if rnd.error:
            job.context.run(_report, rnd.error)
        elif rnd.proposals:
            # Each card goes under the cell its quote came from when that cell
            # ran in this burst; otherwise under the newest cell.
            groups: dict[str, list[Any]] = {}
            for proposal in rnd.proposals:
                origin = getattr(getattr(proposal, "quote_origin", None), "cell_id", None)
                key = origin if origin in contexts else job.cell.cell_id
                groups.setdefault(key, []).append(proposal)
            for key, proposals in groups.items():
                contexts.get(key, job.context).run(self._show, proposals, job.cell)
            rnd.shown = time.perf_counter()


def _report(message: str) -> None:
    print(f"jupyter-memory: suggestion round failed: {message}", file=sys.stderr)
