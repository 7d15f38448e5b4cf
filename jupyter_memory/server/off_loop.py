"""Memory work off jupyter_server's event loop: one small pool, one deadline per request.

The loop serves every notebook of the person (kernels, websockets, contents);
a memory route waits on locks other processes hold, on ``git``, on an index
sync after outside writes. So each route's work runs in a worker thread of
one bounded pool owned by the extension, under a deadline
(store/deadline.py) that every lock acquire and ``git`` call in it respects.
Past the deadline the work raises :class:`LockTimeoutError` or
:class:`BusyError` and the route answers ``503 busy`` naming what held it.

Two lanes, each one request at a time (a ``Memory`` was only ever used by one
thread at a time, the loop's): writes share the server's ``Memory``, reads a
second one on the same home (server/backend.py), so a read never queues
behind a write waiting for a lock; it answers from the index as the last
writer left it. A request that cannot have its lane before its deadline is
busy too, naming what the request ahead waits on.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from .._i18n import M_
from ..exceptions import BusyError
from ..store.deadline import request_deadline, waited_on

T = TypeVar("T")

_lane = threading.local()


def reading() -> bool:
    """Whether this thread runs a read (a GET) for a route right now."""
    return bool(getattr(_lane, "read", False))


class _Lane:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.holder: int | None = None  # the thread id running in it


class OffLoop:
    def __init__(self, *, workers: int, deadline: float) -> None:
        self.deadline = deadline
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="jupyter-memory")
        self._read, self._write = _Lane(), _Lane()
        # The server's loop (noted by run()): what a worker announces is emitted there.
        self.loop: asyncio.AbstractEventLoop | None = None

    async def run(self, work: Callable[[], T], *, read: bool = False) -> T:
        """``work()`` in a worker thread, bounded by this request's deadline (from now)."""
        at = time.monotonic() + self.deadline
        self.loop = asyncio.get_running_loop()
        return await self.loop.run_in_executor(self._pool, self._call, work, at, read)

    def _call(self, work: Callable[[], T], at: float, read: bool) -> T:
        lane = self._read if read else self._write
        with request_deadline(at, read=read):
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
            lane.holder, _lane.read = threading.get_ident(), read
            try:
                return work()
            finally:
                lane.holder, _lane.read = None, False
                lane.lock.release()

    def unless_writing(self, work: Callable[[], T]) -> T | None:
        """``work()`` now, in the caller's thread, unless a write runs (then ``None``, at
        once): the change watcher's poll, which must not see a request's write before
        the request announces it as its own."""
        if not self._write.lock.acquire(blocking=False):
            return None
        try:
            return work()
        finally:
            self._write.lock.release()

    def shutdown(self) -> None:
        """Stop taking work; what runs finishes within its deadline."""
        self._pool.shutdown(wait=False, cancel_futures=True)
