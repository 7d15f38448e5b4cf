"""Memory work off jupyter_server's event loop: one small pool, one deadline per request.

The loop serves every notebook of the person (kernels, websockets, contents);
a memory route waits on locks other processes hold, on ``git``, on an index
sync after outside writes. So each route's work runs in a worker thread of
one bounded pool owned by the extension, under a deadline
(store/deadline.py) that every lock acquire and ``git`` call in it respects.
Past the deadline the work raises :class:`LockTimeoutError` or
:class:`BusyError` and the route answers ``503 busy`` naming what held it.

Three lanes, each one request at a time (a ``Memory`` was only ever used by one
thread at a time, the loop's): writes share the server's ``Memory``; each read
lane has a second one on the same home (server/backend.py), so a read never
queues behind a write waiting for a lock; it answers from the index as the last
writer left it. The queue listing has a read lane of its own: on a queue of
thousands it reads and analyses every proposal (seconds of CPU, tens of seconds
on a loaded machine), and the panel's other reads, asked at the same moment and
a few milliseconds each, had waited behind it past their deadline. A request
that cannot have its lane before its deadline is busy too, naming what the
request ahead waits on.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Literal, TypeVar

from .._i18n import M_
from ..exceptions import BusyError
from ..store.deadline import request_deadline, waited_on

T = TypeVar("T")
# A request that took this long in all is logged with where its time went (a worker
# free, its lane free, its own work): what a person or a test log needs to tell a
# slow machine from a request stuck behind another.
SLOW_S = 2.0
LaneName = Literal["write", "read", "listing"]
READ_LANES: tuple[LaneName, ...] = ("read", "listing")

_current = threading.local()


def current_lane() -> LaneName | None:
    """The lane this thread runs a route's work in right now (``None``: none)."""
    lane: LaneName | None = getattr(_current, "lane", None)
    return lane


class Lane:
    """One request at a time; ``holder`` is the thread running in it (``None``: free)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.holder: int | None = None


class OffLoop:
    def __init__(
        self,
        *,
        workers: int,
        deadline: float,
        log: logging.Logger | None = None,
        slow: float = SLOW_S,
    ) -> None:
        self.deadline = deadline
        self.log, self.slow = log, slow
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="jupyter-memory")
        self.lanes: dict[LaneName, Lane] = {"write": Lane(), "read": Lane(), "listing": Lane()}
        # The server's loop (noted by run()): what a worker announces is emitted there.
        self.loop: asyncio.AbstractEventLoop | None = None

    async def run(
        self, work: Callable[[], T], *, lane: LaneName = "write", what: str = "memory work"
    ) -> T:
        """``work()`` in a worker thread, bounded by this request's deadline (from now);
        ``what`` names the request in the log when it was slow."""
        now = time.monotonic()
        self.loop = asyncio.get_running_loop()
        return await self.loop.run_in_executor(
            self._pool, self._call, work, now, now + self.deadline, lane, what
        )

    def _call(self, work: Callable[[], T], asked: float, at: float, name: LaneName, what: str) -> T:
        lane = self.lanes[name]
        started = time.monotonic()
        with request_deadline(at, read=name in READ_LANES):
            if not lane.lock.acquire(timeout=max(at - time.monotonic(), 0.0)):
                held_by = waited_on(lane.holder) or "another memory request"
                raise BusyError(
                    M_(
                        "the server's memory is busy ({held_by}); try again in a moment",
                        held_by=held_by,
                    ),
                    held_by=held_by,
                    retry_after=max(1.0, round(self.deadline / 2)),
                )
            lane.holder, _current.lane = threading.get_ident(), name
            got = time.monotonic()
            try:
                return work()
            finally:
                lane.holder, _current.lane = None, None
                lane.lock.release()
                self._note_if_slow(what, name, asked, started, got)

    def _note_if_slow(
        self, what: str, lane: LaneName, asked: float, started: float, got: float
    ) -> None:
        done = time.monotonic()
        if self.log is None or done - asked < self.slow:
            return
        self.log.info(
            "jupyter-memory: %s took %.1f s: %.1f s for a worker, %.1f s for the %s lane, "
            "%.1f s of its own work",
            what, done - asked, started - asked, got - started, lane, done - got,
        )  # fmt: skip

    def unless_writing(self, work: Callable[[], T]) -> T | None:
        """``work()`` now, in the caller's thread, unless a write runs (then ``None``, at
        once): the change watcher's poll, which must not see a request's write before
        the request announces it as its own."""
        write = self.lanes["write"].lock
        if not write.acquire(blocking=False):
            return None
        try:
            return work()
        finally:
            write.release()

    def shutdown(self) -> None:
        """Stop taking work; what runs finishes within its deadline."""
        self._pool.shutdown(wait=False, cancel_futures=True)
