"""Filling an empty index database from every file at once (a rebuild).

The same rows as indexing the files one by one (:func:`.sqlite_rows.upsert`
and :func:`.sqlite_postings.add`), written the way a bulk load is cheap: rows
inserted in batches with ``executemany``, the postings gathered in memory per
term and inserted in key order, a run of entries at a time (each term's rows
are appended at the end of its range: no sort in SQLite, no staging table),
the term statistics counted on the way, and the secondary index on
``updated`` built once after the load.

Row ids are given in file order, as one-by-one inserts into the empty table
would give them: recall orders equal scores newest indexed first.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from ...core.progress import Progress
from ...exceptions import JupyterMemoryError
from . import sqlite_rows as rows
from .files import FileStat
from .search_index import IndexSyncReport, LoadFn
from .sqlite_postings import term_key

_BATCH = 500
_RUN = 20_000  # entries whose postings are held before they are written
_INSERT_ENTRY = (
    "INSERT INTO entries (rowid, id, name, mtime_ns, size, title, type, tier, scope, project,"
    " tags, source, confidence, created, updated, reviewed, body, ekey)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
_INSERT_FTS = "INSERT INTO fts (rowid, title, tags, body) VALUES (?,?,?,?)"

# A postings row (term, rid, tf_title, tf_tags, tf_body, dl), built once: the
# insert then walks the lists in C.
Posting = tuple[str, int, int, int, int, int]


_FOLDED: dict[str, str] = {}  # token → term_key(token), for the tokens that are not ASCII


def _terms(text: str) -> list[str]:
    # The posting terms of a column, as sqlite_postings.add counts them: ASCII as is.
    if text.isascii():
        return text.split()
    folded = _FOLDED
    if len(folded) > 200_000:
        folded.clear()
    out = []
    for t in text.split():
        key = folded.get(t)
        if key is None:
            key = folded[t] = term_key(t)
        out.append(key)
    return out


def _small_count(terms: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in terms:
        out[t] = out.get(t, 0) + 1
    return out


class _Postings:
    """Postings by term, written in key order a run of entries at a time.

    Each run holds the postings of up to :data:`_RUN` entries (about 30 MB at
    most): a run is one ordered pass over the clustered table, appending at
    the end of each term's range, since row ids only grow.
    """

    def __init__(self) -> None:
        self.by_term: defaultdict[str, list[Posting]] = defaultdict(list)
        self.df: Counter[str] = Counter()
        self.tokens = 0

    def add(self, rid: int, title: str, tags: str, body: str) -> None:
        tt, gg, bb = _terms(title), _terms(tags), _terms(body)
        dl = len(tt) + len(gg) + len(bb)
        self.tokens += dl
        # A title and its tags are a few words: a dict is cheaper than a Counter.
        ct, cg, cb = _small_count(tt), _small_count(gg), Counter(bb)
        by_term, tget, gget = self.by_term, ct.get, cg.get
        for term, n in cb.items():
            by_term[term].append((term, rid, tget(term, 0), gget(term, 0), n, dl))
        for term in (ct.keys() | cg.keys()) - cb.keys():
            by_term[term].append((term, rid, tget(term, 0), gget(term, 0), 0, dl))

    def write_run(self, con: sqlite3.Connection) -> None:
        # Python orders str by code point, SQLite's BINARY by UTF-8 bytes: the same order.
        by_term = self.by_term
        terms = sorted(by_term)
        con.executemany(
            "INSERT INTO postings VALUES (?,?,?,?,?,?)",
            itertools.chain.from_iterable(map(by_term.__getitem__, terms)),
        )
        self.df.update({t: len(held) for t, held in by_term.items()})
        by_term.clear()

    def finish(self, con: sqlite3.Connection, entries: int) -> None:
        self.write_run(con)
        con.executemany("INSERT INTO terms VALUES (?,?)", sorted(self.df.items()))
        con.execute("UPDATE totals SET n = ?, tokens = ?", (entries, self.tokens))


def load_all(
    con: sqlite3.Connection,
    files: Iterable[FileStat],
    load: LoadFn,
    report: IndexSyncReport,
    bar: Progress,
) -> None:
    """Index ``files`` into the empty tables of ``con`` (inside the caller's transaction).

    A file that cannot be read, or whose id an earlier file already holds,
    becomes a problem row with the same reason one-by-one indexing gives.
    """
    con.execute("DROP INDEX IF EXISTS entries_updated")  # built once, after the load
    postings = _Postings()
    owner: dict[str, str] = {}
    entries: list[tuple[Any, ...]] = []
    fts: list[tuple[Any, ...]] = []
    problems: list[tuple[Any, ...]] = []
    rid = 0
    for st in files:
        bar.advance()
        try:
            entry = load(st.name)
            values = rows.values(entry, st)
            cols = rows.fts_values(entry)
            memory_id = entry.meta.id
            if memory_id in owner:
                raise JupyterMemoryError(
                    f"id {memory_id} is used by both {owner[memory_id]} and {st.name}"
                )
        except (JupyterMemoryError, OSError, ValueError) as exc:
            problems.append((st.name, st.mtime_ns, st.size, str(exc)))
            report.problems.append((st.name, str(exc)))
            continue
        owner[memory_id] = st.name
        rid += 1
        entries.append((rid, *values))
        fts.append((rid, *cols))
        postings.add(rid, *cols)
        report.added += 1
        if len(entries) >= _BATCH:
            _flush(con, entries, fts)
        if rid % _RUN == 0:
            postings.write_run(con)
    _flush(con, entries, fts)
    con.executemany("INSERT OR REPLACE INTO problems VALUES (?,?,?,?)", problems)
    postings.finish(con, rid)
    con.execute("CREATE INDEX entries_updated ON entries(updated)")


def _flush(con: sqlite3.Connection, entries: list[tuple[Any, ...]], fts: list[Any]) -> None:
    con.executemany(_INSERT_ENTRY, entries)
    con.executemany(_INSERT_FTS, fts)
    entries.clear()
    fts.clear()
