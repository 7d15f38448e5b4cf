"""``Memory.recall`` and ``Memory.hooks.recall_query`` answer the same; adapters send a RecallQuery."""

from __future__ import annotations

from jupyter_memory import Memory
from jupyter_memory.core.memories.recall_query import RecallQuery


def test_recall_and_recall_query_agree(mem: Memory):
    mem.remember("退款按到账日统计", title="退款口径", tags=["finance"], type="semantic")
    mem.remember("Refund totals exclude chargebacks", tags=["finance"], tier="daily")
    mem.remember("Unrelated scratch", tags=["misc"])
    q = RecallQuery.of("退款", tags="finance", level="full", record_access=False)
    by_query = mem.hooks.recall_query(q)
    by_kwargs = mem.recall("退款", tags="finance", level="full", record_access=False)
    assert [h.to_dict() for h in by_query] == [h.to_dict() for h in by_kwargs]
    assert [h.title for h in by_query] == ["退款口径"] and by_query[0].level == "full"
    daily = mem.hooks.recall_query(RecallQuery.of("", tier="daily", level="index"))
    assert [h.text for h in daily] == [""] and daily[0].tier == "daily"
