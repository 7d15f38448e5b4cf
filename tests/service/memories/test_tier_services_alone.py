"""TiersService and ColdArchive built from a ServiceContext alone (no ``Memory``), on real files."""

from __future__ import annotations

from datetime import timedelta

import pytest

from jupyter_memory.service.memories.cold_archive import ColdArchive
from jupyter_memory.service.memories.tier_results import (
    ColdArchiveReport,
    DailyMerge,
    SessionStart,
)
from jupyter_memory.service.memories.tiers import TiersService
from tests.service.learning_helpers import UserLayerMemories, open_context


@pytest.fixture
def ctx(memory_home, clock):
    c = open_context(memory_home, clock)
    yield c
    c.user.close()


@pytest.fixture
def ops(ctx):
    return UserLayerMemories(ctx)


@pytest.fixture
def tiers(ctx, ops):
    return TiersService(ctx, ops)


def test_start_session_merges_yesterdays_daily_memories_into_one(ctx, ops, tiers, clock):
    a = ops.remember("Checked the refund totals", tier="daily", type="episodic")
    b = ops.remember("Exported the Q3 sheet", tier="daily", type="episodic")
    old = ops.remember("stale scratch note", tier="session", type="episodic")
    clock.advance(days=1)
    started = tiers.start_session("kernel-1")
    assert isinstance(started, SessionStart)
    assert started.cleared == [old.id] and started.skipped is None
    (merge,) = started.merged
    assert isinstance(merge, DailyMerge) and sorted(merge.merged) == [a.id, b.id]
    assert started.to_dict() == {
        "session_key": "kernel-1",
        "cleared": [old.id],
        "merged": [{"id": merge.id, "day": merge.day, "merged": merge.merged, "reviewed": True}],
    }
    merged = ops.get(merge.id)
    assert "- Checked the refund totals" in merged.text and "- Exported the Q3 sheet" in merged.text
    assert [r.id for r in ctx.user.rows()] == [merge.id]
    actions = [r["action"] for r in ctx.audit.records()]
    assert actions == ["clear-session", "merge"]
    # the extension loaded again in the same kernel: nothing is cleared or merged
    again = tiers.start_session("kernel-1")
    assert again.to_dict() == {
        "session_key": "kernel-1",
        "cleared": [],
        "merged": [],
        "skipped": "running",
    }
    tiers.end_session("kernel-1")


def test_a_disabled_memory_starts_a_session_without_housekeeping(ctx, tiers):
    ctx.settings.update(enabled=False)
    assert tiers.start_session("k").to_dict()["skipped"] == "disabled"


def test_cold_archive_moves_a_cold_stale_memory_and_restores_it(ctx, ops, tiers, clock):
    episode = ops.remember(
        "Exported the Q3 sheet for Ana",
        type="episodic",
        tier="daily",
        created=clock.now - timedelta(days=95),
    )
    ops.remember("Revenue excludes refunds", type="semantic")
    cold = ColdArchive(ctx, tiers)
    dry = cold.archive(dry_run=True)
    assert isinstance(dry, ColdArchiveReport) and dry.count == 1
    assert list(dry.to_dict()) == ["dry_run", "archived", "count"]
    assert list(dry.archived[0].to_dict()) == ["id", "title", "layer", "attention", "path"]
    assert ctx.user.name_of(episode.id) is not None  # a dry run moves nothing
    done = cold.archive()
    (item,) = done.archived
    assert item.id == episode.id and item.archived_path is not None
    assert "archived_path" in item.to_dict()
    assert ctx.user.name_of(episode.id) is None
    assert [a.to_dict() for a in cold.archived()] == [
        {"id": episode.id, "layer": "user", "name": item.archived_path.rsplit("/", 1)[1]}
    ]
    back = cold.restore(episode.id)
    assert back.to_dict() == {"id": episode.id, "layer": "user", "path": back.path}
    assert ops.get(episode.id).text == "Exported the Q3 sheet for Ana"
    assert cold.archived() == []
    with pytest.raises(KeyError):
        cold.restore(episode.id)
