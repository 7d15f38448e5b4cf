"""SQLite FTS5 implementation of :class:`~.search_index.SearchIndex`.

* Lives in ``<root>/.index/``; ``CURRENT`` names the live database file, so a
  rebuild writes a fresh file and swaps it in with one atomic rename while
  other processes still holding the old one notice and reopen.
* Text is analysed in Python (:func:`jupyter_memory.core.text.index_tokens`:
  stemmed words without stopwords, CJK bigrams) and stored space-separated, so
  FTS5's ``unicode61`` only splits on spaces and index and query agree.
* Access statistics live in a separate ``access.sqlite`` so recall never
  rewrites Markdown files and a rebuild keeps them.
* The recall SQL (filters, attention, bounded ranking) is in
  :mod:`.sqlite_queries`.
* Embeddings (the optional semantic extra) live in ``embeddings.sqlite`` beside
  the index, keyed by memory id and ``ekey`` (a hash of the embedded text), so
  a rebuild keeps them and a forget removes them with the entry.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path

from ..._i18n import M_
from ..._i18n.stored import read_stored
from ...core.memories.models import MemoryEntry
from ...core.progress import Progress
from ...core.text import analyzer_identity
from ...exceptions import StoreError
from ..atomic import ensure_dir, fsync_dir, root_lock, write_text_atomic
from ..layout import RootLayout
from ..read_only import on_read_only_fs
from . import folder_journal as journal
from . import folder_watch, open_check, postings_cache, watch_daemon
from . import index_scan as scan
from . import sqlite_queries as queries
from . import sqlite_rows as rows
from .files import FileStat, MemoryFiles
from .listing_sql import heat_page
from .postings_cache import PostingsCache, engaged
from .search_index import IndexedMemory, IndexSyncReport, LoadFn, SearchQuery, VectorStore
from .sqlite_db import (
    ACCESS_SCHEMA,
    EMBED_SCHEMA,
    SCHEMA,
    attached,
    connect,
    open_db,
    read_pointer,
    transaction,
    ts,
)
from .sqlite_errors import (
    immutable_uri,
    index_error,
    is_disk_error,
    open_immutable,
    store_errors,
)
from .sqlite_scrub import scrub as scrub_deleted

# 5: the meta table (analyser identity); 6: postings, terms, totals; 7: postings.w;
# 8: entries.supersedes and entries.evidence (issue 33)
SCHEMA_VERSION = 8
ACCESS_FLUSH_S = 2.0
MMAP_BYTES = 512 << 20  # the index file mapped for reading (~115 MB at 100k notes)


def _stamp(con: sqlite3.Connection) -> None:
    """Mark a fresh database with the schema and the analyser its tokens come from."""
    con.execute("INSERT OR REPLACE INTO meta VALUES ('analyzer', ?)", (analyzer_identity(),))
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _analyzer_of(con: sqlite3.Connection) -> str | None:
    row = con.execute("SELECT value FROM meta WHERE key = 'analyzer'").fetchone()
    return None if row is None else str(row[0])


# A rebuild's database until it is whole (see rebuild).
BUILDING_GLOB = ".index-*.sqlite.building"


class SqliteIndex:
    """Derived FTS5 index of one root. Writers call it under the root lock."""

    def __init__(self, layout: RootLayout) -> None:
        self.layout = layout
        self._con: sqlite3.Connection | None = None
        self._current: str | None = None
        self._current_stat: tuple[int, int] | None = None
        self.notices: list[str] = []
        self._pending_access: dict[str, tuple[int, float]] = {}
        self._last_flush = time.monotonic()
        # The first look of a process checks every file's stat (an in-place edit moves
        # no folder stamp), on a thread when the stamp vouches (open_check.py).
        self._scanned = False
        self._check = open_check.OpenCheck()
        self._pointer_path: str | None = None
        self.read_only = False  # opened immutable: the index is on a read-only mount
        self._watcher: folder_watch.FolderWatcher | None = None
        self._gave_watcher = False  # this process started the home's watcher process
        # Postings of recently asked terms (memory only, checked against the database
        # before every use: postings_cache.py); None: off, the default.
        self.postings_cache: PostingsCache | None = (
            PostingsCache() if postings_cache.wanted() else None
        )
        self._searches = 0
        # The supersede links and the database state they were read in (see
        # supersede_links); the connection held, so its id is not another's.
        self._links: tuple[sqlite3.Connection, int, int, Mapping[str, list[str]]] | None = None
        # The connection may serve several threads (a server's): one at a time in the cache.
        self._cache_lock = threading.Lock()

    # -- connection management -------------------------------------------------

    @property
    def _pointer(self) -> Path:
        return self.layout.index_dir / "CURRENT"

    def _read_pointer(self) -> str | None:
        return read_pointer(self.layout)

    def _pointer_stat(self) -> tuple[int, int] | None:
        # Every read asks (another process may have swapped the index): a
        # string path, not a Path built per call.
        if self._pointer_path is None:
            self._pointer_path = os.fspath(self._pointer)
        try:
            st = os.stat(self._pointer_path)
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns)

    @property
    def embeddings_db(self) -> Path:
        return self.layout.index_dir / "embeddings.sqlite"

    def _attach_access(self, con: sqlite3.Connection) -> None:
        acc = connect(self.layout.access_db, self.layout.index_root)
        acc.executescript(ACCESS_SCHEMA)
        acc.close()
        con.execute("ATTACH DATABASE ? AS acc", (str(self.layout.access_db),))
        # Access counts are soft data: never pay an fsync for them.
        con.execute("PRAGMA acc.synchronous = NORMAL")
        self.attach_embeddings(con, create=False)

    def attach_embeddings(self, con: sqlite3.Connection, *, create: bool) -> bool:
        """Attach ``embeddings.sqlite`` as ``emb`` (created only by the embedder).

        ATTACH is refused inside a transaction, so writers call this first.
        """
        if attached(con, "emb"):
            return True
        if con.in_transaction or (not create and not self.embeddings_db.exists()):
            return False
        emb = connect(self.embeddings_db, self.layout.index_root)
        emb.executescript(EMBED_SCHEMA)
        emb.close()
        con.execute("ATTACH DATABASE ? AS emb", (str(self.embeddings_db),))
        con.execute("PRAGMA emb.synchronous = NORMAL")
        return True

    @store_errors
    def connection(self) -> sqlite3.Connection:
        """The live connection; the first use waits for the open's check of the files."""
        con = self._connection()
        if self._check.pending is not None and self._check.settle(
            con, self._current, self.layout.root, self._look_again
        ):
            self._scanned = True
        return con

    def _connection(self) -> sqlite3.Connection:
        """The live connection, reopened if another process swapped the index.

        A disk error (full, read-only, I/O) is a :class:`StoreError` naming the
        file and the cause; only a file SQLite says is damaged is rebuilt.
        """
        if self._con is not None and self._pointer_stat() == self._current_stat:
            return self._con
        self.close()
        if on_read_only_fs(self.layout.index_root):
            return self._read_only_connection()
        try:
            return self._writable_connection()
        except sqlite3.Error as exc:
            raise index_error(exc, self.layout.index_dir) from exc

    def _read_only_connection(self) -> sqlite3.Connection:
        """The last index, opened ``immutable`` (no -shm, -wal or lock is made)."""
        name = self._read_pointer()
        path = self.layout.index_dir / name if name else None
        if path is None or not path.is_file():
            raise StoreError(
                M_("read-only home: there is no index to show and none can be built"),
                path=self.layout.index_dir,
            )
        try:
            con = open_immutable(path)
            if con.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                raise StoreError(
                    M_("read-only home: the index is of another version and cannot be rebuilt"),
                    path=path,
                )
            if self.layout.access_db.is_file():
                con.execute("ATTACH DATABASE ? AS acc", (immutable_uri(self.layout.access_db),))
            else:
                con.execute("ATTACH DATABASE ':memory:' AS acc")
                con.executescript(ACCESS_SCHEMA.replace("TABLE IF NOT EXISTS ", "TABLE acc."))
            if self.embeddings_db.is_file():
                con.execute("ATTACH DATABASE ? AS emb", (immutable_uri(self.embeddings_db),))
        except sqlite3.Error as exc:
            raise index_error(exc, path) from exc
        self.read_only = True
        self._con = con
        self._current = name
        self._current_stat = self._pointer_stat()
        return con

    def _writable_connection(self) -> sqlite3.Connection:
        ensure_dir(self.layout.index_dir, root=self.layout.index_root)
        name = self._read_pointer()
        if name is None or not (self.layout.index_dir / name).exists():
            if name is not None:
                self.notices.append(f"index file {name} is missing; rebuilding from files")
            name = self._replace_db(name)
        try:
            con = connect(self.layout.index_dir / name, self.layout.index_root)
            version = con.execute("PRAGMA user_version").fetchone()[0]
            built_by = _analyzer_of(con) if version == SCHEMA_VERSION else None
            if version != SCHEMA_VERSION:
                con.close()
                self.notices.append("index schema is old or unknown; rebuilding from files")
                name = self._replace_db(name)
                con = connect(self.layout.index_dir / name, self.layout.index_root)
            elif built_by != analyzer_identity():
                con.close()
                self.notices.append(
                    f"the text analyser changed ({built_by} → {analyzer_identity()});"
                    " rebuilding from files"
                )
                name = self._replace_db(name)
                con = connect(self.layout.index_dir / name, self.layout.index_root)
            con.execute("SELECT count(*) FROM entries").fetchone()
        except sqlite3.DatabaseError as exc:
            if is_disk_error(exc):
                raise  # full, read-only, locked or failing disk: not a damaged file
            self.notices.append(f"index {name} is corrupt ({exc}); rebuilding from files")
            name = self._replace_db(name)
            con = connect(self.layout.index_dir / name, self.layout.index_root)
        # Recall reads its pages from the OS page cache in place, no read() and copy per
        # page (the file only grows: no VACUUM, a rebuild writes a new file).
        con.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        self._attach_access(con)
        self._con = con
        self._current = name
        self._current_stat = self._pointer_stat()
        return con

    def _index_lock(self) -> AbstractContextManager[None]:
        """The lock of CURRENT and the database files beside it.

        Readers make an empty index when there is none (or it is unusable)
        without the root lock; two processes doing so at once must not delete
        the file the other is still creating (SQLite answers "disk I/O error").
        The folder is always local (a network project's index is in a local
        cache), so an ``flock`` holds.
        """
        return root_lock(self.layout.index_dir, within=self.layout.index_root, name="index lock")

    def _replace_db(self, unusable: str | None) -> str:
        """An empty index in place of ``unusable`` (missing, old, damaged), unless
        another process replaced it while this one waited for the lock."""
        with self._index_lock():
            name = self._read_pointer()
            if name is not None and name != unusable and (self.layout.index_dir / name).exists():
                return name
            return self._new_db(empty=True)

    def _new_db(self, *, empty: bool) -> str:
        """Create a fresh database file, point CURRENT at it, remove the old ones."""
        name = f"index-{time.time_ns()}-{os.getpid()}.sqlite"
        path = self.layout.index_dir / name
        con = open_db(path)
        con.executescript(SCHEMA)
        _stamp(con)
        con.close()
        self._swap_in(name)
        return name

    def _swap_in(self, name: str, *, built: Path | None = None) -> None:
        """Point CURRENT at ``name`` (renaming the finished rebuild ``built`` to it
        first) and remove every other database file, under the index lock."""
        with self._index_lock():
            if built is not None:
                os.replace(built, self.layout.index_dir / name)
                # Rebuilds run under the root lock, one at a time: any other
                # half-built file is a killed rebuild's.
                for stale in self.layout.index_dir.glob(BUILDING_GLOB):
                    with contextlib.suppress(OSError):
                        stale.unlink()
            write_text_atomic(self._pointer, name + "\n", root=self.layout.index_root)
            for old in self.layout.index_dir.glob("index-*.sqlite*"):
                if not old.name.startswith(name):
                    with contextlib.suppress(OSError):
                        old.unlink()
            fsync_dir(self.layout.index_dir)

    def watch(self, load: LoadFn) -> bool:
        """Watch the folder from this process for others' opens (:mod:`.folder_watch`)."""
        if self._watcher is not None and self._watcher.running:
            return True
        if self.read_only:
            return False

        def in_use() -> Path | None:
            name = self._read_pointer()
            return None if name is None else self.layout.index_dir / name

        self.stop_watching()  # one that stopped on its own (a lost event) is replaced
        watcher = folder_watch.FolderWatcher(self.layout, in_use, load)
        if not watcher.start():
            watcher.close()
            return False
        self._watcher = watcher
        return True

    def stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.close()
            self._watcher = None

    def close(self) -> None:
        if self._con is not None:
            with contextlib.suppress(sqlite3.Error):
                self.flush_access()
            with contextlib.suppress(sqlite3.Error):
                self._con.close()
        self._con = None
        self._current_stat = None
        self._links = None
        if self.postings_cache is not None:
            with self._cache_lock:
                self.postings_cache.clear()

    # -- writes (caller holds the root lock) -------------------------------------

    @store_errors
    def upsert(self, entry: MemoryEntry, stat: FileStat) -> None:
        con = self.connection()
        self.attach_embeddings(con, create=False)
        with transaction(con):
            rows.upsert(con, entry, stat)
            journal.after_own_write(con, self.layout, stat.name)

    @store_errors
    def upsert_many(self, items: Iterable[tuple[MemoryEntry, FileStat]]) -> None:
        con = self.connection()
        with transaction(con):
            for entry, stat in items:
                rows.upsert(con, entry, stat)
            journal.record(con, None)  # a batch is not watched: the next re-check scans

    @store_errors
    def remove(self, name: str) -> None:
        con = self.connection()
        self.attach_embeddings(con, create=False)
        with transaction(con):
            rows.remove(con, name)
            journal.after_own_write(con, self.layout, name)

    @store_errors
    def forget_access(self, memory_id: str) -> None:
        self._pending_access.pop(memory_id, None)
        con = self.connection()
        con.execute("DELETE FROM acc.access WHERE id = ?", (memory_id,))

    @store_errors
    def scrub(self) -> None:
        """After a forget: no segment, free page or -wal file keeps the removed text."""
        con = self.connection()
        self.attach_embeddings(con, create=False)
        scrub_deleted(con)

    @store_errors
    def sync(
        self, stats: Iterable[FileStat], load: LoadFn, progress: Progress | None = None
    ) -> IndexSyncReport:
        """Re-parse only files whose (name, mtime_ns, size) changed since indexing.

        The first call of a process looks at every file — on a thread when the
        folder is at the stamp the index vouches for (:mod:`.open_check`; the
        first use of the index waits); later ones skip the look then (only our
        own writes happened since). ``stats`` is consumed only by a look here.
        ``progress`` is shown when many files need parsing (a pulled folder).
        """
        con = self.connection()
        report = IndexSyncReport(notices=self._take_notices())
        if journal.vouches(con, self.layout):
            if not self._scanned:
                answer = folder_watch.ask(self.layout)
                if answer is folder_watch.Answer.CLEAN:
                    self._scanned = True  # a running watcher saw no in-place edit
                    return report
                assert self._current is not None  # set by connection()
                db = self.layout.index_dir / self._current
                alone = answer is folder_watch.Answer.NO_WATCHER
                # Told the count on the check's thread: this open does not wait for it.
                on_count = self._give_watcher if alone else None
                self._check.start(db, MemoryFiles(self.layout), load, on_count)
            return report
        first = not self._scanned
        self._look(con, stats, load, progress, report)
        if first and not self._gave_watcher and watch_daemon.min_files() is not None:
            self._give_watcher(int(con.execute("SELECT count(*) FROM entries").fetchone()[0]))
        return report

    def _give_watcher(self, files: int) -> None:
        """A home this large gets a watcher process, so later opens stat nothing
        (:mod:`.watch_daemon`); one try per process."""
        if not self._gave_watcher and not self.read_only and watch_daemon.wanted(files):
            self._gave_watcher = True
            watch_daemon.spawn(self.layout)

    def _look(
        self,
        con: sqlite3.Connection,
        stats: Iterable[FileStat],
        load: LoadFn,
        progress: Progress | None,
        report: IndexSyncReport,
    ) -> None:
        folder = self.layout.memories
        trusted = journal.trusted(self.layout)
        self.attach_embeddings(con, create=False)  # ATTACH: outside the transaction
        with journal.watching(folder) if trusted else contextlib.nullcontext() as watch:
            before = journal.stamp_of(folder)
            scan.apply(con, stats, load, progress, report, scan.Window(watch, before))
        self._scanned = True

    def _look_again(self, con: sqlite3.Connection, check: open_check.Verification) -> None:
        # The check found an in-place edit (or a killed writer's temp file): the full
        # look, under the root lock, on its listing if the folder's stamp is unmoved.
        reuse = check.before is not None and check.before == journal.stamp_of(self.layout.memories)
        stale: list[Path] = check.stale if reuse else []
        files = check.listed if reuse else MemoryFiles(self.layout).scan(stale)
        report = IndexSyncReport()
        self._look(con, files, check.load, None, report)
        for tmp in stale:
            with contextlib.suppress(OSError):
                tmp.unlink()
        self.notices += report.notices

    @store_errors
    def rebuild(
        self, stats: Iterable[FileStat], load: LoadFn, progress: Progress | None = None
    ) -> IndexSyncReport:
        """Index every file into a fresh database and swap it in."""
        self._check.cancel()  # every file is read anyway
        ensure_dir(self.layout.index_dir, root=self.layout.index_root)
        report = IndexSyncReport(notices=self._take_notices())
        name = f"index-{time.time_ns()}-{os.getpid()}.sqlite"
        folder = self.layout.memories
        trusted = journal.trusted(self.layout)
        with journal.watching(folder) if trusted else contextlib.nullcontext() as watch:
            window = scan.Window(watch, journal.stamp_of(folder))  # the stamp before listing
            files = list(stats)
            # Built under a name no other process's swap removes (one making an
            # empty index when it found none), renamed when whole.
            building = self.layout.index_dir / f".{name}.building"
            scan.fill_fresh(building, files, load, report, progress, _stamp, window)
        self.close()
        self._swap_in(name, built=building)
        self._scanned = True
        return report

    def _take_notices(self) -> list[str]:
        out, self.notices = self.notices, []
        return out

    # -- reads -------------------------------------------------------------------

    @store_errors
    def name_of(self, memory_id: str) -> str | None:
        row = (
            self.connection()
            .execute("SELECT name FROM entries WHERE id = ?", (memory_id,))
            .fetchone()
        )
        return None if row is None else str(row[0])

    @store_errors
    def body_of(self, name: str) -> str | None:
        row = (
            self.connection().execute("SELECT body FROM entries WHERE name = ?", (name,)).fetchone()
        )
        return None if row is None else str(row[0])

    @store_errors
    def snippet_of(self, name: str) -> tuple[str, list[tuple[str, str | None]]] | None:
        """The body and the evidence quotes (quote, source) of a file's memory."""
        row = (
            self.connection()
            .execute("SELECT body, evidence FROM entries WHERE name = ?", (name,))
            .fetchone()
        )
        if row is None:
            return None
        quotes = json.loads(row[1]) if row[1] else []
        return str(row[0]), [(str(q), None if s is None else str(s)) for q, s in quotes]

    @store_errors
    def supersede_links(self) -> Mapping[str, list[str]]:
        """Each entry that supersedes others: its id → the ids it names (a partial
        index holds only those entries, so this reads as many rows as there are links).

        Every recall asks: the answer is read again only when the database changed
        since (``PRAGMA data_version`` moves with another connection's commit,
        ``total_changes`` with this one's), and the same mapping is handed out
        until then, to be read, not changed. A recall asks right after its search:
        the connection that search checked answers (the links of the index its hits
        came from) without asking the pointer file again."""
        con = self._con if self._con is not None and self._check.pending is None else None
        con = con or self.connection()
        version = int(con.execute("PRAGMA main.data_version").fetchone()[0])
        held = self._links
        if held is not None and held[0] is con and held[1:3] == (version, con.total_changes):
            return held[3]
        rows = con.execute("SELECT id, supersedes FROM entries WHERE supersedes != ''")
        links = {str(i): str(s).split() for i, s in rows}
        self._links = (con, version, con.total_changes, links)
        return links

    @store_errors
    def problems(self) -> list[tuple[str, str]]:
        return [
            (str(n), read_stored(str(r)))
            for n, r in self.connection().execute("SELECT name, reason FROM problems ORDER BY name")
        ]

    @store_errors
    def count(self) -> int:
        return int(self.connection().execute("SELECT count(*) FROM entries").fetchone()[0])

    def embeddings(self) -> VectorStore:
        """The vectors stored beside this index, read through this index's connection."""
        # numpy is only needed with the semantic extra: import on first use.
        from .embeddings import EmbeddingStore

        return EmbeddingStore(self)

    @store_errors
    def record_access(self, ids: Sequence[str], at: datetime) -> None:
        """Count a recall of ``ids``; buffered so recall itself stays read-only.

        Pending counts are written every ACCESS_FLUSH_S seconds, before any
        listing, and on close; a crash loses at most that window of counts.
        """
        stamp, pending = ts(at), self._pending_access
        for memory_id in ids:
            count, _ = pending.get(memory_id, (0, 0.0))
            pending[memory_id] = (count + 1, stamp)
        if time.monotonic() - self._last_flush > ACCESS_FLUSH_S:
            self.flush_access()

    @store_errors
    def flush_access(self) -> None:
        self._last_flush = time.monotonic()
        if self.read_only:
            self._pending_access.clear()  # nothing is written on a read-only home
        if not self._pending_access or self._con is None:
            return
        pending, self._pending_access = self._pending_access, {}
        con = self._con
        cache = self.postings_cache
        with self._cache_lock:
            was_valid = cache is not None and cache.valid(con)
        before = con.total_changes
        with transaction(con):
            con.executemany(
                "INSERT INTO acc.access (id, last_accessed, access_count) VALUES (?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET last_accessed = MAX(last_accessed,"
                " excluded.last_accessed), access_count = access_count + excluded.access_count",
                [(i, at, n) for i, (n, at) in pending.items()],
            )
        if cache is not None:
            with self._cache_lock:
                cache.after_access_write(con, was_valid, before, len(pending))

    @store_errors
    def rows(self) -> list[IndexedMemory]:
        con = self.connection()
        self.flush_access()
        return queries.all_rows(con)

    @store_errors
    def listing(
        self, *, now: datetime, limit: int, include_cold: bool
    ) -> tuple[list[IndexedMemory], int]:
        con = self.connection()
        self.flush_access()
        return heat_page(con, now=now, limit=limit, include_cold=include_cold)

    @store_errors
    def search(self, query: SearchQuery) -> list[IndexedMemory]:
        con = self.connection()
        cache = self.postings_cache if engaged(self._searches) else None
        self._searches += 1
        if cache is None:
            return queries.search(con, query)
        with self._cache_lock:
            return queries.search(con, query, cache)

    @store_errors
    def filtered_ids(self, query: SearchQuery) -> list[str]:
        """Ids of every entry that passes ``query``'s filters (text ignored)."""
        return queries.filtered_ids(self.connection(), query)

    @store_errors
    def rows_by_id(self, query: SearchQuery, scores: dict[str, float]) -> list[IndexedMemory]:
        """Rows for ``scores``' ids that pass ``query``'s filters, with attention."""
        return queries.rows_by_id(self.connection(), query, scores)
