"""Postings and term statistics beside FTS5, so ranking reads no more than it scores.

FTS5's ``bm25()`` first counts every row that holds each query term (a full
pass over a common word's doclist: 35,000 rows for a word in a third of 100k
notes) and then decodes position lists for every candidate it scores. Here the
same bm25 is computed from three small tables kept in the same transaction as
the FTS5 row, so every process sees them right after any other's write:

* ``postings(term, rid, tf_title, tf_tags, tf_body, dl)``: one row per distinct
  term of an entry, clustered by ``(term, rid)``, so "the newest N entries
  holding a term" is one index range read backwards;
* ``terms(term, df)``: how many entries hold the term (the IDF's input);
* ``totals(n, tokens)``: entries and tokens, for the average length.

The score is FTS5's bm25 (k1 1.2, b 0.75, a row's length counted over all
columns; tests compare the two to 1e-12 under FTS5's idf) except for the idf:
Lucene's ``ln(1 + (N − df + 0.5) / (df + 0.5))`` (:func:`lucene_idf`, issue 33)
rather than FTS5's ``ln((N − df + 0.5) / (df + 0.5))`` floored at 1e-6
(:func:`fts5_idf`), which gives a word in half the notes or more no weight at
all — a person's name in a chat, cross-validated in docs/recall.md. Its
constants are folded per query so a candidate costs five operations, not eight. FTS5 still answers what needs positions or prefixes:
CJK phrases of several bigrams and single-character prefix queries.

Terms are the analyser's tokens as stored in FTS5. A token that is neither
plain ASCII nor CJK is stored with its diacritics removed, the way FTS5's
``unicode61 remove_diacritics 2`` folds it, so ``cafe`` meets ``café`` as
before; queries holding such a token are answered by FTS5.
"""

from __future__ import annotations

import functools
import math
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...core.text import SearchGroup, is_cjk_run
from .sqlite_db import STORED_WEIGHTS, weighted_tf

K1 = 1.2
B = 0.75


_KEYS: dict[str, str] = {}


def term_key(token: str) -> str:
    """The posting term of an index token (diacritics folded as FTS5 folds them)."""
    if token.isascii():
        return token
    key = _KEYS.get(token)
    if key is None:
        if is_cjk_run(token):
            key = token
        else:
            decomposed = unicodedata.normalize("NFD", token)
            key = "".join(c for c in decomposed if not unicodedata.combining(c))
            key = unicodedata.normalize("NFC", key)
        if len(_KEYS) > 100_000:
            _KEYS.clear()
        _KEYS[token] = key
    return key


def _count(text: str) -> Counter[str]:
    # Most text is ASCII: count in C, fold nothing.
    return Counter(text.split() if text.isascii() else map(term_key, text.split()))


def _columns(con: sqlite3.Connection, rid: int) -> tuple[list[str], list[str], list[str]] | None:
    row = con.execute("SELECT title, tags, body FROM fts WHERE rowid = ?", (rid,)).fetchone()
    if row is None:
        return None
    return (str(row[0]).split(), str(row[1]).split(), str(row[2]).split())


def add(con: sqlite3.Connection, rid: int, title: str, tags: str, body: str) -> None:
    """Record the postings of one entry's FTS5 columns (space-separated tokens).

    A rebuild into an empty database loads postings in bulk instead
    (``fresh_load.py``).
    """
    ct, cg, cb = counts = [_count(text) for text in (title, tags, body)]
    dl = sum(c.total() for c in counts)
    terms = ct.keys() | cg.keys() | cb.keys()
    rows = [(t, rid, ct.get(t, 0), cg.get(t, 0), cb.get(t, 0), dl) for t in terms]
    con.executemany("INSERT INTO postings VALUES (?,?,?,?,?,?)", rows)
    con.executemany(
        "INSERT INTO terms VALUES (?, 1) ON CONFLICT(term) DO UPDATE SET df = df + 1",
        [(t,) for t in terms],
    )
    con.execute("UPDATE totals SET n = n + 1, tokens = tokens + ?", (dl,))


def remove(con: sqlite3.Connection, rid: int) -> None:
    """Drop the postings of an entry; call before its FTS5 row is deleted."""
    cols = _columns(con, rid)
    if cols is None:
        return
    terms = [(t,) for t in {term_key(tok) for col in cols for tok in col}]
    con.executemany("DELETE FROM postings WHERE term = ? AND rid = " + str(int(rid)), terms)
    con.executemany("UPDATE terms SET df = df - 1 WHERE term = ?", terms)
    # A term no entry holds any more goes: the vocabulary would otherwise keep
    # the words of a forgotten memory (statistics read only df > 0 anyway).
    con.executemany("DELETE FROM terms WHERE term = ? AND df <= 0", terms)
    con.execute(
        "UPDATE totals SET n = n - 1, tokens = tokens - ?", (sum(len(col) for col in cols),)
    )


def plain_terms(groups: Sequence[SearchGroup]) -> list[str] | None:
    """The groups' terms when every group is one plain token, else ``None`` (FTS5's case)."""
    out: list[str] = []
    for g in groups:
        if g.prefix or len(g.tokens) != 1:
            return None
        tok = g.tokens[0]
        if not (tok.isascii() or is_cjk_run(tok) and all(is_cjk_run(c) for c in tok)):
            return None
        out.append(tok)
    return out


@dataclass(frozen=True)
class TermStats:
    """What bm25 needs of the query's terms: IDF and df of those that occur, N, avgdl."""

    idf: dict[str, float]
    df: dict[str, int]
    n: int = 0
    avgdl: float = 1.0


def lucene_idf(n: int, df: int) -> float:
    """Lucene's BM25 idf: positive for every term, however common (production)."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def fts5_idf(n: int, df: int) -> float:
    """FTS5's ``bm25()`` idf (tests compare the rest of the formula with FTS5's)."""
    return max(1e-6, math.log((n - df + 0.5) / (df + 0.5)))


# RankingParams.idf names one of them (lexical recall Lucene's, hybrid's fusion FTS5's).
IDF: dict[str, Callable[[int, int], float]] = {"lucene": lucene_idf, "fts5": fts5_idf}


def statistics(
    con: sqlite3.Connection,
    terms: Sequence[str],
    idf_of: Callable[[int, int], float] = lucene_idf,
) -> TermStats:
    """The statistics of ``terms``, read in one statement (one snapshot)."""
    rows = con.execute(_statistics_sql(len(terms)), terms).fetchall()
    if not rows:
        return TermStats({}, {})
    n, tokens = rows[0][2], rows[0][3]
    df = {r[0]: r[1] for r in rows}  # TEXT and INTEGER columns: str and int already
    idf = {t: idf_of(n, d) for t, d in df.items()}
    return TermStats(idf, df, n, tokens / n if n else 1.0)


@functools.lru_cache(maxsize=64)
def _statistics_sql(k: int) -> str:
    marks = ",".join("?" * k)
    return f"SELECT term, df, n, tokens FROM terms, totals WHERE term IN ({marks}) AND df > 0"


def _score(p: str, i: int, weights: tuple[float, ...]) -> str:
    # idf·f·(k1+1) / (f + k1·(1 − b + b·dl/avgdl)) with the per-query constants
    # multiplied out beforehand (_bm25_params): :c{i} = idf·(k1+1),
    # :k = k1·(1 − b), :kb = k1·b/avgdl. The same value up to rounding.
    f = f"{p}.w" if weights == STORED_WEIGHTS else weighted_tf(f"{p}.", weights)
    return f"(:c{i} * {f} / ({f} + :k + :kb * {p}.dl))"


def _bm25_params(idf: Sequence[float], avgdl: float) -> dict[str, object]:
    """The constants of :func:`_score` for terms with ``idf`` (in the query's order)."""
    params: dict[str, object] = {"k": K1 * (1 - B), "kb": K1 * B / avgdl}
    for i, x in enumerate(idf):
        params[f"c{i}"] = x * (K1 + 1.0)
    return params


# All-words pass: when the rarest word is in many entries and the others hold
# fewer than this share of the entries, FTS5's own intersection (it skips along
# the doclists) finds the matches faster than probing the rarest word's
# postings one by one (measured at 100k; at 10k the probes win).
FTS_MATCH_DENSITY = 0.3
FTS_MATCH_MIN_DF = 1000


def candidates_sql(
    terms: Sequence[str],
    stats: TermStats,
    *,
    every: bool,
    weights: Sequence[float],
    where: str | None,
    fts_match: bool | None = None,
) -> tuple[str, dict[str, object]] | None:
    """A query giving ``(rid, rel)`` for the newest ``:cap`` matches and its
    parameters (all but ``:cap`` and those of ``where``), or ``None``.

    ``every``: entries holding all ``terms``. Either the rarest term's postings
    drive, newest first, and the others are probed by key, or (``fts_match``;
    by default when the others are sparse) FTS5 intersects the doclists and
    each match's terms are then read by key. Otherwise entries holding any
    term: the newest ``:cap`` entries holding any term are among the newest
    ``:cap`` holding each one of them, so that case reads at most ``:cap``
    postings a term. ``where`` filters on the entry (aliased ``e``) before the
    bound, as the FTS5 query does.
    """
    idf = stats.idf
    present = [t for t in terms if t in idf]
    if every and len(present) < len(terms) or not present:
        return None
    params = _bm25_params([idf[t] for t in present], stats.avgdl)
    for i, t in enumerate(present):
        params[f"t{i}"] = t
    order: tuple[int, ...] = ()
    if every and len(present) > 1:
        # Rarest first: it drives, and CROSS JOIN fixes SQLite's loop order.
        order = tuple(sorted(range(len(present)), key=lambda i: -idf[present[i]]))
        if fts_match is None:
            density = math.prod(stats.df[present[i]] / max(1, stats.n) for i in order[1:])
            fts_match = (
                density < FTS_MATCH_DENSITY and stats.df[present[order[0]]] > FTS_MATCH_MIN_DF
            )
        if fts_match:
            params["match"] = " AND ".join(f'"{t}"' for t in present)
    sql = _candidates_text(
        len(present), every, order, bool(fts_match), tuple(float(w) for w in weights), where
    )
    return sql, params


@functools.lru_cache(maxsize=512)
def _candidates_text(
    n: int,
    every: bool,
    order: tuple[int, ...],
    fts_match: bool,
    weights: tuple[float, ...],
    where: str | None,
) -> str:
    # The SQL of candidates_sql for one shape of query (the terms and their
    # statistics are parameters): built once, not on every recall.
    join = " CROSS JOIN entries e" if where else ""
    rel = " + ".join(_score(f"p{i}", i, weights) for i in range(n))
    if order:
        drive = order[0]
        if fts_match:
            filt = f" AND {where}" if where else ""
            efts = " JOIN entries e ON e.rowid = fts.rowid" if where else ""
            probes = " ".join(f"CROSS JOIN postings p{i}" for i in range(n))
            conds = " AND ".join(f"p{i}.term = :t{i} AND p{i}.rid = m.rid" for i in order)
            return (
                f"SELECT m.rid AS rid, {rel} AS rel FROM (SELECT fts.rowid AS rid FROM fts{efts}"
                f" WHERE fts MATCH :match{filt} ORDER BY fts.rowid DESC LIMIT :cap) m"
                f" {probes} WHERE {conds}"
            )
        froms = " CROSS JOIN ".join(f"postings p{i}" for i in order)
        conds_l = [f"p{i}.term = :t{i}" for i in order]
        conds_l += [f"p{i}.rid = p{drive}.rid" for i in order[1:]]
        if where:
            conds_l += [f"e.rowid = p{drive}.rid", where]
        return (
            f"SELECT p{drive}.rid AS rid, {rel} AS rel FROM {froms}{join}"
            f" WHERE {' AND '.join(conds_l)} ORDER BY p{drive}.rid DESC LIMIT :cap"
        )
    filt = f" AND e.rowid = p.rid AND {where}" if where else ""
    if n > 1 and not where:
        # Any word, unfiltered: the newest :cap entries holding any term are
        # none of them older than the :cap-th newest posting of any one term, so
        # every term's list stops there (found by stepping through at most :cap
        # keys a term, nothing scored): a rarer term's list then holds only
        # entries that can still be kept. The same rows and sums, fewer scored
        # and grouped. A term held by fewer than :cap entries bounds nothing
        # (-1; SQLite's max() of several arguments is NULL when one is).
        nth = ", ".join(
            f"COALESCE((SELECT rid FROM postings WHERE term = :t{i} ORDER BY rid DESC"
            " LIMIT 1 OFFSET :cap - 1), -1)"
            for i in range(n)
        )
        floor = f"WITH fl AS MATERIALIZED (SELECT MAX({nth}) AS f) "
        filt = " AND p.rid >= (SELECT f FROM fl)"
    else:
        floor = ""
    parts = [
        f"SELECT * FROM (SELECT p.rid AS rid, {_score('p', i, weights)} AS rel"
        f" FROM postings p{join} WHERE p.term = :t{i}{filt} ORDER BY p.rid DESC LIMIT :cap)"
        for i in range(n)
    ]
    if len(parts) == 1:
        return parts[0]
    return (
        f"{floor}SELECT rid, SUM(rel) AS rel FROM ({' UNION ALL '.join(parts)})"
        " GROUP BY rid ORDER BY rid DESC LIMIT :cap"
    )
