"""When the index may skip looking at every file: the folder's vouched stamp.

Re-checking ``memories/`` means a ``stat`` of every file (about 0.3 s of CPU at
100k files here). This module records, inside the index database and in the
same transaction as the rows it describes, the *stamp* of the folder (device,
inode, modification time in ns) at which the index is known to hold every file
of the folder. A later re-check that finds the folder at that stamp skips the
scan; any other stamp, or no record, means a full scan. Correctness beats
speed: whenever something below cannot be shown, nothing is recorded.

Who records a stamp:

* a full scan (``sync``, ``rebuild``): the stamp read *before* listing, kept only
  when nothing in the folder changed while it was listed and read;
* our own write of one file (``MemoryFiles.write`` / ``delete`` under the root
  lock): it moves the stamp from the recorded one to a new one, kept only when
  the folder was at the recorded stamp when the write began and the only
  changes in between were this write's own temp file and rename.

"Nothing changed while" is shown by an inotify watch on the folder held for the
whole window (Linux); without inotify nothing is recorded. Every window ends
only once the clock used for file times has moved past the stamp, so a change
made after the window gets a different modification time ("racy" stamps, the
problem git's index has). A stamp is recorded only after the file is durable
(renamed and its folder fsynced), in the index's own transaction: a writer
killed at any moment leaves either the old stamp, which no longer matches the
folder (a full scan follows), or the new one over a file that is on disk.

What a matching stamp vouches for — and what it cannot: every file added,
removed or renamed (by anyone: an editor saving through a rename, ``git pull``,
``rm``) changes the folder's stamp. A file rewritten *in place*
(open/truncate/write, ``touch``) does not, so at the first look of a process a
matching stamp only lets the open answer at once: every file's stat is still
checked, on a thread, before the index is first used (:mod:`.open_check`); the
stamp spares later re-checks of the same process (after another kernel's
write) a scan. Folders on network file systems are never vouched for
(timestamps there may be coarse and inotify does not see other hosts).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sqlite3
import struct
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..layout import RootLayout
from ..storage import is_network_fs, mount_of

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS folder_state ("
    " one INTEGER PRIMARY KEY CHECK (one = 1), dev INTEGER, ino INTEGER, mtime_ns INTEGER)"
)

# inotify(7): every change to an entry of the folder or to a file in it.
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF, _IN_Q_OVERFLOW = 0x400, 0x800, 0x4000
_MASK = (
    _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE
    | _IN_DELETE | _IN_DELETE_SELF | _IN_MOVE_SELF
)  # fmt: skip
_EVENT = struct.Struct("iIII")
# File times come from the kernel's coarse clock (one tick, 1–10 ms).
_COARSE = getattr(time, "CLOCK_REALTIME_COARSE", 5)
_TICK_WAIT_S = 0.05


@dataclass(frozen=True)
class Stamp:
    dev: int
    ino: int
    mtime_ns: int


def stamp_of(folder: Path) -> Stamp | None:
    try:
        st = os.lstat(folder)  # a folder replaced by a link is a change
    except OSError:
        return None
    return Stamp(st.st_dev, st.st_ino, st.st_mtime_ns)


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        lib = ctypes.CDLL(None, use_errno=True)
        lib.inotify_init1  # noqa: B018 - present in glibc and musl since 2.9
    except (OSError, AttributeError):
        return None
    return lib


_LIBC = _libc()
_trusted: dict[str, bool] = {}


def trusted(layout: RootLayout) -> bool:
    """inotify is there and the folder is on a local disk: not a root whose index had
    to move to the local cache (a network folder, detected or set by the person),
    nor on a network file system by the mount table (asked once per folder)."""
    if layout.index_home is not None:
        return False
    key = str(layout.memories)
    if key not in _trusted:
        found = mount_of(layout.memories if layout.memories.exists() else layout.root)
        _trusted[key] = _LIBC is not None and found is not None and not is_network_fs(found[1])
    return _trusted[key]


class Watch:
    """An inotify watch on one folder for the length of a window; ``clean`` says if only
    the expected names changed in it."""

    def __init__(self, folder: Path, expect: str | None = None) -> None:
        self.expect = expect  # a file name whose own temp file and rename are expected
        self.fd = self.wd = -1
        self.ok = False
        if _LIBC is None:
            return
        fd = _instances.take()
        if fd < 0:
            return
        wd = _LIBC.inotify_add_watch(fd, os.fsencode(folder), _MASK)
        if wd < 0:
            _instances.give_back(fd, -1)
            return
        self.fd, self.wd, self.ok = fd, wd, True

    def _expected(self, name: str) -> bool:
        want = self.expect
        return want is not None and (
            name == want or (name.startswith(f".{want}.") and name.endswith(".tmp"))
        )

    def clean(self, after: Stamp | None) -> bool:
        """Wait until file times have moved past ``after``, then judge the window."""
        if not self.ok or after is None:
            return False
        deadline = time.monotonic() + _TICK_WAIT_S
        while (ahead := after.mtime_ns - time.clock_gettime_ns(_COARSE)) >= 0:
            if time.monotonic() > deadline:  # a folder time in the future: never trust it
                return False
            # One sleep to the next tick, not a poll: a poll wakes late on a busy machine.
            time.sleep(min(ahead, 10_000_000) / 1e9 + 0.0005)
        try:
            while True:
                try:
                    buf = os.read(self.fd, 65536)
                except BlockingIOError:
                    return True
                off = 0
                while off + _EVENT.size <= len(buf):
                    wd, mask, _, length = _EVENT.unpack_from(buf, off)
                    raw = buf[off + _EVENT.size : off + _EVENT.size + length]
                    off += _EVENT.size + length
                    name = os.fsdecode(raw.rstrip(b"\0"))
                    if mask & _IN_Q_OVERFLOW:  # wd -1: any watch's events may be lost
                        return False
                    if wd != self.wd:  # the end of an earlier window's watch (IN_IGNORED)
                        continue
                    if mask & (_IN_DELETE_SELF | _IN_MOVE_SELF):
                        return False
                    if not self._expected(name):
                        return False
        except OSError:
            return False

    def close(self) -> None:
        if self.fd >= 0:
            _instances.give_back(self.fd, self.wd)
            self.fd = self.wd = -1


class _Instances:
    """inotify instances kept open for the next window: closing one waits for the
    kernel's RCU grace period (about 10 ms on a busy machine, once per write), while
    removing a watch does not. An instance is used by one window at a time, and its
    queue is emptied before the next window's watch is added, so no event of an
    earlier window is read in a later one. A forked child starts with none."""

    def __init__(self) -> None:
        self._free: list[int] = []
        self._guard = threading.Lock()

    def take(self) -> int:
        with self._guard:
            fd = self._free.pop() if self._free else -1
        if fd < 0:
            assert _LIBC is not None
            return int(_LIBC.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC))
        with contextlib.suppress(BlockingIOError):
            while os.read(fd, 65536):  # an earlier window's unread events and its IN_IGNORED
                pass
        return fd

    def give_back(self, fd: int, wd: int) -> None:
        assert _LIBC is not None
        if wd >= 0:
            _LIBC.inotify_rm_watch(fd, wd)  # fails harmlessly if the folder went already
        with self._guard:
            # Few kept: instances count against a per-user limit (max_user_instances,
            # often 128) shared with every other program's watches.
            if len(self._free) < 2:
                self._free.append(fd)
                return
        os.close(fd)

    def after_fork(self) -> None:
        # A child sharing the parent's instances would read the parent's events.
        for fd in self._free:
            with contextlib.suppress(OSError):
                os.close(fd)  # another reference stays in the parent: no grace period here
        self._free = []
        self._guard = threading.Lock()


_instances = _Instances()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_instances.after_fork)


@contextlib.contextmanager
def watching(folder: Path, expect: str | None = None) -> Iterator[Watch]:
    watch = Watch(folder, expect)
    try:
        yield watch
    finally:
        watch.close()


# -- our own writes: MemoryFiles notes the move, the index records it ---------------------


@dataclass(frozen=True)
class Move:
    """One write of ours took the folder from ``before`` to ``after``; ``clean``:
    nothing else changed in the folder meanwhile."""

    name: str
    before: Stamp | None
    after: Stamp | None
    clean: bool


_moves: dict[str, Move] = {}
_moves_guard = threading.Lock()


@contextlib.contextmanager
def own_write(layout: RootLayout, name: str) -> Iterator[None]:
    """Around one durable write or delete of ``memories/name`` (the caller holds the root lock)."""
    folder = layout.memories
    with _moves_guard:
        _moves.pop(str(folder), None)
    if not trusted(layout):
        yield
        return
    with watching(folder, expect=name) as watch:
        before = stamp_of(folder)
        yield
        after = stamp_of(folder)
        clean = watch.clean(after) and stamp_of(folder) == after
    with _moves_guard:
        _moves[str(folder)] = Move(name, before, after, clean)


def recorded(con: sqlite3.Connection) -> Stamp | None:
    """The stamp the index vouches for, if any."""
    con.execute(SCHEMA)
    row = con.execute("SELECT dev, ino, mtime_ns FROM folder_state WHERE one = 1").fetchone()
    if row is None or row[0] is None:
        return None
    return Stamp(int(row[0]), int(row[1]), int(row[2]))


def record(con: sqlite3.Connection, stamp: Stamp | None) -> None:
    """Inside the transaction that makes the index hold the folder at ``stamp``."""
    con.execute(SCHEMA)
    if stamp is None:
        con.execute("DELETE FROM folder_state")
    else:
        con.execute(
            "INSERT OR REPLACE INTO folder_state VALUES (1, ?, ?, ?)",
            (stamp.dev, stamp.ino, stamp.mtime_ns),
        )


def after_own_write(con: sqlite3.Connection, layout: RootLayout, name: str) -> None:
    """In the index transaction of our write of ``name``: carry the stamp over, or drop it."""
    with _moves_guard:
        move = _moves.pop(str(layout.memories), None)
    keep = (
        move is not None
        and move.name == name
        and move.clean
        and move.before is not None
        and move.before == recorded(con)
    )
    record(con, move.after if keep and move is not None else None)


def vouches(con: sqlite3.Connection, layout: RootLayout) -> bool:
    """The folder is at the stamp the index recorded: no entry was added, removed or renamed."""
    if not trusted(layout):
        return False
    now = stamp_of(layout.memories)
    return now is not None and now == recorded(con)
