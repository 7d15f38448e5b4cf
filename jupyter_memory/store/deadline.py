"""One deadline per request, read by every wait in the store (locks, git).

The REST server runs each request in a worker thread under
:func:`request_deadline`; a lock acquire or a ``git`` call in that thread waits
at most until the deadline, so a sequence of waits is bounded in total, not
per wait. Outside a request (kernels, the CLI) there is no deadline and each
wait keeps its own timeout.

:func:`waiting` records what the thread waits on right now (``home lock
<path>``, ``git``), so another request queued behind it can say what holds it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

_local = threading.local()
# Thread id → what that thread waits on now (read by other threads).
_waits: dict[int, str] = {}


@contextlib.contextmanager
def request_deadline(at: float, *, read: bool = False) -> Iterator[None]:
    """Bound every wait in this thread by ``at`` (a ``time.monotonic()`` value).

    ``read``: the request only reads, so an index sync that would wait for a
    writer is skipped and the index answers as the last writer left it
    (:func:`stale_index_ok`).
    """
    before = getattr(_local, "deadline", None), getattr(_local, "read", False)
    _local.deadline = at if before[0] is None else min(at, before[0])
    _local.read = read
    try:
        yield
    finally:
        _local.deadline, _local.read = before


def stale_index_ok() -> bool:
    """In a read request: the last consistent index may answer instead of a sync."""
    return bool(getattr(_local, "read", False)) and getattr(_local, "deadline", None) is not None


@contextlib.contextmanager
def past_deadline() -> Iterator[None]:
    """Lift the request's deadline for a block that finishes a write already made:
    a busy answer then would say nothing was written when something was."""
    before = getattr(_local, "deadline", None)
    _local.deadline = None
    try:
        yield
    finally:
        _local.deadline = before


def remaining() -> float | None:
    """Seconds left before this thread's request deadline; ``None`` outside a request."""
    at: float | None = getattr(_local, "deadline", None)
    return None if at is None else at - time.monotonic()


def bounded(timeout: float) -> tuple[float, bool]:
    """``timeout`` cut to the request's deadline, and whether the deadline cut it."""
    left = remaining()
    if left is None or left >= timeout:
        return timeout, False
    return max(left, 0.0), True


@contextlib.contextmanager
def waiting(what: str) -> Iterator[None]:
    """Say what this thread waits on while the block runs (see :func:`waited_on`)."""
    me = threading.get_ident()
    before = _waits.get(me)
    _waits[me] = what
    try:
        yield
    finally:
        if before is None:
            _waits.pop(me, None)
        else:
            _waits[me] = before


def waited_on(thread_id: int | None) -> str | None:
    """What the thread ``thread_id`` waits on now, if it said (:func:`waiting`)."""
    return _waits.get(thread_id) if thread_id is not None else None


__all__ = [
    "bounded",
    "past_deadline",
    "remaining",
    "request_deadline",
    "stale_index_ok",
    "waited_on",
    "waiting",
]
