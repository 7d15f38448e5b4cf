"""``%memories`` on a large home shows one page and says where the rest is (issue 16)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from jupyter_memory.store.root import StoreRoot


def test_memories_shows_the_first_page_with_a_hint(ip, magics):
    mem = magics.service
    now = datetime.now(timezone.utc)
    for i in range(30):
        mem.remember(f"收入口径 note {i}", created=now - timedelta(minutes=i))
    limit = magics.limit
    assert limit < 30
    rows = ip.run_line_magic("memories", "")
    assert [r["title"] for r in rows] == [f"收入口径 note {i}" for i in range(limit)]
    assert f"first {limit} shown of 30 memories (COLD ones only with --all)" in rows.caption
    assert "%memories --limit N" in rows.caption and "%memories --limit N" in repr(rows)
    everything = ip.run_line_magic("memories", "--limit 50")
    assert len(everything) == 30 and "first" not in everything.caption


def test_memories_reads_only_the_page_not_every_row(ip, magics, monkeypatch: pytest.MonkeyPatch):
    """Listing used to decide the heat of every memory in Python: seconds at 100,000."""
    mem = magics.service
    for i in range(5):
        mem.remember(f"note {i}")

    def every_row(self: StoreRoot) -> list:
        raise AssertionError("%memories read every row of the index")

    monkeypatch.setattr(StoreRoot, "rows", every_row)
    assert len(ip.run_line_magic("memories", "--limit 3")) == 3
    assert len(ip.run_line_magic("memories", "--all --limit 2")) == 2
