"""A function over a list, worked out in forked processes, the results read back in order.

A rebuild parses and tokenizes every file (CPU work, two thirds of it) and
writes SQLite (one connection, this process). Here the files are cut into
chunks dealt round-robin to ``workers`` forked children; each works its
chunks in order and writes each chunk's results down its own pipe as one
length-prefixed pickle. This process hands the results on chunk by chunk
in list order, writing the database meanwhile; whenever it waits for one
child it reads every pipe ahead, and on Linux a pipe holds a few chunks,
so a child seldom waits for it. Nothing is sent to a child: it
inherits the list and the function when forked (an open folder descriptor
too), so the function need not be picklable; its results must be.

The results are those of calling the function here, in order, whatever
happens to a child: where ``os.fork`` is missing (Windows) or fails, for
too few items, and for every chunk a child did not send whole (it died, or
the function raised what it does not turn into a result), this process
works the chunk itself, so an error is raised here as the plain loop raises
it. Leaving the ``with`` block — done, an error, ``KeyboardInterrupt`` —
kills every child still running and waits for each: none is left behind. A
child whose parent dies is stopped by its next write (a broken pipe).
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import selectors
import signal
import struct
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no fork either
    fcntl = None  # type: ignore[assignment]

T = TypeVar("T")
R = TypeVar("R")

_HEAD = struct.Struct("<Q")  # the byte length of the pickle that follows
_READ = 1 << 20  # bytes read from a pipe at a time
_PIPE = 4 << 20  # bytes a pipe holds: a child runs this far ahead of the reader
# Seconds this process waits for a chunk while its child sends nothing before
# it kills the child and works the chunk itself. A child can hang where another
# thread of this process held a lock when it was forked (a kernel has several
# threads); a chunk takes milliseconds, so this only ever fires on a hang.
STALL_S = 20.0


def workers(wanted: int) -> int:
    """How many children to fork: up to ``wanted``, one per processor; 0 for none."""
    if getattr(os, "fork", None) is None:
        return 0
    cpus = os.cpu_count() or 1
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        with contextlib.suppress(OSError):
            cpus = len(affinity(0))
    n = min(wanted, cpus)
    return n if n > 1 else 0


class _Child:
    """A forked worker: its pid and its pipe, read ahead into ``buf``."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd = fd
        self.buf = bytearray()
        self.done = False  # end of its pipe seen

    def frame(self) -> bytes | None:
        """The next whole pickle read so far, taken off the buffer."""
        if len(self.buf) < _HEAD.size:
            return None
        end = _HEAD.size + _HEAD.unpack_from(self.buf)[0]
        if len(self.buf) < end:
            return None
        data = bytes(self.buf[_HEAD.size : end])
        del self.buf[:end]
        return data


@contextlib.contextmanager
def ordered_map(
    fn: Callable[[T], R], items: Sequence[T], *, workers: int, chunk: int
) -> Iterator[Iterator[R]]:
    """``map(fn, items)``, the work shared with up to ``workers`` forked children."""
    chunks = [(i, min(i + chunk, len(items))) for i in range(0, len(items), chunk)]
    slots: list[_Child | None] = []
    fork = getattr(os, "fork", None)
    try:
        if fork is not None and workers > 1 and len(chunks) > 1:
            for slot in range(min(workers, len(chunks))):
                slots.append(_start(fork, fn, items, chunks[slot::workers], slots))
        yield _results(fn, items, chunks, slots)
    finally:
        for child in slots:
            if child is not None and child.fd >= 0:
                os.close(child.fd)
        _stop([child.pid for child in slots if child is not None])


def _start(
    fork: Callable[[], int],
    fn: Callable[[T], R],
    items: Sequence[T],
    mine: list[tuple[int, int]],
    started: list[_Child | None],
) -> _Child | None:
    """Fork a child working ``mine``; ``None`` when no process can be made."""
    read_fd, write_fd = os.pipe()
    pid = 0
    try:
        _widen(write_fd)
        with warnings.catch_warnings():
            # Python 3.12+ warns of fork in a process with threads: the child
            # only runs ``fn`` and pickle, and leaves by os._exit.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = fork()
        if pid == 0:  # pragma: no cover - the child, measured through its results
            others = [c.fd for c in started if c is not None]
            _child(fn, items, mine, write_fd, [read_fd, *others])
        return _Child(pid, read_fd)
    except OSError:  # no more processes: this process works those chunks
        os.close(read_fd)
        return None
    except BaseException:  # interrupted here: the child goes too
        os.close(read_fd)
        _stop([pid] if pid else [])
        raise
    finally:
        os.close(write_fd)  # the child's end (the child itself leaves by os._exit, never here)


def _widen(fd: int) -> None:
    """Let a child run ahead while this process writes SQLite: a pipe of a few
    chunks (Linux; elsewhere the system's size, and the child waits sooner)."""
    setpipe = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if setpipe is not None:
        for size in (_PIPE, _PIPE // 4):
            with contextlib.suppress(OSError):  # over /proc/sys/fs/pipe-max-size
                fcntl.fcntl(fd, setpipe, size)
                return


def _child(
    fn: Callable[[T], R],
    items: Sequence[T],
    mine: list[tuple[int, int]],
    write_fd: int,
    not_mine: list[int],
) -> None:  # pragma: no cover - runs in the child
    code = 1
    try:
        with contextlib.suppress(ValueError):  # Ctrl-C ends it; the parent cleans up
            signal.signal(signal.SIGINT, signal.SIG_DFL)
        gc.disable()  # a short life: no collections
        for fd in not_mine:  # the other pipes' read ends: the parent's alone
            os.close(fd)
        for start, stop in mine:
            data = pickle.dumps([fn(items[i]) for i in range(start, stop)], protocol=5)
            view = memoryview(_HEAD.pack(len(data)) + data)
            while view:
                view = view[os.write(write_fd, view) :]
        code = 0
    finally:
        os._exit(code)  # never back into the parent's code, atexit or buffers


def _results(
    fn: Callable[[T], R],
    items: Sequence[T],
    chunks: list[tuple[int, int]],
    slots: list[_Child | None],
) -> Iterator[R]:
    live = list(slots)
    with selectors.DefaultSelector() as sel:
        for child in slots:
            if child is not None:
                sel.register(child.fd, selectors.EVENT_READ, child)
        for n, (start, stop) in enumerate(chunks):
            slot = n % len(live) if live else -1
            child = live[slot] if slot >= 0 else None
            data = _receive(sel, child) if child is not None else None
            got: list[R] | None = None
            if data is not None:
                got = pickle.loads(data)  # noqa: S301 - our own child's pickle
            else:
                if child is not None:
                    live[slot] = None  # a child that failed once sends nothing more
                got = [fn(items[i]) for i in range(start, stop)]
            yield from got


def _receive(sel: selectors.BaseSelector, child: _Child) -> bytes | None:
    """The next chunk of ``child``, reading every pipe ahead meanwhile (a child
    then need not wait on a full pipe); ``None`` when it ended without sending it
    whole, or sent nothing for :data:`STALL_S` seconds (it is then killed)."""
    deadline = time.monotonic() + STALL_S
    while True:
        data = child.frame()
        if data is not None or child.done:
            return data
        events = sel.select(max(0.0, deadline - time.monotonic()))
        if not events and time.monotonic() >= deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGKILL)  # waited for when the map ends
            child.done = True
            sel.unregister(child.fd)
            return None
        for key, _ in events:
            ready: _Child = key.data
            try:
                more = os.read(ready.fd, _READ)
            except OSError:
                more = b""
            if more:
                ready.buf += more
                if ready is child:
                    deadline = time.monotonic() + STALL_S
            else:
                ready.done = True
                sel.unregister(ready.fd)


def _stop(pids: list[int]) -> None:
    """Wait for every child, killing first those still running (none, after a whole read)."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError):  # reaped elsewhere (SIGCHLD ignored)
            if os.waitpid(pid, os.WNOHANG) == (0, 0):  # still running: never a stranger's pid
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
