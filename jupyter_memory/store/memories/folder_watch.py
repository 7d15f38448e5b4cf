"""A watcher in a long-running process vouches for in-place edits, so an open need not stat.

The folder stamp (:mod:`.folder_journal`) shows every file added, removed or
renamed; a file rewritten *in place* shows only in its own ``stat``, so the
first look of every process stats every file (:mod:`.open_check`: ~0.5 s at
100k). A process that lives long (the Jupyter server, a kernel) can instead
keep an inotify watch on ``memories/`` and see every in-place edit as it
happens; a new process then asks it rather than statting.

The watcher (:class:`FolderWatcher`, a daemon thread):

* holds a shared ``flock`` on ``.index/watch/lock`` for as long as it watches
  (the kernel drops it when the process dies, however it dies);
* is *clean* once, with its watch already in place, it has found the files as
  the index holds them (the same count-and-sums check as :mod:`.open_check`)
  and has seen no in-place change to a memory file since: a write to a
  ``*.md`` file that is not a rename (``IN_MODIFY``, ``IN_CLOSE_WRITE``),
  a change of its times or mode (``IN_ATTRIB``), or a lost event (queue
  overflow, the folder moved or removed) makes it *dirty* until it has
  checked the files again. Our own writes are renames of temp files (dot
  names), which change the folder stamp instead, and the index records that
  stamp in the transaction of the write (:mod:`.folder_journal`).

The question (:func:`vouched_by_watcher`): a process whose folder is at the
stamp its index vouches for writes a fresh token into ``.index/watch/ask``
and waits (at most ``ASK_TIMEOUT_S``) for ``.index/watch/<token>`` holding
``clean``. Both paths are watched through one inotify instance, whose events
come in the order they happened, so by the time the watcher reads the
token's write it has read every event of an edit made before the question:
its answer covers the files up to that moment. No watcher (the lock is
free), no answer in time, a dirty one, a network folder, no inotify: the
open's own check runs, as before.

Several watchers of one folder (a Jupyter server and the watcher process of
:mod:`.watch_daemon`) answer one at a time: the one holding the exclusive
``flock`` on ``.index/watch/answer`` answers, the others keep watching and
take it over when its holder dies (the kernel drops it then), so each question
gets one answer file, which the asker removes.

Two writes no watch on the folder sees (inotify(7)): one through a hard link
from outside ``memories/``, and one through a shared ``mmap`` after the
descriptor was closed. A watcher's check therefore finds nothing clean while a
memory file has more than one link; a link made later, from outside, and an
edit through it stay unseen by a watcher (the stat of an open sees them).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import select
import threading
import time
from collections.abc import Callable
from enum import Enum
from pathlib import Path

from ..layout import RootLayout
from ..private import make_private_dirs, open_private
from . import folder_journal as journal
from .files import MemoryFiles
from .open_check import Verification
from .search_index import LoadFn

ASK_TIMEOUT_S = 0.05  # a watcher answers in well under a millisecond when it is running
RECHECK_S = 5.0  # a dirty watcher checks the files again at most this often, when asked
QUIET_S = 0.5  # ... once the folder and the questions have been quiet this long
DEFER_S = 5.0  # ... or questions keep coming this long after the first that found it dirty
_ASK = "ask"
_LOCK = "lock"
_ANSWERER = "answer"
_CLEAN, _DIRTY = b"clean\n", b"dirty\n"

_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF, _IN_Q_OVERFLOW, _IN_IGNORED = 0x400, 0x800, 0x4000, 0x8000
_IN_PLACE = _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE
_FOLDER_MASK = (
    _IN_PLACE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
    | _IN_DELETE_SELF | _IN_MOVE_SELF
)  # fmt: skip
_LOST = _IN_Q_OVERFLOW | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_IGNORED


def watch_dir(layout: RootLayout) -> Path:
    return layout.index_dir / "watch"


class Answer(Enum):
    """What an open learnt from asking (:func:`ask`)."""

    CLEAN = "clean"  # a watcher saw no memory file edited in place
    DIRTY = "dirty"  # it saw one (or has not found the files as indexed)
    NO_ANSWER = "no answer"  # a watcher runs but did not answer in time (busy, frozen)
    NO_WATCHER = "no watcher"  # nobody watches (or cannot be asked): the open checks


class FolderWatcher:
    """Watches ``memories/`` of one root for in-place edits and answers questions."""

    def __init__(self, layout: RootLayout, db: Callable[[], Path | None], load: LoadFn) -> None:
        self.layout, self._db, self._load = layout, db, load  # db: the index file in use
        self.clean = False
        # The first question since the last check that found it dirty: check again
        # once quiet (the asking open re-indexes meanwhile).
        self._dirty_asked_at: float | None = None
        self._checked_at = 0.0
        self._folder_event_at = 0.0  # the last event in memories/ (quiet since)
        self._last_token = ""
        self.running = False
        self.answering = False  # holds the answer lock: this watcher answers questions
        self.asked_at = time.monotonic()  # the last question seen (a watcher process idles out)
        self._fd = -1
        self._lock_fd = -1
        self._answer_fd = -1
        # The watched question folder, held open: questions are read and answered in
        # it, and the memories folder beside it must be the watched one (a root moved
        # or replaced since is not what this watcher saw).
        self._wdir_fd = -1
        self._folder_id: tuple[int, int] | None = None
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()  # close() wakes the thread's poll at once
        self._thread: threading.Thread | None = None

    def start(self) -> bool:
        """Start watching; False where it cannot (no inotify, a network folder)."""
        lib = journal._LIBC
        if lib is None or not journal.trusted(self.layout):
            return False
        folder, wdir = self.layout.memories, watch_dir(self.layout)
        try:
            make_private_dirs(wdir, self.layout.index_root)
            fd = lib.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
            if fd < 0:
                return False
            self._fd = fd
            folder_wd = lib.inotify_add_watch(fd, os.fsencode(folder), _FOLDER_MASK)
            ask_wd = lib.inotify_add_watch(fd, os.fsencode(wdir), _IN_CLOSE_WRITE)
            if folder_wd < 0 or ask_wd < 0:
                self.close()
                return False
            self._folder_wd, self._ask_wd = folder_wd, ask_wd
            self._wdir_fd = os.open(
                wdir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            )
            self._folder_id = self._beside()
            # Locks held on read-only descriptors: a file open for writing would keep
            # the person from remounting the disk read-only for as long as it watches.
            self._lock_fd = open_private(wdir / _LOCK, os.O_RDONLY)
            fcntl.flock(self._lock_fd, fcntl.LOCK_SH)
            self._answer_fd = open_private(wdir / _ANSWERER, os.O_RDONLY)
            # Answers nobody read (an asker gave up waiting); not while another
            # watcher answers, whose answer may be on its way to an asker.
            for left in wdir.iterdir() if self._take_answering() else ():
                if len(left.name.strip(".").removesuffix(".tmp")) == 32:
                    with contextlib.suppress(OSError):
                        left.unlink()
        except OSError:  # a folder we cannot watch is one we do not vouch for
            self.close()
            return False
        self.running = True
        self._thread = threading.Thread(
            target=self._run, name="jupyter-memory-folder-watch", daemon=True
        )
        self._thread.start()
        return True

    def _beside(self) -> tuple[int, int]:
        """The memories folder beside the question folder, as the two stand now."""
        st = os.stat("../../memories", dir_fd=self._wdir_fd, follow_symlinks=False)
        return (st.st_dev, st.st_ino)

    def _in_place(self) -> bool:
        """The watched folders are still where the layout's paths lead (the check
        stats by path; the folders may have moved with their root)."""
        try:
            folder = os.lstat(self.layout.memories)
            wdir = os.lstat(watch_dir(self.layout))
            there = os.fstat(self._wdir_fd)
            beside = self._beside()
        except OSError:
            return False
        return (folder.st_dev, folder.st_ino) == self._folder_id == beside and (
            wdir.st_dev,
            wdir.st_ino,
        ) == (there.st_dev, there.st_ino)

    def _check(self) -> bool:
        """The open's own check (as many files as rows, the same sums of mtimes and
        sizes), then no in-place change while it ran."""
        self._checked_at = time.monotonic()
        self._drain()  # what happened before the check began is what it looks at
        if not self._in_place():
            self._stop.set()  # moved or replaced: what it watches is not this home's
            return False
        db = self._db()
        if db is None or not db.is_file():
            return False
        check = Verification(db, MemoryFiles(self.layout), self._load)
        matches = check.wait() and not check.hard_linked
        return not self._drain() and matches

    def _take_answering(self) -> bool:
        if not self.answering:
            try:
                fcntl.flock(self._answer_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # another watcher answers
            self.answering = True
        return True

    def _run(self) -> None:
        try:
            poller = select.poll()  # not select(): a server may hold more than 1,024 files
            poller.register(self._fd, select.POLLIN)
            poller.register(self._wake_r, select.POLLIN)
            self.clean = self._check()
            while not self._stop.is_set():
                # Asleep until an event or close() unless a re-check is due: an idle
                # watcher (a process of its own, for hours) does not wake at all.
                asked = self._dirty_asked_at
                due = not self.clean and asked is not None
                if poller.poll(int(QUIET_S * 1000) if due else None):
                    if self._stop.is_set():
                        break
                    self._drain()
                now = time.monotonic()
                if (
                    due
                    and asked is not None
                    and now - self._checked_at > RECHECK_S
                    and now - self._folder_event_at > QUIET_S
                    and (now - self.asked_at > QUIET_S or now - asked > DEFER_S)
                ):
                    # The asking open looked at every file meanwhile and brought the
                    # index up to date; checking costs a stat of every file, so only
                    # when asked, the folder and the questions quiet (the last asker
                    # may still be re-indexing; a steady stream of questions defers
                    # it DEFER_S at most), and at most every RECHECK_S.
                    self._dirty_asked_at = None
                    self.clean = self._check()
        except (OSError, ValueError):
            self.clean = False
        finally:
            self.running = False
            self.answering = False
            # the thread's own: no one else closes them
            self._release("_fd", "_lock_fd", "_answer_fd", "_wdir_fd")

    def _drain(self) -> bool:
        """Read every queued event, answer questions; True if a memory file changed in place."""
        changed = False
        while True:
            try:
                buf = os.read(self._fd, 65536)
            except BlockingIOError:
                return changed
            off = 0
            size = journal._EVENT.size
            while off + size <= len(buf):
                wd, mask, _, length = journal._EVENT.unpack_from(buf, off)
                name = os.fsdecode(buf[off + size : off + size + length].rstrip(b"\0"))
                off += size + length
                if mask & _LOST:
                    changed = True
                    self.clean = False
                    if wd in (self._folder_wd, self._ask_wd) or mask & _IN_Q_OVERFLOW:
                        # the watch is gone or has gaps, or nobody can ask: stop vouching
                        self._stop.set()
                    continue
                if wd == self._ask_wd:
                    if name == _ASK:
                        self.asked_at = time.monotonic()
                        if not self._take_answering():
                            continue  # the answering watcher answers this one
                        clean = not changed and self.clean
                        if not clean and self._dirty_asked_at is None:
                            self._dirty_asked_at = self.asked_at
                        self._answer(clean)
                    continue
                if wd == self._folder_wd:
                    self._folder_event_at = time.monotonic()
                if mask & _IN_PLACE and not name.startswith(".") and name.endswith(".md"):
                    changed = True
                    self.clean = False

    def _answer(self, clean: bool) -> None:
        # Read and answered in the watched question folder (its descriptor): the asker
        # asked there, about the memories folder beside it, which must be the watched one.
        at = self._wdir_fd
        try:
            fd = os.open(_ASK, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=at)
            try:
                token = os.read(fd, 64).decode("ascii").strip()
            finally:
                os.close(fd)
            if clean and self._beside() != self._folder_id:
                self._stop.set()  # the folder beside it is another one now
                clean = False
        except (OSError, UnicodeDecodeError):
            return
        if len(token) != 32 or not token.isalnum() or token == self._last_token:
            return  # a partial write, or one already answered (two asks at once)
        self._last_token = token
        tmp = f".{token}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, 0o600, dir_fd=at)
        try:
            os.write(fd, _CLEAN if clean else _DIRTY)
        finally:
            os.close(fd)
        os.replace(tmp, token, src_dir_fd=at, dst_dir_fd=at)

    def wait(self, timeout: float) -> bool:
        """Wait at most ``timeout`` seconds for the watch to end; True once it has."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def close(self) -> None:
        """Stop watching: the thread is woken and waited for before its descriptors
        are closed, so none is closed under it (and reused by another open meanwhile)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            with contextlib.suppress(OSError):
                os.write(self._wake_w, b"x")
            thread.join(timeout=5.0)
        if thread is None or not thread.is_alive():
            self.answering = False
            self._release("_fd", "_lock_fd", "_answer_fd", "_wdir_fd", "_wake_r", "_wake_w")

    def _release(self, *attrs: str) -> None:
        for attr in attrs:
            fd = getattr(self, attr)
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
                setattr(self, attr, -1)


def vouched_by_watcher(layout: RootLayout, timeout: float = ASK_TIMEOUT_S) -> bool:
    """A running watcher says no memory file was edited in place (see the module's docstring)."""
    return ask(layout, timeout) is Answer.CLEAN


def watched(layout: RootLayout) -> bool:
    """Some process watches this folder (its lock is held), without asking it anything."""
    if journal._LIBC is None or not journal.trusted(layout):
        return False
    try:
        lock = os.open(watch_dir(layout) / _LOCK, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(lock)  # and with it the lock, if this took it
    return False


def ask(layout: RootLayout, timeout: float = ASK_TIMEOUT_S) -> Answer:
    """Ask the folder's watcher, if one runs (see the module's docstring)."""
    if journal._LIBC is None or not journal.trusted(layout):
        return Answer.NO_WATCHER
    wdir = watch_dir(layout)
    try:
        lock = os.open(wdir / _LOCK, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return Answer.NO_WATCHER  # no watcher was ever started here
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # held: a watcher is running
        else:
            return Answer.NO_WATCHER  # free: nobody watches
        token = secrets.token_hex(16)
        answer = wdir / token
        try:
            fd = open_private(wdir / _ASK, os.O_WRONLY | os.O_TRUNC)
            try:
                os.write(fd, token.encode())
            finally:
                os.close(fd)  # the watcher reads the token at this close
        except OSError:
            return Answer.NO_WATCHER  # a read-only home: it cannot be asked
        deadline = time.monotonic() + timeout
        while True:
            try:
                said = answer.read_bytes()
            except FileNotFoundError:
                if time.monotonic() > deadline:
                    return Answer.NO_ANSWER
                time.sleep(0.0002)
                continue
            except OSError:
                return Answer.NO_ANSWER
            with contextlib.suppress(OSError):
                answer.unlink()
            return Answer.CLEAN if said == _CLEAN else Answer.DIRTY
    finally:
        os.close(lock)
