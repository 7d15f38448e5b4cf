"""SQLite FTS5 implementation of :class:`~.search_index.SearchIndex`.

* Lives in ``<root>/.index/``; ``CURRENT`` names the live database file, so a
  rebuild writes a fresh file and swaps it in with one atomic rename while
  other processes still holding the old one notice and reopen.
* Text is analysed in Python (:func:`jupyter_memory.core.text.index_tokens`:
  stemmed words without stopwords, CJK bigrams) and stored space-separated, so
  FTS5's ``unicode61`` only splits on spaces and index and query agree.
* Access statistics live in a separate ``access.sqlite`` so recall never
  rewrites Markdown files and a rebuild keeps them.
* Ranking work is bounded: at most ``CANDIDATE_CAP`` matches (newest first) are
  scored; an all-words query is tried first and widened to any-word only when
  it returns fewer than the limit. Both passes score with the same bm25 over
  the same terms, so the widened list is one bm25 order (docs/recall.md).
* Embeddings (the optional semantic extra) live in ``embeddings.sqlite`` beside
  the index, keyed by memory id and ``ekey`` (a hash of the embedded text), so
  a rebuild keeps them and a forget removes them with the entry.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ...core.memories.attention import (
    ACCESS_CAP,
    ACCESS_WEIGHT,
    DECAY,
    RELEVANCE_FLOOR,
    combine,
)
from ...core.memories.embedding import embed_key
from ...core.memories.models import MemoryEntry
from ...core.text import SearchGroup, analyze, index_tokens, relaxed_groups, search_groups
from ...exceptions import JupyterMemoryError
from ..atomic import ensure_dir, fsync_dir, write_text_atomic
from ..layout import RootLayout
from ..links import linked
from .files import FileStat
from .search_index import IndexedMemory, IndexSyncReport, LoadFn, SearchQuery, VectorStore
from .sqlite_db import (
    ACCESS_SCHEMA,
    EMBED_SCHEMA,
    SCHEMA,
    attached,
    connect,
    dt,
    transaction,
    ts,
)

SCHEMA_VERSION = 4
CANDIDATE_CAP = 1000
RERANK_POOL = 4
ACCESS_FLUSH_S = 2.0
# bm25 column weights: title, tags, body
BM25_WEIGHTS = (3.0, 2.0, 1.0)


def _fts_group(group: SearchGroup) -> str:
    phrase = '"' + " ".join(t.replace('"', '""') for t in group.tokens) + '"'
    return phrase + " *" if group.prefix else phrase


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

    # -- connection management -------------------------------------------------

    @property
    def _pointer(self) -> Path:
        return self.layout.index_dir / "CURRENT"

    def _read_pointer(self) -> str | None:
        if linked(self.layout.root, self._pointer):
            return None
        try:
            name = self._pointer.read_text("utf-8").strip()
        except FileNotFoundError:
            return None
        except OSError:
            return None
        if not name.startswith("index-") or "/" in name or not name.endswith(".sqlite"):
            return None
        return name

    def _pointer_stat(self) -> tuple[int, int] | None:
        try:
            st = self._pointer.stat()
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns)

    @property
    def embeddings_db(self) -> Path:
        return self.layout.index_dir / "embeddings.sqlite"

    def _attach_access(self, con: sqlite3.Connection) -> None:
        acc = connect(self.layout.access_db, self.layout.root)
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
        emb = connect(self.embeddings_db, self.layout.root)
        emb.executescript(EMBED_SCHEMA)
        emb.close()
        con.execute("ATTACH DATABASE ? AS emb", (str(self.embeddings_db),))
        con.execute("PRAGMA emb.synchronous = NORMAL")
        return True

    def connection(self) -> sqlite3.Connection:
        """The live connection, reopened if another process swapped the index."""
        if self._con is not None and self._pointer_stat() == self._current_stat:
            return self._con
        self.close()
        ensure_dir(self.layout.index_dir, root=self.layout.root)
        name = self._read_pointer()
        if name is None or not (self.layout.index_dir / name).exists():
            if name is not None:
                self.notices.append(f"index file {name} is missing; rebuilding from files")
            name = self._new_db(empty=True)
        try:
            con = connect(self.layout.index_dir / name, self.layout.root)
            version = con.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                con.close()
                self.notices.append("index schema is old or unknown; rebuilding from files")
                name = self._new_db(empty=True)
                con = connect(self.layout.index_dir / name, self.layout.root)
            con.execute("SELECT count(*) FROM entries").fetchone()
        except sqlite3.DatabaseError as exc:
            self.notices.append(f"index {name} is corrupt ({exc}); rebuilding from files")
            name = self._new_db(empty=True)
            con = connect(self.layout.index_dir / name, self.layout.root)
        self._attach_access(con)
        self._con = con
        self._current = name
        self._current_stat = self._pointer_stat()
        return con

    def _new_db(self, *, empty: bool) -> str:
        """Create a fresh database file, point CURRENT at it, remove the old ones."""
        name = f"index-{time.time_ns()}-{os.getpid()}.sqlite"
        path = self.layout.index_dir / name
        con = sqlite3.connect(str(path), isolation_level=None)
        con.executescript(SCHEMA)
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        con.close()
        self._swap_in(name)
        return name

    def _swap_in(self, name: str) -> None:
        write_text_atomic(self._pointer, name + "\n", root=self.layout.root)
        for old in self.layout.index_dir.glob("index-*.sqlite*"):
            if not old.name.startswith(name):
                with contextlib.suppress(OSError):
                    old.unlink()
        fsync_dir(self.layout.index_dir)

    def close(self) -> None:
        if self._con is not None:
            with contextlib.suppress(sqlite3.Error):
                self.flush_access()
            with contextlib.suppress(sqlite3.Error):
                self._con.close()
        self._con = None
        self._current_stat = None

    # -- writes (caller holds the root lock) -------------------------------------

    @staticmethod
    def _values(entry: MemoryEntry, stat: FileStat) -> tuple[Any, ...]:
        m = entry.meta
        return (
            m.id,
            stat.name,
            stat.mtime_ns,
            stat.size,
            m.title,
            m.type.value,
            m.tier.value,
            m.scope,
            m.project,
            json.dumps(m.tags, ensure_ascii=False),
            m.source.value,
            m.confidence,
            ts(m.created),
            ts(m.updated),
            int(m.reviewed),
            entry.text,
            embed_key(m.title, entry.text),
        )

    @staticmethod
    def _fts_values(entry: MemoryEntry) -> tuple[str, str, str]:
        return (
            " ".join(index_tokens(entry.meta.title)),
            " ".join(index_tokens(" ".join(entry.meta.tags))),
            " ".join(index_tokens(entry.text)),
        )

    def _upsert(
        self, con: sqlite3.Connection, entry: MemoryEntry, stat: FileStat, *, fresh: bool = False
    ) -> None:
        if not fresh:  # a fresh rebuild database has nothing to replace
            # An unchanged text keeps its embedding (same ekey); a changed one
            # is re-embedded because its ekey no longer matches.
            self._remove(con, stat.name, keep_embedding=True)
        try:
            cur = con.execute(
                "INSERT INTO entries (id, name, mtime_ns, size, title, type, tier, scope, project,"
                " tags, source, confidence, created, updated, reviewed, body, ekey)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                self._values(entry, stat),
            )
        except sqlite3.IntegrityError:
            old = con.execute("SELECT name FROM entries WHERE id = ?", (entry.meta.id,)).fetchone()
            raise JupyterMemoryError(
                f"id {entry.meta.id} is used by both {old[0] if old else '?'} and {stat.name}"
            ) from None
        con.execute(
            "INSERT INTO fts (rowid, title, tags, body) VALUES (?,?,?,?)",
            (cur.lastrowid, *self._fts_values(entry)),
        )
        if not fresh:
            con.execute("DELETE FROM problems WHERE name = ?", (stat.name,))

    def _remove(self, con: sqlite3.Connection, name: str, *, keep_embedding: bool = False) -> None:
        row = con.execute("SELECT rowid, id FROM entries WHERE name = ?", (name,)).fetchone()
        if row is not None:
            con.execute("DELETE FROM fts WHERE rowid = ?", (row[0],))
            con.execute("DELETE FROM entries WHERE rowid = ?", (row[0],))
            # An embedding is a derived trace of the text: it goes with the entry.
            if not keep_embedding and attached(con, "emb"):
                con.execute("DELETE FROM emb.vectors WHERE id = ?", (row[1],))
        con.execute("DELETE FROM problems WHERE name = ?", (name,))

    def upsert(self, entry: MemoryEntry, stat: FileStat) -> None:
        con = self.connection()
        self.attach_embeddings(con, create=False)
        with transaction(con):
            self._upsert(con, entry, stat)

    def upsert_many(self, items: Iterable[tuple[MemoryEntry, FileStat]]) -> None:
        con = self.connection()
        with transaction(con):
            for entry, stat in items:
                self._upsert(con, entry, stat)

    def remove(self, name: str) -> None:
        con = self.connection()
        self.attach_embeddings(con, create=False)
        with transaction(con):
            self._remove(con, name)

    def forget_access(self, memory_id: str) -> None:
        self._pending_access.pop(memory_id, None)
        con = self.connection()
        con.execute("DELETE FROM acc.access WHERE id = ?", (memory_id,))

    def sync(self, stats: Iterable[FileStat], load: LoadFn) -> IndexSyncReport:
        """Re-parse only files whose (name, mtime_ns, size) changed since indexing."""
        con = self.connection()
        report = IndexSyncReport(notices=self._take_notices())
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
        indexed = {r[0] for r in known} if changed else set()
        if not changed and not gone:
            return report
        self.attach_embeddings(con, create=False)
        with transaction(con):
            for name in gone:
                self._remove(con, name)
                report.removed += 1
            for st in changed:
                self._index_file(con, st, load, report, existed=st.name in indexed)
        return report

    def _index_file(
        self,
        con: sqlite3.Connection,
        st: FileStat,
        load: LoadFn,
        report: IndexSyncReport,
        *,
        existed: bool,
        fresh: bool = False,
    ) -> None:
        try:
            entry = load(st.name)
            self._upsert(con, entry, st, fresh=fresh)
        except (JupyterMemoryError, OSError, ValueError) as exc:
            self._remove(con, st.name)
            con.execute(
                "INSERT OR REPLACE INTO problems VALUES (?,?,?,?)",
                (st.name, st.mtime_ns, st.size, str(exc)),
            )
            report.problems.append((st.name, str(exc)))
            return
        if existed:
            report.updated += 1
        else:
            report.added += 1

    def rebuild(self, stats: Iterable[FileStat], load: LoadFn) -> IndexSyncReport:
        """Index every file into a fresh database and swap it in."""
        ensure_dir(self.layout.index_dir, root=self.layout.root)
        report = IndexSyncReport(notices=self._take_notices())
        name = f"index-{time.time_ns()}-{os.getpid()}.sqlite"
        path = self.layout.index_dir / name
        con = sqlite3.connect(str(path), isolation_level=None)
        try:
            con.execute("PRAGMA journal_mode = OFF")
            con.execute("PRAGMA synchronous = OFF")
            con.executescript(SCHEMA)
            with transaction(con):
                for st in stats:
                    self._index_file(con, st, load, report, existed=False, fresh=True)
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
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
        self.close()
        self._swap_in(name)
        return report

    def _take_notices(self) -> list[str]:
        out, self.notices = self.notices, []
        return out

    # -- reads -------------------------------------------------------------------

    def name_of(self, memory_id: str) -> str | None:
        row = (
            self.connection()
            .execute("SELECT name FROM entries WHERE id = ?", (memory_id,))
            .fetchone()
        )
        return None if row is None else str(row[0])

    def body_of(self, name: str) -> str | None:
        row = (
            self.connection().execute("SELECT body FROM entries WHERE name = ?", (name,)).fetchone()
        )
        return None if row is None else str(row[0])

    def problems(self) -> list[tuple[str, str]]:
        return [
            (str(n), str(r))
            for n, r in self.connection().execute("SELECT name, reason FROM problems ORDER BY name")
        ]

    def count(self) -> int:
        return int(self.connection().execute("SELECT count(*) FROM entries").fetchone()[0])

    def embeddings(self) -> VectorStore:
        """The vectors stored beside this index, read through this index's connection."""
        # numpy is only needed with the semantic extra: import on first use.
        from .embeddings import EmbeddingStore

        return EmbeddingStore(self)

    def record_access(self, ids: Sequence[str], at: datetime) -> None:
        """Count a recall of ``ids``; buffered so recall itself stays read-only.

        Pending counts are written every ACCESS_FLUSH_S seconds, before any
        listing, and on close; a crash loses at most that window of counts.
        """
        for memory_id in ids:
            count, _ = self._pending_access.get(memory_id, (0, 0.0))
            self._pending_access[memory_id] = (count + 1, ts(at))
        if time.monotonic() - self._last_flush > ACCESS_FLUSH_S:
            self.flush_access()

    def flush_access(self) -> None:
        self._last_flush = time.monotonic()
        if not self._pending_access or self._con is None:
            return
        pending, self._pending_access = self._pending_access, {}
        con = self._con
        with transaction(con):
            con.executemany(
                "INSERT INTO acc.access (id, last_accessed, access_count) VALUES (?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET last_accessed = MAX(last_accessed,"
                " excluded.last_accessed), access_count = access_count + excluded.access_count",
                [(i, at, n) for i, (n, at) in pending.items()],
            )

    _COLUMNS = (
        "e.id, e.name, e.title, e.type, e.tier, e.scope, e.project, e.tags, e.source,"
        " e.confidence, e.created, e.updated, e.reviewed,"
        " COALESCE(a.access_count, 0), a.last_accessed"
    )

    def rows(self) -> list[IndexedMemory]:
        self.connection()
        self.flush_access()
        sql = (
            f"SELECT {self._COLUMNS}, 0.0, 0.0 FROM entries e"
            " LEFT JOIN acc.access a ON a.id = e.id ORDER BY e.updated DESC"
        )
        return [self._row(r) for r in self.connection().execute(sql)]

    @staticmethod
    def _row(r: Sequence[Any]) -> IndexedMemory:
        return IndexedMemory(
            id=r[0],
            name=r[1],
            title=r[2],
            type=r[3],
            tier=r[4],
            scope=r[5],
            project=r[6],
            tags=json.loads(r[7]),
            source=r[8],
            confidence=r[9],
            created=dt(r[10]),
            updated=dt(r[11]),
            reviewed=bool(r[12]),
            access_count=int(r[13]),
            last_accessed=None if r[14] is None else dt(r[14]),
            relevance=float(r[15]),
            attention=float(r[16]),
            score=combine(float(r[15]), float(r[16])),
        )

    def _filters(self, q: SearchQuery) -> tuple[str, list[Any]]:
        where: list[str] = []
        args: list[Any] = []

        def among(column: str, values: Sequence[str]) -> None:
            where.append(f"{column} IN ({','.join('?' * len(values))})")
            args.extend(values)

        if q.types:
            among("e.type", q.types)
        if q.tiers:
            among("e.tier", q.tiers)
        if q.scopes:
            among("e.scope", q.scopes)
        if q.project is not None:
            where.append("e.project = ?")
            args.append(q.project)
        for tag in q.tags:
            where.append("EXISTS (SELECT 1 FROM json_each(e.tags) WHERE json_each.value = ?)")
            args.append(tag)
        if q.since is not None:
            where.append("e.updated >= ?")
            args.append(ts(q.since))
        if q.reviewed_only:
            where.append("e.reviewed = 1")
        return (" AND ".join(where) if where else "1"), args

    def _attention_sql(self) -> str:
        # Mirrors core.attention.attention_score; computed in SQL so only the
        # final top-k rows cross into Python.
        decay = " ".join(f"WHEN '{t}' THEN {1 - d!r}" for t, d in DECAY.items())
        age = "MAX(0.0, (:now - MAX(e.updated, COALESCE(a.last_accessed, 0))) / 86400.0)"
        access = f"MIN({ACCESS_CAP}, 1.0 + {ACCESS_WEIGHT} * ln(1 + COALESCE(a.access_count, 0)))"
        return (
            f"MIN(1.0, MAX(0.0, pow(CASE e.tier {decay} ELSE 0.99 END, {age})"
            f" * {access} * e.confidence))"
        )

    def _named_filters(self, query: SearchQuery) -> tuple[str, dict[str, Any], bool]:
        where, args = self._filters(query)
        now = ts(query.now or datetime.now(timezone.utc))
        params: dict[str, Any] = {"now": now, "limit": max(1, query.limit), "cap": CANDIDATE_CAP}
        for i, value in enumerate(args):
            where = where.replace("?", f":f{i}", 1)
            params[f"f{i}"] = value
        return where, params, where != "1"

    def search(self, query: SearchQuery) -> list[IndexedMemory]:
        con = self.connection()
        where, params, filtered = self._named_filters(query)
        att = self._attention_sql()
        groups = search_groups(query.text)
        if not groups:
            if analyze(query.text):
                return []  # only stopwords: nothing to look for
            sql = (
                f"SELECT {self._COLUMNS}, 1.0, {att} AS att FROM entries e"
                f" LEFT JOIN acc.access a ON a.id = e.id WHERE {where}"
                " ORDER BY att DESC, e.updated DESC LIMIT :limit"
            )
            return [self._row(r) for r in con.execute(sql, params)]
        w = ", ".join(str(x) for x in BM25_WEIGHTS)
        join = "" if not filtered else " JOIN entries e ON e.rowid = fts.rowid"
        filt = "" if not filtered else f" AND {where}"
        params["pool"] = max(1, query.limit) * RERANK_POOL
        # Three bounded steps: the newest CANDIDATE_CAP matches get bm25; the
        # RERANK_POOL × limit most relevant of those get the attention factor;
        # the best `limit` come back. Relevance dominates by design (attention
        # scales it by RELEVANCE_FLOOR–1.0), so re-ranking a pool is enough.
        sql = (
            f"WITH c AS (SELECT fts.rowid AS rid, -bm25(fts, {w}) AS rel FROM fts{join}"
            f" WHERE fts MATCH :match{filt} ORDER BY fts.rowid DESC LIMIT :cap),"
            " top AS (SELECT rid, rel FROM c ORDER BY rel DESC LIMIT :pool)"
            f" SELECT {self._COLUMNS}, top.rel, {att} AS att FROM top"
            " JOIN entries e ON e.rowid = top.rid LEFT JOIN acc.access a ON a.id = e.id"
            f" ORDER BY top.rel * ({RELEVANCE_FLOOR} + {1 - RELEVANCE_FLOOR!r} * att) DESC"
            " LIMIT :limit"
        )
        params["match"] = " AND ".join(_fts_group(g) for g in groups)
        rows = [self._row(r) for r in con.execute(sql, params)]
        wide = relaxed_groups(groups)
        if len(rows) < query.limit and len(wide) > 1:
            # Widen to any word. bm25 is computed over the same terms in both
            # passes, so an entry scores the same in either and the union is
            # one bm25 order: all-word hits are not pinned, they simply score
            # high (every term adds). A term split from a CJK phrase counts on
            # its own here, which is what makes long Chinese questions match.
            params["match"] = " OR ".join(_fts_group(g) for g in wide)
            best = {r.id: r for r in rows}
            for r in con.execute(sql, params):
                row = self._row(r)
                if row.id not in best or best[row.id].score < row.score:
                    best[row.id] = row
            rows = sorted(best.values(), key=lambda r: r.score, reverse=True)[: query.limit]
        return rows

    def filtered_ids(self, query: SearchQuery) -> list[str]:
        """Ids of every entry that passes ``query``'s filters (text ignored)."""
        where, params, _ = self._named_filters(query)
        sql = f"SELECT e.id FROM entries e WHERE {where}"
        return [str(r[0]) for r in self.connection().execute(sql, params)]

    def rows_by_id(self, query: SearchQuery, scores: dict[str, float]) -> list[IndexedMemory]:
        """Rows for ``scores``' ids that pass ``query``'s filters, with attention.

        The semantic path finds ids by vector; this checks them against the
        live entries (a forgotten or filtered-out memory never comes back) and
        attaches the same attention factor as lexical recall.
        """
        if not scores:
            return []
        con = self.connection()
        where, params, _ = self._named_filters(query)
        att = self._attention_sql()
        out: list[IndexedMemory] = []
        ids = list(scores)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join(f":i{i}" for i in range(len(chunk)))
            params.update({f"i{i}": v for i, v in enumerate(chunk)})
            sql = (
                f"SELECT {self._COLUMNS}, 0.0, {att} FROM entries e"
                f" LEFT JOIN acc.access a ON a.id = e.id WHERE e.id IN ({marks}) AND {where}"
            )
            for r in con.execute(sql, params):
                row = self._row(r)
                row.relevance = scores[row.id]
                row.score = combine(row.relevance, row.attention)
                out.append(row)
        out.sort(key=lambda r: r.score, reverse=True)
        return out
