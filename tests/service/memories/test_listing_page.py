"""One page of the memory listing is the same slice of the same order as the whole listing
(issue 16): the heat computed in SQL (store/memories/listing_sql.py) agrees with the core's
``decide_tier`` on generated memories of every sector, tier, age, confidence and use."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_memory import Memory
from jupyter_memory.exceptions import ValidationError

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)

memories = st.lists(
    st.tuples(
        st.sampled_from(["episodic", "semantic", "procedural", "reflective"]),
        st.sampled_from(["session", "daily", "durable"]),
        st.floats(min_value=0, max_value=500),  # age in days
        st.sampled_from([1.0, 0.9, 0.6, 0.3]),  # confidence
        st.integers(min_value=0, max_value=40),  # times recalled
        st.floats(min_value=0, max_value=200),  # days since the last recall
    ),
    min_size=1,
    max_size=25,
)


# 25 homes of up to 25 memories each: every sector, tier and heat boundary is drawn
# many times over (40 cost a second more).
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=memories, limit=st.integers(1, 8), offset=st.integers(0, 12), cold=st.booleans())
def test_a_page_is_a_slice_of_the_whole_listing(tmp_path_factory, items, limit, offset, cold):
    home = tmp_path_factory.mktemp("page") / "home"
    mem = Memory(home=home, clock=lambda: NOW)
    for i, (sector, tier, age, confidence, uses, since_use) in enumerate(items):
        # Distinct update times: the order within a heat is newest first, no ties.
        created = NOW - timedelta(days=age, seconds=i)
        entry = mem.remember(
            f"memory {i} about refunds", type=sector, tier=tier, confidence=confidence,
            created=created,
        )  # fmt: skip
        if uses:
            at = NOW - timedelta(days=min(since_use, age))
            for _ in range(uses):
                mem.hooks.user.record_access([entry.id], at)
    whole = [r["id"] for r in mem.memories(include_cold=cold)]
    page = mem.hooks.list_page(limit=limit, offset=offset, include_cold=cold)
    assert [r["id"] for r in page.rows] == whole[offset : offset + limit]
    assert page.total == len(items)
    assert page.more == (len(whole) > offset + len(page.rows))
    assert {r["heat"] for r in page.rows} <= ({"HOT", "WARM", "COLD"} if cold else {"HOT", "WARM"})
    mem.close()


def test_list_with_a_limit_reads_one_page(tmp_path: Path):
    mem = Memory(home=tmp_path / "home", clock=lambda: NOW)
    for i in range(30):
        mem.remember(f"收入 note {i}", created=NOW - timedelta(hours=i))
    assert [r["title"] for r in mem.memories(limit=3)] == [
        "收入 note 0",
        "收入 note 1",
        "收入 note 2",
    ]
    page = mem.hooks.list_page(limit=10, offset=25)
    assert len(page.rows) == 5 and page.total == 30 and not page.more
    with pytest.raises(ValidationError) as info:
        mem.hooks.list_page(limit=0)
    assert info.value.field == "limit"
