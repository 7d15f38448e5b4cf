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

From :data:`POOL_MIN_FILES` files on, two forked processes read, parse and
analyse the files (:func:`prepare`, two thirds of the work) while this one
writes SQLite (:mod:`.fork_pool`: the results come back in file order, and
whatever a child cannot do this process does, so the rows are the same).
The garbage collector rests during the load (no cycles are made, and it
would walk the held rows again and again), and each batch's FTS5 rows go in
one statement (FTS5 writes a segment at the end of each).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import sqlite3
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..._i18n import M_
from ..._i18n.stored import read_stored, stored_text
from ...core.progress import Progress
from ...exceptions import JupyterMemoryError
from . import fork_pool
from . import sqlite_rows as rows
from .files import FileStat
from .search_index import IndexSyncReport, LoadFn
from .sqlite_postings import term_key

_BATCH = 550  # entries whose rows are held before they are written
POOL_MIN_FILES = 2_000  # from this many files on, forked processes parse them
_WORKERS = 2  # processes parsing; this one writes SQLite meanwhile
CHUNK = 250  # files a worker sends back at a time
_RUN = 20_000  # entries whose postings are held before they are written
_POOL_RUNS = 4  # runs of a load with workers: the last is written after they are done
# Parameters of one multi-row statement: under SQLite's oldest default limit
# (999), whatever SQLITE_MAX_VARIABLE_NUMBER this SQLite was built with.
_MAX_PARAMS = 999
_LIMIT_VARIABLE_NUMBER = 9  # sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER (Python 3.11+)
_ENTRY_COLS = (
    "rowid, id, name, mtime_ns, size, title, type, tier, scope, project,"
    " tags, source, confidence, created, updated, reviewed, body, ekey, supersedes, evidence"
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

    Each run holds the postings of up to :data:`_RUN` files' entries (about 30
    MB at most): a run is one ordered pass over the clustered table, appending
    at the end of each term's range, since row ids only grow.
    """

    def __init__(self) -> None:
        self.by_term: defaultdict[str, list[Posting]] = defaultdict(list)
        self.df: Counter[str] = Counter()
        self.tokens = 0

    def add(
        self,
        rid: int,
        terms: list[str],
        tf_title: list[int],
        tf_tags: list[int],
        tf_body: list[int],
        dl: int,
    ) -> None:
        """Record an entry's postings as :func:`prepare` counted them."""
        self.tokens += dl
        # Each row is built and appended to its term's list in C (maps, no
        # Python frame per term); the title and tag counts past their own
        # terms (which come first) are zeros.
        made = zip(
            terms,
            itertools.repeat(rid),
            itertools.chain(tf_title, _ZERO),
            itertools.chain(tf_tags, _ZERO),
            tf_body,
            itertools.repeat(dl),
            strict=False,
        )
        deque(map(list.append, map(self.by_term.__getitem__, terms), made), 0)

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


# What one file adds to the index, worked out apart from the database: its
# entries values (without the row id), its three FTS5 columns, and its
# posting terms with their counts: title and tag terms first with their title
# and tag counts, then every term's body count.
Prepared = tuple[tuple[Any, ...], str, str, str, list[str], list[int], list[int], list[int], int]


def prepare(load: LoadFn, st: FileStat) -> Prepared | str:
    """The rows of a file, or the stored reason it cannot be indexed."""
    try:
        entry = load(st.name)
        values = rows.values(entry, st)
        tt, gg, bb = rows.fts_tokens(entry)
    except (JupyterMemoryError, OSError, ValueError) as exc:
        return stored_text(exc)  # translatable when read back (doctor)
    title, tags, body = " ".join(tt), " ".join(gg), " ".join(bb)
    counts = Counter(_terms(bb, body))
    terms: list[str] = []
    tf_title: list[int] = []
    tf_tags: list[int] = []
    tf_body: list[int] = []
    if tt or gg:
        # A title and its tags are a few words: a dict is cheaper than a Counter.
        ct, cg = _small_count(_terms(tt, title)), _small_count(_terms(gg, tags))
        terms = list(ct.keys() | cg.keys())
        tf_title = list(map(ct.get, terms, _ZERO))
        tf_tags = list(map(cg.get, terms, _ZERO))
        tf_body = list(map(counts.pop, terms, _ZERO))  # the rest are body-only terms
    terms += counts.keys()
    tf_body += counts.values()
    return values, title, tags, body, terms, tf_title, tf_tags, tf_body, len(tt) + len(gg) + len(bb)


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
    From :data:`POOL_MIN_FILES` files on, forked processes read and analyse
    them (:mod:`.fork_pool`) while this one writes the rows, in file order.
    """
    con.execute("DROP INDEX IF EXISTS entries_updated")  # built once, after the load
    files = list(files)
    postings = _Postings()
    owner: dict[str, str] = {}
    entries: list[tuple[Any, ...]] = []
    fts: list[tuple[Any, ...]] = []
    problems: list[tuple[Any, ...]] = []
    rid = 0
    workers = fork_pool.workers(_WORKERS) if len(files) >= POOL_MIN_FILES else 0
    run_ends = _run_ends(len(files), pooled=workers > 0)
    with (
        _no_gc(),
        fork_pool.ordered_map(
            functools.partial(prepare, load), files, workers=workers, chunk=CHUNK
        ) as prepared,
    ):
        for seen, (st, got) in enumerate(zip(files, prepared, strict=True), 1):
            bar.advance()
            if not isinstance(got, str):
                memory_id = got[0][0]
                if memory_id not in owner:
                    owner[memory_id] = st.name
                    rid += 1
                    entries.append((rid, *got[0]))
                    fts.append((rid, got[1], got[2], got[3]))
                    postings.add(rid, got[4], got[5], got[6], got[7], got[8])
                    report.added += 1
                    if len(entries) >= _BATCH:
                        _flush(con, entries, fts)
                    if seen in run_ends:
                        postings.write_run(con)
                    continue
                twice = M_(
                    "id {id} is used by both {first} and {second}",
                    id=memory_id,
                    first=owner[memory_id],
                    second=st.name,
                )
                got = stored_text(JupyterMemoryError(twice))
            problems.append((st.name, st.mtime_ns, st.size, got))
            report.problems.append((st.name, read_stored(got)))
            if seen in run_ends:
                postings.write_run(con)
    _flush(con, entries, fts)
    con.executemany("INSERT OR REPLACE INTO problems VALUES (?,?,?,?)", problems)
    postings.finish(con, rid)
    con.execute("CREATE INDEX entries_updated ON entries(updated)")


def _run_ends(files: int, *, pooled: bool) -> set[int]:
    """After how many files a run of postings is written (the last run: at the end).

    Runs of at most :data:`_RUN` files. With workers, :data:`_POOL_RUNS` runs
    at least, shorter and shorter: all but the last are written while the
    workers still parse, and the last, written after, is a sixteenth.
    """
    runs = max(-(-files // _RUN), _POOL_RUNS if pooled else 1)
    if not pooled or runs > _POOL_RUNS:
        return {files * k // runs for k in range(1, runs)}
    return {files - files * (runs - k) ** 2 // runs**2 for k in range(1, runs)}


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    # The load makes a few hundred thousand rows and lists, and no cycles:
    # the collector would only walk them again and again (a tenth of the load).
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _max_params(con: sqlite3.Connection) -> int:
    """The values a statement of this SQLite may hold (Python 3.11+ asks it)."""
    getlimit = getattr(con, "getlimit", None)
    if getlimit is None:
        return _MAX_PARAMS
    return int(getlimit(_LIMIT_VARIABLE_NUMBER))


def _flush(con: sqlite3.Connection, entries: list[tuple[Any, ...]], fts: list[Any]) -> None:
    insert_many(con, f"INSERT INTO entries ({_ENTRY_COLS})", 20, entries, len(entries))
    # FTS5 flushes its pending terms into a new segment at the end of every
    # statement: the batch in one statement where SQLite takes that many values
    # (a third of the FTS5 insert's time, next to 249 rows and then one by one).
    if fts and len(fts) * 4 <= _max_params(con):
        marks = ",".join(["(?,?,?,?)"] * len(fts))
        con.execute(
            f"INSERT INTO fts (rowid, title, tags, body) VALUES {marks}",
            tuple(itertools.chain.from_iterable(fts)),
        )
    else:
        insert_many(con, "INSERT INTO fts (rowid, title, tags, body)", 4, fts, len(fts))
    entries.clear()
    fts.clear()
