"""No score-0 filler in hybrid recall (issue 33): the issue's "refunds" and "退款" homes."""

from __future__ import annotations

from dataclasses import replace

from jupyter_memory import Memory
from jupyter_memory.core.memories.ranking import DEFAULT_RANKING
from jupyter_memory.core.memories.recall_query import RecallQuery

NOTES = [
    "Revenue excludes refunds; refunds are booked separately",
    "收入口径不含退款，退款单独记账",
    "Always dedupe orders on order_id before joining",
    "华东区的销售数据每周一更新",
    "Use absolute imports in the package",
    "Quarterly targets are set by the finance team",
    "Plot figures with matplotlib's constrained layout",
]


def _scores(mem: Memory, text: str, **ranking: float) -> list[tuple[float, str]]:
    q = RecallQuery(
        text=text,
        mode="hybrid",
        record_access=False,
        ranking=replace(DEFAULT_RANKING, **ranking),
    )
    return [(h.score, h.title) for h in mem.hooks.recall_query(q)]


def test_no_hit_scores_zero(memory_home, clock):
    with Memory(home=memory_home, clock=clock, semantic=True) as mem:
        for text in NOTES:
            mem.remember(text)
        assert mem.hooks.semantic.wait(timeout=600)
        for query in ("refunds", "退款"):
            # Without the bound the embedder's weakest candidate comes back at 0.
            before = _scores(mem, query, semantic_min_scaled=0.0)
            assert any(score == 0 for score, _ in before), before
            hits = _scores(mem, query)
            assert hits and all(score > 0 for score, _ in hits), hits
            # The memories holding the word are still there, first.
            assert any("refunds" in t or "退款" in t for _, t in hits[:2]), hits
