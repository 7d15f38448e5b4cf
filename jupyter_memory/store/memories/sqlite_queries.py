"""The SQL of recall over the FTS5 index: filters, the attention factor, bounded ranking.

Pure query building and reading over an open connection (the connection, its
files and its life cycle belong to :class:`.sqlite_index.SqliteIndex`).

* Ranking work is bounded: at most ``candidate_cap`` matches (newest first) are
  scored; an all-words query is tried first and widened to any-word only when
  it returns fewer than the limit. Both passes score with the same bm25 over
  the same terms, so the widened list is one bm25 order (docs/recall.md).
* Every ranking constant comes from the query's
  :class:`~jupyter_memory.core.memories.ranking.RankingParams`.
"""

from __future__ import annotations

import functools
import json
import operator
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ...core.memories.attention import (
    ACCESS_CAP,
    ACCESS_WEIGHT,
    DECAY,
    RELEVANCE_FLOOR,
    combine,
)
from ...core.memories.ranking import DEFAULT_RANKING
from ...core.text import SearchGroup, analyze, relaxed_groups, search_groups
from . import sqlite_postings as postings
from .search_index import IndexedMemory, SearchQuery, ranking_key
from .sqlite_db import dt, ts

# The production values (core/memories/ranking.py); a query may carry others.
CANDIDATE_CAP = DEFAULT_RANKING.candidate_cap
RERANK_POOL = DEFAULT_RANKING.rerank_pool
BM25_WEIGHTS = DEFAULT_RANKING.bm25_weights


def _fts_group(group: SearchGroup) -> str:
    phrase = '"' + " ".join(t.replace('"', '""') for t in group.tokens) + '"'
    return phrase + " *" if group.prefix else phrase


COLUMNS = (
    "e.id, e.name, e.title, e.type, e.tier, e.scope, e.project, e.tags, e.source,"
    " e.confidence, e.created, e.updated, e.reviewed,"
    " COALESCE(a.access_count, 0), a.last_accessed, e.rowid"
)


def all_rows(con: sqlite3.Connection) -> list[IndexedMemory]:
    """Every entry with its access counts, newest first."""
    sql = (
        f"SELECT {COLUMNS}, 0.0, 0.0 FROM entries e"
        " LEFT JOIN acc.access a ON a.id = e.id ORDER BY e.updated DESC"
    )
    return [row_of(r) for r in con.execute(sql)]


@functools.lru_cache(maxsize=1 << 14)
def _time(stamp: float) -> datetime:
    # The same few thousand rows come back recall after recall; a datetime is immutable.
    return dt(stamp)


@functools.lru_cache(maxsize=1 << 12)
def _tags(text: str) -> tuple[str, ...]:
    return tuple(json.loads(text))


_new_row = object.__new__


def row_of(r: Sequence[Any], floor: float = RELEVANCE_FLOOR) -> IndexedMemory:
    """The row of one result tuple (``COLUMNS``, relevance, attention).

    Built as ``IndexedMemory(...)`` would build it, without the dataclass's
    ``__init__`` (a recall builds up to twenty; the test holds the two equal).
    """
    relevance, attention = float(r[16]), float(r[17])
    row = _new_row(IndexedMemory)
    row.__dict__ = {
        "id": r[0],
        "name": r[1],
        "title": r[2],
        "type": r[3],
        "tier": r[4],
        "scope": r[5],
        "project": r[6],
        "tags": [] if r[7] == "[]" else list(_tags(r[7])),
        "source": r[8],
        "confidence": r[9],
        "created": _time(r[10]),
        "updated": _time(r[11]),
        "reviewed": bool(r[12]),
        # combine() at floor 1.0 is the relevance itself (× 1.0 + 0.0 × a finite attention)
        "score": relevance if floor == 1.0 else combine(relevance, attention, floor),
        "relevance": relevance,
        "attention": attention,
        "access_count": int(r[13]),
        "last_accessed": None if r[14] is None else _time(r[14]),
        "extra": {},
        "rid": int(r[15]),
    }
    return row


def _filters(q: SearchQuery) -> tuple[str, list[Any]]:
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


@functools.cache
def attention_sql() -> str:
    # Mirrors core.attention.attention_score; computed in SQL so only the
    # final top-k rows cross into Python.
    decay = " ".join(f"WHEN '{t}' THEN {1 - d!r}" for t, d in DECAY.items())
    age = "MAX(0.0, (:now - MAX(e.updated, COALESCE(a.last_accessed, 0))) / 86400.0)"
    access = f"MIN({ACCESS_CAP}, 1.0 + {ACCESS_WEIGHT} * ln(1 + COALESCE(a.access_count, 0)))"
    return (
        f"MIN(1.0, MAX(0.0, pow(CASE e.tier {decay} ELSE 0.99 END, {age})"
        f" * {access} * e.confidence))"
    )


def _named_filters(query: SearchQuery) -> tuple[str, dict[str, Any], bool]:
    where, args = _filters(query)
    now = ts(query.now or datetime.now(timezone.utc))
    cap = query.ranking.candidate_cap
    params: dict[str, Any] = {"now": now, "limit": max(1, query.limit), "cap": cap}
    for i, value in enumerate(args):
        where = where.replace("?", f":f{i}", 1)
        params[f"f{i}"] = value
    return where, params, where != "1"


def search(con: sqlite3.Connection, query: SearchQuery) -> list[IndexedMemory]:
    """Ranked hits for ``query``: bm25 × attention over a bounded candidate set."""
    where, params, filtered = _named_filters(query)
    att = attention_sql()
    rank = query.ranking
    floor = rank.relevance_floor
    plan = _plan(query.text, rank.max_cjk_phrase)
    groups = plan.groups
    if not groups:
        if plan.words:
            return []  # only stopwords: nothing to look for
        sql = (
            f"SELECT {COLUMNS}, 1.0, {att} AS att FROM entries e"
            f" LEFT JOIN acc.access a ON a.id = e.id WHERE {where}"
            " ORDER BY att DESC, e.updated DESC, e.rowid DESC LIMIT :limit"
        )
        return [row_of(r, floor) for r in con.execute(sql, params)]
    limit = max(1, query.limit)
    # A limit that covers every match reaches every match: the bound never
    # hides a memory that was asked for (recall of a Chinese word is 1.00);
    # each pass sets its own cap (ranked), never below the limit.
    # With a floor of 1.0 attention cannot move a hit (score = relevance), so
    # the pool is the limit itself: the same hits, a third of the joins.
    params["pool"] = limit if floor == 1.0 else limit * rank.rerank_pool
    stats: dict[tuple[str, ...], postings.TermStats] = {}

    def ranked(
        pass_groups: Sequence[SearchGroup], terms: Sequence[str] | None, every: bool
    ) -> list[Any]:
        params["cap"] = max(rank.all_words_cap if every else rank.candidate_cap, limit)
        c: str | None
        if terms is None:
            c = _fts_candidates(pass_groups, params, every, rank.bm25_weights, where, filtered)
        else:
            key = tuple(sorted(terms))
            if key not in stats:
                stats[key] = postings.statistics(con, terms, postings.IDF[rank.idf])
            c = postings.candidates_sql(
                terms,
                stats[key],
                params,
                every=every,
                weights=rank.bm25_weights,
                where=where if filtered else None,
            )
            if c is None:
                return []
        found = con.execute(_full_sql(c, floor), params).fetchall()
        if floor == 1.0:  # `top` is the best `limit`: put in the SQL's order here
            found.sort(key=_RELEVANCE_ROWID, reverse=True)
        return found

    wide = plan.wide
    if rank.relaxation == "any":  # one any-word pass, as plain BM25
        return [row_of(r, floor) for r in ranked(wide, plan.wide_terms, every=False)]
    found = ranked(groups, plan.terms, every=True)
    if len(found) < query.limit and len(wide) > 1:
        # Widen to any word. bm25 is computed over the same terms in both
        # passes, so an entry scores the same in either and the union is
        # one bm25 order: all-word hits are not pinned, they simply score
        # high (every term adds). A term split from a CJK phrase counts on
        # its own here, which is what makes long Chinese questions match.
        # Merged as result tuples: only the hits kept become rows.
        best = {r[0]: (_score(r, floor), r) for r in found}
        for r in ranked(wide, plan.wide_terms, every=False):
            score = _score(r, floor)
            if r[0] not in best or best[r[0]][0] < score:
                best[r[0]] = (score, r)
        # ranking_key's order: the score, then the newest indexed (COLUMNS' e.rowid)
        kept = sorted(best.values(), key=lambda t: (t[0], t[1][15]), reverse=True)
        found = [r for _, r in kept[: query.limit]]
    return [row_of(r, floor) for r in found]


@functools.lru_cache(maxsize=512)
def _full_sql(candidates: str, floor: float) -> str:
    # Candidate texts are cached per query shape (sqlite_postings), so this is too.
    return f"WITH c AS ({candidates}),{_outer_sql(floor)}"


@functools.lru_cache(maxsize=8)
def _outer_sql(floor: float) -> str:
    """The steps after ``c`` (the newest ``:cap`` matches with bm25): the
    ``:pool`` most relevant of them get the attention factor, the best
    ``:limit`` come back. Relevance dominates by design (attention scales it
    by relevance_floor–1.0), so re-ranking a pool is enough. With a floor of
    1.0 the score is the relevance to the bit (0.0 × a finite attention adds
    nothing) and the pool is the limit: the rows are put in the order of the
    final sort, (relevance, rowid) descending, in Python instead."""
    final = (
        ""
        if floor == 1.0
        else f" ORDER BY top.rel * ({floor!r} + {1 - floor!r} * att) DESC, e.rowid DESC"
        " LIMIT :limit"
    )
    return (
        " top AS (SELECT rid, rel FROM c ORDER BY rel DESC, rid DESC LIMIT :pool)"
        f" SELECT {COLUMNS}, top.rel, {attention_sql()} AS att FROM top"
        f" JOIN entries e ON e.rowid = top.rid LEFT JOIN acc.access a ON a.id = e.id{final}"
    )


# A result tuple's relevance and e.rowid (COLUMNS, then relevance, attention).
_RELEVANCE_ROWID = operator.itemgetter(16, 15)


def _score(r: Sequence[Any], floor: float) -> float:
    """The score :func:`row_of` gives the row of result tuple ``r``."""
    return combine(float(r[16]), float(r[17]), floor)


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


def _fts_candidates(
    groups: Sequence[SearchGroup],
    params: dict[str, Any],
    every: bool,
    weights: Sequence[float],
    where: str,
    filtered: bool,
) -> str:
    """FTS5's own bm25 over the newest ``:cap`` matches (phrases and prefixes need it)."""
    w = ", ".join(str(float(x)) for x in weights)
    join = "" if not filtered else " JOIN entries e ON e.rowid = fts.rowid"
    filt = "" if not filtered else f" AND {where}"
    params["match"] = (" AND " if every else " OR ").join(_fts_group(g) for g in groups)
    return (
        f"SELECT fts.rowid AS rid, -bm25(fts, {w}) AS rel FROM fts{join}"
        f" WHERE fts MATCH :match{filt} ORDER BY fts.rowid DESC LIMIT :cap"
    )


def filtered_ids(con: sqlite3.Connection, query: SearchQuery) -> list[str]:
    """Ids of every entry that passes ``query``'s filters (text ignored)."""
    where, params, _ = _named_filters(query)
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
    where, params, _ = _named_filters(query)
    att = attention_sql()
    out: list[IndexedMemory] = []
    ids = list(scores)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join(f":i{i}" for i in range(len(chunk)))
        params.update({f"i{i}": v for i, v in enumerate(chunk)})
        sql = (
            f"SELECT {COLUMNS}, 0.0, {att} FROM entries e"
            f" LEFT JOIN acc.access a ON a.id = e.id WHERE e.id IN ({marks}) AND {where}"
        )
        for r in con.execute(sql, params):
            row = row_of(r)
            row.relevance = scores[row.id]
            row.score = combine(row.relevance, row.attention, query.ranking.relevance_floor)
            out.append(row)
    out.sort(key=ranking_key, reverse=True)
    return out
