"""A process's first look when the folder journal vouches: answer at once, verify behind.

A folder at the stamp the index recorded (:mod:`.folder_journal`) has had no
file added, removed or renamed since: that covers ``git pull``, ``rm``, ``cp``
of a new file and every editor that saves through a rename. It does not cover
a file rewritten in place (an editor saving in place, ``cp`` onto an existing
file, ``touch``), which only that file's own ``stat`` shows — and statting
100k files costs about half a second here, most of it in the kernel.

So the first look of a process whose folder is vouched for does not stat
anything itself: :class:`Verification` stats every file on a background thread
and :class:`~.sqlite_index.SqliteIndex` waits for its answer before the first
read or write of the index is served. When the answer is "as indexed", that
read goes ahead; otherwise (or when it cannot be shown) the full look runs
then, under the root lock, exactly as an unvouched open runs it. Nothing is
answered from an index that was not checked against the files.

"As indexed" is: as many files as the index has rows (entries and problems),
and the same sum of their ``mtime_ns`` and of their sizes. The stamp already
shows that every name has its row, so what is left is a file rewritten under
its name — and that write gives it the time of the write as its mtime, later
than the one indexed: the sum grows (a ``touch`` too; an edit that keeps the
size too). The one edit a sum could miss is a file whose mtime is set *back*
(``touch -d``, ``cp -p``) while another file's moves by exactly as many
nanoseconds the other way. The sums are taken in SQL, so no row of the index
reaches Python: the check costs the ``stat`` calls and little more.

The answer holds for the files as they were when the process opened the
folder: a change made later is either seen by the re-checks every read makes
(a new, removed or renamed file moves the stamp) or, when it is an in-place
edit, on the next open, as before this module.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ...exceptions import JupyterMemoryError
from ..atomic import root_lock
from . import folder_journal as journal
from .files import FileStat, MemoryFiles
from .search_index import LoadFn
from .sqlite_db import connect

# File times come from the kernel's coarse realtime clock (as in folder_journal).
_COARSE = getattr(time, "CLOCK_REALTIME_COARSE", 5)

# What the index holds, summed in SQL (no row reaches Python): the files, their
# mtimes in whole seconds and the nanoseconds left (each sum fits 64 bits), sizes.
_HELD = (
    "SELECT count(*), coalesce(sum(mtime_ns / 1000000000), 0),"
    " coalesce(sum(mtime_ns % 1000000000), 0), coalesce(sum(size), 0)"
    " FROM (SELECT mtime_ns, size FROM entries UNION ALL SELECT mtime_ns, size FROM problems)"
)


class Verification:
    """The files as the index holds them? Worked out on a thread; :meth:`wait` for it."""

    def __init__(
        self,
        db: Path,
        files: MemoryFiles,
        load: LoadFn,
        on_count: Callable[[int], None] | None = None,
    ) -> None:
        self.db_name = db.name  # the index file the answer is about
        self.load = load  # for the full look, if one is needed
        self._db, self._files = db, files
        self._on_count = on_count  # told how many files the index holds, before the stats
        self._matches = False
        # What the thread listed, for the full look if one follows: the files, the
        # killed writers' temp files, and the folder's stamp before the listing.
        self.listed: list[FileStat] = []
        self.stale: list[Path] = []
        self.hard_linked: list[str] = []  # what a watcher cannot vouch for (folder_watch.py)
        self.before: journal.Stamp | None = None
        self._thread = threading.Thread(
            target=self._run, name="jupyter-memory-open-check", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        try:
            con = connect(self._db, self._files.layout.index_root)
            try:
                n, secs, nanos, size = con.execute(_HELD).fetchone()
            finally:
                con.close()
            held = (n, secs * 1_000_000_000 + nanos, size)  # a = (a / b) * b + a % b, exactly
            if self._on_count is not None:
                self._on_count(n)
            self.before = journal.stamp_of(self._files.folder)
            listed_at = time.clock_gettime_ns(_COARSE)
            if self.before is not None and listed_at <= self.before.mtime_ns:
                # Still the folder's last tick: a change now could leave its stamp as is.
                self.before = None
            on_disk = [0, 0, 0]
            for st in self._files.scan(self.stale, self.hard_linked):
                self.listed.append(st)
                on_disk[0] += 1
                on_disk[1] += st.mtime_ns
                on_disk[2] += st.size
            # A killed writer's temp file is removed by a full look (under the lock).
            self._matches = not self.stale and tuple(on_disk) == held
        except (OSError, sqlite3.Error, ValueError, TypeError, JupyterMemoryError):
            self._matches, self.before = False, None  # not shown: a full look of its own

    def wait(self) -> bool:
        """True when the files were found as the index holds them (count and sums)."""
        self._thread.join()
        return self._matches


class OpenCheck:
    """The verification an index is waiting for, settled once before the index is used."""

    def __init__(self) -> None:
        self.pending: Verification | None = None
        self._guard = threading.Lock()

    def start(
        self,
        db: Path,
        files: MemoryFiles,
        load: LoadFn,
        on_count: Callable[[int], None] | None = None,
    ) -> None:
        self.pending = Verification(db, files, load, on_count)

    def cancel(self) -> None:
        self.pending = None

    def settle(
        self,
        con: sqlite3.Connection,
        current: str | None,
        root: Path,
        full_look: Callable[[sqlite3.Connection, Verification], None],
    ) -> bool:
        """Wait for the answer; run ``full_look`` under the root lock unless it was "as
        indexed" for the index file still in use. True once settled by this call."""
        check = self.pending
        if check is None:
            return False
        if check.wait() and check.db_name == current:
            with self._guard:
                settled = self.pending is check
                if settled:
                    self.pending = None
            return settled
        # The root lock before our guard, as writers take it before using the index;
        # another thread's full look holds both, so a reader here waits for it.
        with root_lock(root), self._guard:
            if self.pending is not check:
                return False  # settled by another thread meanwhile
            if con.in_transaction:  # this thread's own open transaction: at the next use
                return False
            full_look(con, check)
            self.pending = None
        return True
