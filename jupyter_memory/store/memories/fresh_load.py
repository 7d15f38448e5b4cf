"""Filling an empty index database from every file at once (a rebuild).

The same rows as indexing the files one by one (:func:`.sqlite_rows.upsert`
and :func:`.sqlite_postings.add`), written the way a bulk load is cheap: rows
inserted many to a statement (:func:`insert_many`), the postings gathered in
memory per term and inserted in key order, a run of entries at a time (each
term's rows are appended at the end of its range: no sort in SQLite, no
staging table), the term statistics counted on the way, and the secondary
index on ``updated`` built once after the load.

Row ids are given in file order, as one-by-one inserts into the empty table
would give them: recall orders equal scores newest indexed first.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Sequence
from typing import Any

from ..._i18n import M_
from ..._i18n.stored import read_stored, stored_text
from ...core.progress import Progress
from ...exceptions import JupyterMemoryError
from . import sqlite_rows as rows
from .files import FileStat
from .search_index import IndexSyncReport, LoadFn
from .sqlite_postings import term_key

_BATCH = 550  # entries whose rows are held before they are written
_RUN = 20_000  # entries whose postings are held before they are written
# Parameters of one multi-row statement: under SQLite's oldest default limit
# (999), whatever SQLITE_MAX_VARIABLE_NUMBER this SQLite was built with.
_MAX_PARAMS = 999
_ENTRY_COLS = (
    "rowid, id, name, mtime_ns, size, title, type, tier, scope, project,"
    " tags, source, confidence, created, updated, reviewed, body, ekey"
)

# A postings row (term, rid, tf_title, tf_tags, tf_body, dl), built once: the
# insert then walks the lists in C.
Posting = tuple[str, int, int, int, int, int]


def insert_many(
    con: sqlite3.Connection, head: str, width: int, values: Iterable[Sequence[Any]], count: int
) -> None:
    """``head VALUES (?,…),(?,…),…`` for ``count`` rows of ``width`` values.

    One statement per row costs SQLite's and Python's per-statement work for
    every row (a postings row: two thirds of its insert); here a statement
    holds up to ``_MAX_PARAMS`` values, and the tail goes one row at a time.
    The rows are inserted in the order given.
    """
    per = max(1, _MAX_PARAMS // width)
    one = "(" + ",".join("?" * width) + ")"
    it = iter(values)
    full = count - count % per
    if full:
        # zip(*[it] * per) groups the rows; flattened into one parameter tuple each.
        groups = zip(*[itertools.islice(it, full)] * per, strict=False)
        con.executemany(
            f"{head} VALUES {','.join([one] * per)}",
            map(tuple, map(itertools.chain.from_iterable, groups)),
        )
    con.executemany(f"{head} VALUES {one}", it)


_FOLDED: dict[str, str] = {}  # token → term_key(token), for the tokens that are not ASCII


def _terms(tokens: list[str], text: str) -> list[str]:
    # The posting terms of a column (its tokens, joined in ``text``), as
    # sqlite_postings.add counts them: ASCII as is, others looked up in C.
    if text.isascii():
        return tokens
    folded = _FOLDED
    try:
        return list(map(folded.__getitem__, tokens))
    except KeyError:
        if len(folded) > 200_000:
            folded.clear()
        for t in tokens:
            if t not in folded:
                folded[t] = term_key(t)
        return list(map(folded.__getitem__, tokens))


def _small_count(terms: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in terms:
        out[t] = out.get(t, 0) + 1
    return out


_ZERO = itertools.repeat(0)


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

    def add(self, rid: int, tt: list[str], gg: list[str], bb: list[str]) -> None:
        """Count an entry's posting terms (title, tags, body)."""
        dl = len(tt) + len(gg) + len(bb)
        self.tokens += dl
        # Each row is built and appended to its term's list in C (maps, no
        # Python frame per term): first the title's and tags' terms, taking
        # their body count out, then the body's other terms.
        put, rid_, dl_ = self.by_term.__getitem__, itertools.repeat(rid), itertools.repeat(dl)
        body = Counter(bb)
        if tt or gg:
            # A title and its tags are a few words: a dict is cheaper than a Counter.
            ct, cg = _small_count(tt), _small_count(gg)
            both = list(ct.keys() | cg.keys())
            tf_title, tf_tags = map(ct.get, both, _ZERO), map(cg.get, both, _ZERO)
            made = zip(both, rid_, tf_title, tf_tags, map(body.pop, both, _ZERO), dl_, strict=False)
            deque(map(list.append, map(put, both), made), 0)
        terms = body.keys()
        made = zip(terms, rid_, _ZERO, _ZERO, body.values(), dl_, strict=False)
        deque(map(list.append, map(put, terms), made), 0)

    def write_run(self, con: sqlite3.Connection) -> None:
        # Python orders str by code point, SQLite's BINARY by UTF-8 bytes: the same order.
        by_term = self.by_term
        terms = sorted(by_term)
        df = {t: len(held) for t, held in by_term.items()}
        insert_many(
            con,
            "INSERT INTO postings",
            6,
            itertools.chain.from_iterable(map(by_term.__getitem__, terms)),
            sum(df.values()),
        )
        self.df.update(df)
        by_term.clear()

    def finish(self, con: sqlite3.Connection, entries: int) -> None:
        self.write_run(con)
        insert_many(con, "INSERT INTO terms", 2, sorted(self.df.items()), len(self.df))
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
            tokens = rows.fts_tokens(entry)
            memory_id = entry.meta.id
            if memory_id in owner:
                raise JupyterMemoryError(
                    M_(
                        "id {id} is used by both {first} and {second}",
                        id=memory_id,
                        first=owner[memory_id],
                        second=st.name,
                    )
                )
        except (JupyterMemoryError, OSError, ValueError) as exc:
            reason = stored_text(exc)  # translatable when read back (doctor)
            problems.append((st.name, st.mtime_ns, st.size, reason))
            report.problems.append((st.name, read_stored(reason)))
            continue
        owner[memory_id] = st.name
        rid += 1
        entries.append((rid, *values))
        tt, gg, bb = tokens
        title, tags, body = " ".join(tt), " ".join(gg), " ".join(bb)
        fts.append((rid, title, tags, body))
        postings.add(rid, _terms(tt, title), _terms(gg, tags), _terms(bb, body))
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
    insert_many(con, f"INSERT INTO entries ({_ENTRY_COLS})", 18, entries, len(entries))
    insert_many(con, "INSERT INTO fts (rowid, title, tags, body)", 4, fts, len(fts))
    entries.clear()
    fts.clear()
