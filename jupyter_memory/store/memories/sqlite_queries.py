"""The SQL of recall over the FTS5 index: filters, bounded ranking, the hits' rows.

Pure query building and reading over an open connection (the connection, its
files and its life cycle belong to :class:`.sqlite_index.SqliteIndex`).

* Ranking work is bounded: at most ``candidate_cap`` matches (newest first) are
  scored; an all-words query is tried first and widened to any-word only when
  it returns fewer than the limit. Both passes score with the same bm25 over
  the same terms, so the widened list is one bm25 order (docs/recall.md).
* Every ranking constant comes from the query's
  :class:`~jupyter_memory.core.memories.ranking.RankingParams`.
* Every builder returns ``(sql, params)``: a statement and its named
  parameters, merged by the caller, never filled in behind its back.
* Production ranks by relevance alone (``relevance_floor`` 1.0). The
  attention re-rank that other floors ask for is only cross-validated by
  ``benchmarks/ranking_cv.py``; it lives in :mod:`.sqlite_rerank`.
"""

from __future__ import annotations

import functools
import operator
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ...core.memories.attention import combine
from ...core.text import SearchGroup, analyze, relaxed_groups, search_groups
from . import sqlite_postings as postings
from . import sqlite_rerank
from .postings_cache import PostingsCache
from .search_index import ALL_WORDS, IndexedMemory, SearchQuery, ranking_key
from .sqlite_db import STORED_WEIGHTS, ts
from .sqlite_result import (
    ACCESS_COUNT,
    COLUMNS,
    ID,
    RELEVANCE,
    RID,
    ROW_COLUMNS,
    ROW_TABLES,
    Built,
    Params,
    Ranking,
    Row,
    attention_sql,
    row_of,
)


def all_rows(con: sqlite3.Connection) -> list[IndexedMemory]:
    """Every entry with its access counts, newest first."""
    sql = f"SELECT {COLUMNS}, 0.0, 0.0 FROM {ROW_TABLES} ORDER BY e.updated DESC"
    return [row_of(r) for r in con.execute(sql)]


def filter_sql(q: SearchQuery) -> Built:
    """The WHERE condition of ``q``'s filters on ``e`` ("1" when none) and its parameters."""
    where: list[str] = []
    params: Params = {}

    def bind(value: Any) -> str:
        name = f"f{len(params)}"
        params[name] = value
        return f":{name}"

    for column, values in (("e.type", q.types), ("e.tier", q.tiers), ("e.scope", q.scopes)):
        if values:
            where.append(f"{column} IN ({','.join(bind(v) for v in values)})")
    if q.project is not None:
        where.append(f"e.project = {bind(q.project)}")
    for tag in q.tags:
        where.append(
            f"EXISTS (SELECT 1 FROM json_each(e.tags) WHERE json_each.value = {bind(tag)})"
        )
    if q.since is not None:
        where.append(f"e.updated >= {bind(ts(q.since))}")
    if q.reviewed_only:
        where.append("e.reviewed = 1")
    return (" AND ".join(where) if where else "1"), params


def _now(query: SearchQuery) -> float:
    return ts(query.now or datetime.now(timezone.utc))


@functools.cache
def _best_sql() -> str:
    # The ``:limit`` most relevant candidates, with their rows and attention.
    # With a floor of 1.0 the score is the relevance to the bit (0.0 × a finite
    # attention adds nothing), so no re-rank: the rows come back unordered and
    # are put in (relevance, rowid) order in Python.
    return (
        " top AS (SELECT rid, rel FROM c ORDER BY rel DESC, rid DESC LIMIT :limit)"
        f" SELECT {COLUMNS}, top.rel, {attention_sql()} FROM top"
        f" JOIN entries e ON e.rowid = top.rid LEFT JOIN acc.access a ON a.id = e.id"
    )


BY_RELEVANCE = Ranking(
    final=lambda limit: (_best_sql(), {"limit": limit}),
    score=operator.itemgetter(RELEVANCE),
    floor=1.0,
)


def _ranking(query: SearchQuery) -> Ranking:
    rank = query.ranking
    if rank.relevance_floor == 1.0:
        return BY_RELEVANCE
    return sqlite_rerank.ranking(rank.relevance_floor, rank.rerank_pool)


def search(
    con: sqlite3.Connection, query: SearchQuery, cache: PostingsCache | None = None
) -> list[IndexedMemory]:
    """Ranked hits for ``query``: bm25 over a bounded candidate set.

    With ``cache`` (valid for ``con``'s database as it is now), the candidates
    of plain-term passes without filters under the production weights and
    ranking are computed from its postings instead of stepped in SQL; the
    same candidates, scores and best ``limit`` (:mod:`.postings_cache`).
    """
    rank = query.ranking
    plan = _plan(query.text, rank.max_cjk_phrase)
    if not plan.groups:
        if plan.words:
            return []  # only stopwords: nothing to look for
        return _by_attention(con, query)
    ranking = _ranking(query)
    where = filter_sql(query)
    base = {**where[1], "now": _now(query)}
    limit = max(1, query.limit)
    stats: dict[tuple[str, ...], postings.TermStats] = {}  # one read per set of terms
    fast = (
        cache is not None
        and ranking is BY_RELEVANCE
        and where[0] == "1"
        and tuple(float(w) for w in rank.bm25_weights) == STORED_WEIGHTS
        and cache.valid(con)
    )

    def ranked(
        groups: Sequence[SearchGroup], terms: Sequence[str] | None, every: bool
    ) -> list[Row]:
        # A limit that covers every match reaches every match: the bound never
        # hides a memory that was asked for (recall of a Chinese word is 1.00);
        # each pass sets its own cap, never below the limit.
        cap = max(rank.all_words_cap if every else rank.candidate_cap, limit)
        if terms is None:
            candidates: Built | None = _fts_candidates(groups, every, rank.bm25_weights, where)
        else:
            key = tuple(sorted(terms))
            if key not in stats:
                read = functools.partial(postings.statistics, con, terms, postings.IDF[rank.idf])
                stats[key] = (
                    cache.statistics(con, terms, rank.idf, read)
                    if fast and cache is not None
                    else read()
                )
            if fast and cache is not None:
                best = cache.candidates(con, terms, stats[key], every=every, cap=cap, limit=limit)
                return [] if not best else _rows_of(con, best, base, limit, cache)
            candidates = postings.candidates_sql(
                terms,
                stats[key],
                every=every,
                weights=rank.bm25_weights,
                where=where[0] if where[0] != "1" else None,
            )
        if candidates is None:
            return []
        c_sql, c_params = candidates
        final_sql, final_params = ranking.final(limit)
        params = {**base, **c_params, **final_params, "cap": cap}
        found = con.execute(_with_candidates(c_sql, final_sql), params).fetchall()
        found.sort(key=lambda r: (ranking.score(r), r[RID]), reverse=True)
        return found

    if rank.relaxation == "any":  # one any-word pass, as plain BM25
        found = ranked(plan.wide, plan.wide_terms, every=False)
        return [row_of(r, ranking.floor) for r in found]
    found = ranked(plan.groups, plan.terms, every=True)
    every = {r[ID] for r in found}
    if len(found) < query.limit and len(plan.wide) > 1:
        wide = ranked(plan.wide, plan.wide_terms, every=False)
        found = _merged(found, wide, ranking, query.limit)
    rows = [row_of(r, ranking.floor) for r in found]
    # Which hits hold every group, as the all-words pass matched them (hybrid
    # recall keeps those: ALL_WORDS). Widening happens only when that pass found
    # fewer than the limit, so then it held every such match of the index (its
    # cap is at least the limit): a widened hit that is not among them lacks a word.
    for row in rows:
        if row.id in every:
            row.extra[ALL_WORDS] = True
    return rows


def _rows_of(
    con: sqlite3.Connection,
    best: list[tuple[int, float]],
    base: Params,
    limit: int,
    cache: PostingsCache,
) -> list[Row]:
    """The result tuples of candidates already chosen (``(rid, rel)``, best first),
    as :data:`BY_RELEVANCE`'s final statement gives them: the entry columns only a
    write changes from ``cache``, the access counts and attention read now (the
    same SQL expression, so the same doubles)."""
    rids = [rid for rid, _ in best]
    static = cache.entries(con, rids, functools.partial(_static_rows, con))
    params: Params = {"now": base["now"]}
    for i, rid in enumerate(rids):
        params[f"r{i}"] = rid
    live = {r[0]: r[1:] for r in con.execute(_live_sql(len(rids)), params)}
    found = [
        (*static[rid], *live[rid][:2], rid, rel, live[rid][2])
        for rid, rel in best
        if rid in static and rid in live
    ]
    found.sort(key=lambda r: (r[RELEVANCE], r[RID]), reverse=True)
    return found[:limit]


_STATIC = ", ".join(list(ROW_COLUMNS.values())[:ACCESS_COUNT])  # e.id … e.reviewed


def _static_rows(con: sqlite3.Connection, rids: list[int]) -> list[Row]:
    marks = ",".join("?" * len(rids))
    sql = f"SELECT e.rowid, {_STATIC} FROM entries e WHERE e.rowid IN ({marks})"
    return con.execute(sql, rids).fetchall()


@functools.lru_cache(maxsize=64)
def _live_sql(n: int) -> str:
    # What changes without a write to the index: the access counts, and with them and
    # the time the attention (the columns after ``reviewed`` in ROW_COLUMNS).
    marks = ",".join(f":r{i}" for i in range(n))
    return (
        f"SELECT e.rowid, {ROW_COLUMNS['access_count']}, {ROW_COLUMNS['last_accessed']},"
        f" {attention_sql()} FROM {ROW_TABLES} WHERE e.rowid IN ({marks})"
    )


def _merged(first: list[Row], wide: list[Row], ranking: Ranking, limit: int) -> list[Row]:
    """The all-words hits widened by the any-word pass's, the best ``limit``.

    bm25 is computed over the same terms in both passes, so an entry scores
    the same in either and the union is one bm25 order: all-word hits are not
    pinned, they simply score high (every term adds). A term split from a CJK
    phrase counts on its own here, which is what makes long Chinese questions
    match. Merged as result tuples: only the hits kept become rows.
    """
    best = {r[ID]: (ranking.score(r), r) for r in first}
    for r in wide:
        score = ranking.score(r)
        if r[ID] not in best or best[r[ID]][0] < score:
            best[r[ID]] = (score, r)
    # ranking_key's order: the score, then the newest indexed
    kept = sorted(best.values(), key=lambda t: (t[0], t[1][RID]), reverse=True)
    return [r for _, r in kept[:limit]]


def _by_attention(con: sqlite3.Connection, query: SearchQuery) -> list[IndexedMemory]:
    """A query without words (filters only): the most attended memories first."""
    where, params = filter_sql(query)
    sql = (
        f"SELECT {COLUMNS}, 1.0, {attention_sql()} AS att FROM {ROW_TABLES} WHERE {where}"
        " ORDER BY att DESC, e.updated DESC, e.rowid DESC LIMIT :limit"
    )
    params = {**params, "now": _now(query), "limit": max(1, query.limit)}
    return [row_of(r, query.ranking.relevance_floor) for r in con.execute(sql, params)]


@functools.lru_cache(maxsize=512)
def _with_candidates(candidates: str, final: str) -> str:
    # Candidate texts are cached per query shape (sqlite_postings), so this is too.
    return f"WITH c AS ({candidates}),{final}"


@dataclass(frozen=True)
class _Plan:
    """What a query's text asks for, analysed once per text (the analysis is pure)."""

    groups: tuple[SearchGroup, ...]  # the all-words pass
    wide: tuple[SearchGroup, ...]  # the any-word pass
    terms: tuple[str, ...] | None  # the groups' plain terms (None: FTS5 ranks them)
    wide_terms: tuple[str, ...] | None
    words: bool  # the text has words, maybe only stopwords


@functools.lru_cache(maxsize=256)
def _plan(text: str, max_cjk_phrase: int) -> _Plan:
    groups = search_groups(text, max_cjk_phrase=max_cjk_phrase)
    wide = relaxed_groups(groups)
    terms, wide_terms = postings.plain_terms(groups), postings.plain_terms(wide)
    return _Plan(
        tuple(groups),
        tuple(wide),
        None if terms is None else tuple(terms),
        None if wide_terms is None else tuple(wide_terms),
        bool(groups) or bool(analyze(text)),
    )


def _fts_group(group: SearchGroup) -> str:
    phrase = '"' + " ".join(t.replace('"', '""') for t in group.tokens) + '"'
    return phrase + " *" if group.prefix else phrase


def _fts_candidates(
    groups: Sequence[SearchGroup], every: bool, weights: Sequence[float], where: Built
) -> Built:
    """FTS5's own bm25 over the newest ``:cap`` matches (phrases and prefixes need it)."""
    w = ", ".join(str(float(x)) for x in weights)
    cond, params = where
    filtered = cond != "1"
    join = " JOIN entries e ON e.rowid = fts.rowid" if filtered else ""
    filt = f" AND {cond}" if filtered else ""
    match = (" AND " if every else " OR ").join(_fts_group(g) for g in groups)
    sql = (
        f"SELECT fts.rowid AS rid, -bm25(fts, {w}) AS rel FROM fts{join}"
        f" WHERE fts MATCH :match{filt} ORDER BY fts.rowid DESC LIMIT :cap"
    )
    return sql, {**params, "match": match}


def filtered_ids(con: sqlite3.Connection, query: SearchQuery) -> list[str]:
    """Ids of every entry that passes ``query``'s filters (text ignored)."""
    where, params = filter_sql(query)
    sql = f"SELECT e.id FROM entries e WHERE {where}"
    return [str(r[0]) for r in con.execute(sql, params)]


def rows_by_id(
    con: sqlite3.Connection, query: SearchQuery, scores: dict[str, float]
) -> list[IndexedMemory]:
    """Rows for ``scores``' ids that pass ``query``'s filters, with attention.

    The semantic path finds ids by vector; this checks them against the
    live entries (a forgotten or filtered-out memory never comes back) and
    attaches the same attention factor as lexical recall.
    """
    if not scores:
        return []
    where, filters = filter_sql(query)
    base = {**filters, "now": _now(query)}
    floor = query.ranking.relevance_floor
    out: list[IndexedMemory] = []
    ids = list(scores)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join(f":i{i}" for i in range(len(chunk)))
        sql = (
            f"SELECT {COLUMNS}, 0.0, {attention_sql()} FROM {ROW_TABLES}"
            f" WHERE e.id IN ({marks}) AND {where}"
        )
        params = {**base, **{f"i{i}": v for i, v in enumerate(chunk)}}
        for r in con.execute(sql, params):
            row = row_of(r)
            row.relevance = scores[row.id]
            row.score = combine(row.relevance, row.attention, floor)
            out.append(row)
    out.sort(key=ranking_key, reverse=True)
    return out
