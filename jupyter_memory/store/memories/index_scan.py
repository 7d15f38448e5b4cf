"""Bringing the index in step with the files: a full look, and a fresh rebuild.

Functions over an open connection; :class:`.sqlite_index.SqliteIndex` decides
when to look (the first call of a process always does, on a thread when the
folder journal vouches, :mod:`.open_check`; later ones unless the journal
vouches), holds the connection and swaps a rebuilt file in.
Each records the folder's stamp in its own transaction when its window was
clean (:mod:`.folder_journal`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..._i18n import M_
from ..._i18n.stored import read_stored, stored_text
from ...core.progress import BAR_THRESHOLD, NoProgress, Progress
from ...exceptions import JupyterMemoryError
from . import folder_journal as journal
from . import fresh_load
from . import sqlite_rows as rows
from .files import FileStat
from .search_index import IndexSyncReport, LoadFn
from .sqlite_db import SCHEMA, open_db, transaction


@dataclass(frozen=True)
class Window:
    """The watch held while the folder was listed and read, and its stamp before."""

    watch: journal.Watch | None
    before: journal.Stamp | None

    def stamp(self) -> journal.Stamp | None:
        # Only a window in which nothing moved in the folder vouches for it.
        if self.watch is None or not self.watch.clean(self.before):
            return None
        return self.before


def apply(
    con: sqlite3.Connection,
    stats: Iterable[FileStat],
    load: LoadFn,
    progress: Progress | None,
    report: IndexSyncReport,
    window: Window,
) -> None:
    """Re-parse the files whose (name, mtime_ns, size) the index does not hold; drop the gone."""
    # Whole (name, mtime_ns, size) rows as tuples: the set is built in C and
    # a FileStat (a NamedTuple) hashes and compares equal to its row.
    known = set(con.execute("SELECT name, mtime_ns, size FROM entries"))
    bad = set(con.execute("SELECT name, mtime_ns, size FROM problems"))
    files = list(stats)
    changed = [st for st in files if st not in known and st not in bad]
    gone: list[str] = []
    if len(files) - len(changed) != len(known) + len(bad):
        seen = {st.name for st in files}
        gone = [r[0] for r in known if r[0] not in seen]
        gone += [r[0] for r in bad if r[0] not in seen]
    if not changed and not gone:
        now = window.stamp()
        if now is not None and now != journal.recorded(con):
            with transaction(con):
                journal.record(con, now)
        return
    indexed = {r[0] for r in known}
    bar = progress if progress is not None and len(changed) >= BAR_THRESHOLD else NoProgress()
    bar.stage(M_("indexing memories"), len(changed))
    try:
        with transaction(con):
            for name in gone:
                rows.remove(con, name)
                report.removed += 1
            for st in changed:
                index_file(con, st, load, report, existed=st.name in indexed)
                bar.advance()
            journal.record(con, window.stamp())
    finally:
        bar.close()


def index_file(
    con: sqlite3.Connection,
    st: FileStat,
    load: LoadFn,
    report: IndexSyncReport,
    *,
    existed: bool,
) -> None:
    """Index one file, or record why it cannot be (a problem row, listed by doctor)."""
    try:
        entry = load(st.name)
        rows.upsert(con, entry, st)
    except (JupyterMemoryError, OSError, ValueError) as exc:
        rows.remove(con, st.name)
        reason = stored_text(exc)  # translatable when read back (doctor)
        con.execute(
            "INSERT OR REPLACE INTO problems VALUES (?,?,?,?)",
            (st.name, st.mtime_ns, st.size, reason),
        )
        report.problems.append((st.name, read_stored(reason)))
        return
    if existed:
        report.updated += 1
    else:
        report.added += 1


def fill_fresh(
    path: Path,
    files: list[FileStat],
    load: LoadFn,
    report: IndexSyncReport,
    progress: Progress | None,
    stamp_db: Callable[[sqlite3.Connection], None],
    window: Window,
) -> None:
    """Index every file into a new database file at ``path``, durably; removed on failure."""
    bar = progress if progress is not None and len(files) >= BAR_THRESHOLD else NoProgress()
    bar.stage(M_("rebuilding the index"), len(files))
    con = open_db(path)
    try:
        # A file nobody reads until it is swapped in: no journal, no syncs, one fsync at the end.
        con.execute("PRAGMA journal_mode = OFF")
        con.execute("PRAGMA synchronous = OFF")
        con.execute("PRAGMA cache_size = -65536")  # the load's pages stay in memory until commit
        con.executescript(SCHEMA)
        with transaction(con):
            fresh_load.load_all(con, files, load, report, bar)
            journal.record(con, window.stamp())
        stamp_db(con)
        con.close()
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        con.close()
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    finally:
        bar.close()
