"""The attention re-rank of lexical recall, for ranking floors below 1.0 only.

Production ranks by relevance alone (``RankingParams.relevance_floor`` 1.0:
attention plays no part in recall order, docs/recall.md). A floor below 1.0
scales each candidate's relevance by ``floor + (1 − floor) × attention``;
``benchmarks/ranking_cv.py`` cross-validates such floors through the
production query path, which is why this exists. Relevance still dominates
(attention scales it by floor…1.0), so re-ranking the ``rerank_pool × limit``
most relevant candidates is enough.
"""

from __future__ import annotations

import functools

from ...core.memories.attention import combine
from .sqlite_result import ATTENTION, COLUMNS, RELEVANCE, Built, Ranking, Row, attention_sql


@functools.lru_cache(maxsize=8)
def _reranked_sql(floor: float) -> str:
    return (
        " top AS (SELECT rid, rel FROM c ORDER BY rel DESC, rid DESC LIMIT :pool)"
        f" SELECT {COLUMNS}, top.rel, {attention_sql()} AS att FROM top"
        " JOIN entries e ON e.rowid = top.rid LEFT JOIN acc.access a ON a.id = e.id"
        f" ORDER BY top.rel * ({floor!r} + {1 - floor!r} * att) DESC, e.rowid DESC"
        " LIMIT :limit"
    )


@functools.lru_cache(maxsize=8)
def ranking(floor: float, pool: int) -> Ranking:
    """The :class:`~.sqlite_result.Ranking` of ``floor``, re-ranking ``pool`` × limit."""

    def final(limit: int) -> Built:
        return _reranked_sql(floor), {"limit": limit, "pool": limit * pool}

    def score(r: Row) -> float:
        return combine(float(r[RELEVANCE]), float(r[ATTENTION]), floor)

    return Ranking(final=final, score=score, floor=floor)
