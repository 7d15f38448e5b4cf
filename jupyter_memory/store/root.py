"""One storage root (user home or project folder): files + derived index.

Every write here runs under the root's lock in the order docs/design.md fixes:
durable file write → index update → read-back check.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

from .._i18n import M_
from ..core.frontmatter_io import render_memory
from ..core.memories.models import MemoryEntry, content_hash, file_name
from ..core.names import slugify
from ..core.progress import Progress, ProgressFactory
from ..exceptions import LockTimeoutError, NotFoundError, StoreError
from .atomic import (
    LOCK_TIMEOUT_S,
    ensure_dir,
    remove_stale_temp_files,
    root_lock,
    sha256_bytes,
    write_many_atomic,
    write_text_atomic,
)
from .deadline import stale_index_ok, waiting
from .layout import RootLayout, kept_out_of_git
from .links import chain_linked, link_chain
from .memories import watch_daemon
from .memories.files import FileStat, MemoryFiles
from .memories.search_index import (
    IndexedMemory,
    IndexFactory,
    IndexSyncReport,
    SearchIndex,
    SearchQuery,
)
from .memories.sqlite_index import SqliteIndex
from .private import LooseMode, loose_modes
from .read_only import on_read_only_fs
from .storage import Storage, exclusive_create_lock


def default_engine(layout: RootLayout) -> SearchIndex:
    """The engine every root uses unless told otherwise: SQLite FTS5 beside the files."""
    return SqliteIndex(layout)


class StoreRoot:
    def __init__(
        self,
        root: Path,
        *,
        layer: str,
        gitignore: str | None = None,
        engine: IndexFactory = default_engine,
        storage: Storage | None = None,
    ) -> None:
        # On a network folder the index lives in a local cache (store/storage.py).
        self.storage = storage or Storage("local", "default")
        self.layout = RootLayout(root, self.storage.index_dir)
        self.layer = layer
        self.files = MemoryFiles(self.layout)
        self._engine = engine
        self.index: SearchIndex = engine(self.layout)
        self._gitignore = gitignore
        self._synced_dir_mtime: int | None = None
        # Checked on every read: the paths as strings, computed once.
        self._index_chain = link_chain(self.layout.index_root, self.layout.index_dir)
        self._memories_dir = os.fspath(self.layout.memories)
        self.last_report: IndexSyncReport | None = None
        # Set once a read found the root on a read-only mount (store/read_only.py).
        self.read_only = False
        # Who shows long indexing (adapters set it: a terminal bar, a notebook widget).
        self.progress: ProgressFactory | None = None

    @property
    def root(self) -> Path:
        return self.layout.root

    def open_index(self) -> SearchIndex:
        """A second engine on the same index, with a connection of its own (worker threads)."""
        return self._engine(self.layout)

    @contextlib.contextmanager
    def locked(self, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
        ensure_dir(self.root)
        if self._gitignore is not None and not (self.root / ".gitignore").exists():
            write_text_atomic(self.root / ".gitignore", self._gitignore, root=self.root)
        # What a busy answer names (REST's 503): the person's home or a project.
        name = "home lock" if self.layer == "user" else "project lock"
        if self.storage.lock == "exclusive-create":
            with exclusive_create_lock(self.root, timeout, name=name):
                yield
        else:
            with root_lock(self.root, timeout, name=name):
                yield

    def watcher_pid(self) -> int | None:
        """The pid of this root's watcher process while one runs (doctor names it)."""
        return watch_daemon.running_pid(self.layout)

    def loose_modes(self) -> list[LooseMode]:
        """Files and folders of this root that group or others can open (doctor).

        The whole memory home; in a project only what git never carries (the index,
        locks, temp files): the rest is the team's and keeps git's mode. A network
        project's index in the local cache is checked whole.
        """
        if self.layer == "user":
            found = loose_modes(self.root)
        else:
            found = loose_modes(self.root, kept_out_of_git)
        if self.storage.index_dir is not None:
            found += loose_modes(self.storage.index_dir)
        return found

    # -- keeping the index in step with the files ---------------------------------

    def _dir_mtime(self) -> int | None:
        try:
            # lstat: replacing the folder by a link is a change, and the
            # target's mtime says nothing about the store.
            return os.lstat(self._memories_dir).st_mtime_ns
        except OSError:
            return None

    def _progress(self) -> Progress | None:
        return self.progress() if self.progress is not None else None

    def behind_link(self) -> bool:
        """The store folder or its index is a link: reads find nothing here (doctor says why)."""
        return chain_linked(self._index_chain)

    def ensure_synced(self, *, force: bool = False) -> IndexSyncReport | None:
        """Bring the index up to date when the folder changed since the last look."""
        if self.behind_link():
            return None
        return self._sync_unlinked(force=force)

    def _sync_unlinked(self, *, force: bool = False) -> IndexSyncReport | None:
        # ensure_synced once behind_link() said no (reads check it first anyway).
        mtime = self._dir_mtime()
        if not force and self._synced_dir_mtime is not None and mtime == self._synced_dir_mtime:
            return None
        if mtime is None and not self.layout.index_dir.exists():
            self._synced_dir_mtime = None
            return None
        if on_read_only_fs(self.root):
            # No lock file can be made and no index written: answer from the last index.
            self.read_only = True
            self._synced_dir_mtime = mtime
            return None
        # A read request does not wait for a writer holding the root: the index
        # answers as the last writer left it (SQLite commits whole transactions)
        # and the sync is done on a later look. Without an index there is nothing
        # to answer from: then it waits like any other.
        stale_ok = stale_index_ok() and self.layout.index_dir.exists()
        try:
            # A long sync (thousands of files a pull brought) is what a request
            # queued behind this one is told it waits on.
            with (
                self.locked(timeout=0.0 if stale_ok else LOCK_TIMEOUT_S),
                waiting(f"index sync {self.layout.index_dir}"),
            ):
                stale: list[Path] = []
                report = self.index.sync(self.files.scan(stale), self.files.read, self._progress())
                for tmp in stale:
                    with contextlib.suppress(OSError):
                        tmp.unlink()
        except LockTimeoutError:
            if not stale_ok:
                raise
            return None
        self._synced_dir_mtime = self._dir_mtime()
        self.last_report = report
        return report

    def rebuild(self) -> IndexSyncReport:
        with self.locked():
            remove_stale_temp_files(self.layout.memories, root=self.root)
            with self.files.reader() as read:  # the folder opened once for every file
                report = self.index.rebuild(self.files.scan(), read, self._progress())
        # Nothing behind a link was indexed; say which links were passed over.
        report.notices += [f"symlink not followed: {link}" for link in self.files.symlinks()]
        self._synced_dir_mtime = self._dir_mtime()
        self.last_report = report
        return report

    # -- writes ---------------------------------------------------------------------

    def _free_name(self, entry: MemoryEntry, taken: set[str] | None = None) -> str:
        base = file_name(entry.meta, slugify(entry.meta.title))[: -len(".md")]
        name = f"{base}.md"
        n = 2
        while self.files.exists(name) or (taken is not None and name in taken):
            name = f"{base}-{n}.md"
            n += 1
        return name

    def write_new(self, entry: MemoryEntry) -> tuple[str, str]:
        """Store a new memory; returns (file name, sha256 of the file)."""
        entry.meta.content_sha256 = content_hash(entry.text)
        with self.locked():
            self.ensure_index_current()
            if self.index.name_of(entry.meta.id) is not None:
                raise StoreError(M_("id {id} already exists", id=entry.meta.id), path=self.root)
            name = self._free_name(entry)
            digest, stat = self.files.write(name, entry)
            try:
                self.index.upsert(entry, stat)
                self._verify(name, entry)
            except BaseException:
                self.unwrite(name)
                raise
        self._synced_dir_mtime = self._dir_mtime()
        entry.path = name
        return name, digest

    def unwrite(self, name: str) -> None:
        """Take back a new memory whose write did not complete (index or audit failed).

        A write is whole or absent: a file left without its index row and audit
        line would be found by the next sync and stored anyway, and a retry
        would store it twice. The row goes with it when the index can still be
        written (a full disk has the file's room back by then).
        """
        with contextlib.suppress(OSError, StoreError):
            self.files.delete(name)
        with contextlib.suppress(StoreError):
            self.index.remove(name)

    def write_existing(self, name: str, entry: MemoryEntry) -> str:
        entry.meta.content_sha256 = content_hash(entry.text)
        with self.locked():
            digest, stat = self.files.write(name, entry)
            self.index.upsert(entry, stat)
            self._verify(name, entry)
        self._synced_dir_mtime = self._dir_mtime()
        return digest

    def write_batch(self, entries: Sequence[MemoryEntry]) -> list[tuple[str, str]]:
        """Bulk import: one lock, one file-system flush, one index transaction."""
        with self.locked():
            self.ensure_index_current()
            taken: set[str] = set()
            items: list[tuple[Path, bytes]] = []
            names: list[str] = []
            for entry in entries:
                entry.meta.content_sha256 = content_hash(entry.text)
                name = self._free_name(entry, taken)
                taken.add(name)
                names.append(name)
                entry.path = name
                items.append((self.files.path_of(name), render_memory(entry).encode("utf-8")))
            digests = write_many_atomic(items, root=self.root)
            stats = []
            for name in names:
                st = self.files.path_of(name).stat()
                stats.append(FileStat(name, st.st_mtime_ns, st.st_size))
            self.index.upsert_many(zip(entries, stats, strict=True))
        self._synced_dir_mtime = self._dir_mtime()
        return list(zip(names, digests, strict=True))

    def ensure_index_current(self) -> None:
        """Inside the lock: pick up changes made by hand or by another process."""
        mtime = self._dir_mtime()
        if mtime != self._synced_dir_mtime:
            self.last_report = self.index.sync(self.files.scan(), self.files.read, self._progress())
            self._synced_dir_mtime = mtime

    def delete(self, memory_id: str) -> tuple[str, str]:
        """Remove a memory's file, index row and access stats; returns (name, file sha256)."""
        with self.locked():
            self.ensure_index_current()
            name = self.index.name_of(memory_id)
            if name is None:
                raise NotFoundError(
                    M_(
                        "no memory with id {memory_id!r} in {layer} layer",
                        memory_id=memory_id,
                        layer=self.layer,
                    )
                )
            data = self.files.path_of(name).read_bytes()
            digest = sha256_bytes(data)
            self.files.delete(name)
            self.index.remove(name)
            self.index.forget_access(memory_id)
            self.index.scrub()
            if self.files.exists(name):
                raise StoreError(
                    M_("file still present after delete"), path=self.files.path_of(name)
                )
        self._synced_dir_mtime = self._dir_mtime()
        return name, digest

    def _verify(self, name: str, entry: MemoryEntry) -> None:
        back = self.files.read(name)
        if back.meta.content_sha256 != entry.meta.content_sha256 or back.text != entry.text:
            raise StoreError(
                M_("read-back does not match what was written"), path=self.files.path_of(name)
            )

    # -- reads ----------------------------------------------------------------------

    def search(self, query: SearchQuery) -> list[IndexedMemory]:
        if self.behind_link():
            return []
        self._sync_unlinked()
        return self.index.search(query)

    def name_of(self, memory_id: str) -> str | None:
        if self.behind_link():
            return None
        self.ensure_synced()
        return self.index.name_of(memory_id)

    def read(self, name: str) -> MemoryEntry:
        entry = self.files.read(name)
        entry.layer = self.layer
        return entry

    def rows(self) -> list[IndexedMemory]:
        if self.behind_link():
            return []
        self.ensure_synced()
        return self.index.rows()

    def listing(
        self, *, now: datetime, limit: int, include_cold: bool
    ) -> tuple[list[IndexedMemory], int]:
        """One page of the listing order, computed by the index (see ``listing_sql``)."""
        if self.behind_link():
            return [], 0
        self.ensure_synced()
        return self.index.listing(now=now, limit=limit, include_cold=include_cold)

    def generation(self) -> int | None:
        """A key that changes whenever a memory file is added, replaced or removed.

        It is the memories folder's mtime, so writes by other processes move it too.
        """
        return self._dir_mtime()

    def record_access(self, ids: Sequence[str], at: datetime) -> None:
        self.index.record_access(ids, at)

    def watch(self) -> bool:
        """From this (long-running) process, vouch to other processes' opens that no
        memory file was edited in place (docs/storage.md); False where it cannot."""
        if self.behind_link():
            return False
        return self.index.watch(self.files.read)

    def close(self) -> None:
        self.index.stop_watching()
        self.index.close()
