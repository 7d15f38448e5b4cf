"""Many hits with the same score come back in one total order (issue 16 paging).

The REST search pages by asking recall for ``offset + limit + 1`` hits; if equal
scores came back in whatever order SQLite's sort left them, page two could
repeat page one's hits and skip others (found with 25 near-identical notes).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from jupyter_memory import Memory


def test_a_shorter_recall_is_a_prefix_of_a_longer_one(mem: Memory):
    now = datetime.now(timezone.utc)
    for i in range(40):
        mem.remember(f"退款 refunds rule {i}", created=now - timedelta(minutes=i % 7))
    for query in ("refunds", "退款", "refunds rule"):
        longest = [h.id for h in mem.recall(query, limit=40, mode="lexical")]
        assert len(longest) == len(set(longest)) == 40
        for limit in (5, 10, 11, 21, 31):
            ids = [h.id for h in mem.recall(query, limit=limit, mode="lexical")]
            assert ids == longest[:limit], (query, limit)
