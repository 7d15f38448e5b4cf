"""Tiers on real files: sector-aware heat, session-tier clearing, one digest per day, archive."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta

import pytest

from jupyter_memory.exceptions import NotFoundError
from jupyter_memory.store.learning.session_registry import SessionRegistry


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# ---- heat and stats ------------------------------------------------------------------------


def test_list_orders_hot_then_warm_and_an_expired_episode_is_cold(mem, clock):
    fresh = mem.remember("Revenue excludes refunds", type="semantic")
    warm = mem.remember(
        "Quarterly close runs on day 3", type="semantic", created=clock.now - timedelta(days=60)
    )
    episode = mem.remember(
        "Exported the Q3 sheet for Ana", type="episodic", created=clock.now - timedelta(days=9)
    )
    rows = mem.memories()
    by_id = {r["id"]: r for r in rows}
    assert [r["id"] for r in rows] == [fresh.id, warm.id, episode.id]
    assert by_id[fresh.id]["heat"] == "HOT" and by_id[warm.id]["heat"] == "WARM"
    # attention alone (durable, 9 days) would be HOT; the 7-day episodic TTL made it COLD
    assert by_id[episode.id]["attention"] > 0.7
    assert by_id[episode.id]["heat"] == "COLD" and by_id[episode.id]["expired"]
    assert [r["id"] for r in mem.memories(include_cold=False)] == [fresh.id, warm.id]
    hits = mem.recall("", limit=10, record_access=False)
    assert {h.id: h.heat for h in hits}[episode.id] == "COLD"
    stats = mem.stats()
    assert stats["by_heat"] == {"HOT": 1, "WARM": 1, "COLD": 1}
    assert stats["by_tier"] == {"durable": 3}


def test_memories_frame_carries_score_and_tier(mem):
    from jupyter_memory.frames import memories_frame

    mem.remember("收入口径不含退款", type="semantic", tier="daily")
    frame = memories_frame(mem)
    assert list(frame["tier"]) == ["daily"] and list(frame["heat"]) == ["HOT"]
    assert str(frame["attention"].dtype) == "float64" and frame["attention"][0] == 1.0


def test_archive_keeps_a_semantic_fact_for_its_year(mem, clock):
    fact = mem.remember(
        "The fiscal year starts in April", type="semantic", created=clock.now - timedelta(days=300)
    )
    episode = mem.remember(
        "Ran the April export",
        type="episodic",
        tier="daily",
        created=clock.now - timedelta(days=95),
    )
    assert [a["id"] for a in mem.archive(dry_run=True)["archived"]] == [episode.id]
    clock.advance(days=70)  # the fact is now 370 days old: past its TTL, score 0.02
    assert {a["id"] for a in mem.archive()["archived"]} == {fact.id, episode.id}
    with pytest.raises(NotFoundError):
        mem.get(fact.id)
    mem.restore(fact.id)
    assert mem.get(fact.id).text == "The fiscal year starts in April"


# ---- session tier ----------------------------------------------------------------------------


def test_a_new_session_clears_session_memories_of_ended_sessions(mem, clock, memory_home):
    scratch = mem.remember("scratch: df2 is the deduplicated frame", tier="session")
    keep = mem.remember("Always dedupe on order_id", tier="durable")
    SessionRegistry(memory_home).register("old-kernel", clock.now, pid=_dead_pid())
    clock.advance(hours=2)
    report = mem.hooks.start_session("new-kernel")
    assert report["cleared"] == [scratch.id]
    with pytest.raises(NotFoundError):
        mem.get(scratch.id)
    assert mem.get(keep.id)
    actions = [r["action"] for r in mem.hooks.audit.records()]
    assert "clear-session" in actions and actions.count("delete") == 1


def test_a_running_sessions_memories_are_not_cleared(mem, clock, memory_home):
    before = mem.remember("from a session that ended", tier="session")
    clock.advance(hours=1)
    # another kernel, still running (this test process), started now
    SessionRegistry(memory_home).register("running-kernel", clock.now, pid=os.getpid())
    clock.advance(minutes=5)
    theirs = mem.remember("会话内临时结论：df2 已去重", tier="session")
    clock.advance(minutes=5)
    report = mem.hooks.start_session("new-kernel")
    assert report["cleared"] == [before.id]
    assert mem.get(theirs.id).meta.tier.value == "session"
    # once the other kernel is gone, the next start clears it
    SessionRegistry(memory_home).unregister("running-kernel")
    mem.hooks.end_session("new-kernel")
    clock.advance(minutes=1)
    assert mem.hooks.start_session("third-kernel")["cleared"] == [theirs.id]


def test_loading_again_in_the_same_kernel_is_not_a_new_session(mem, clock):
    assert mem.hooks.start_session("k")["cleared"] == []
    mine = mem.remember("scratch of this session", tier="session")
    clock.advance(minutes=10)
    again = mem.hooks.start_session("k")
    assert again["cleared"] == [] and again["skipped"] == "running"
    assert mem.get(mine.id)


def test_a_dead_session_in_the_registry_is_dropped(memory_home, clock):
    registry = SessionRegistry(memory_home)
    registry.register("gone", clock.now, pid=_dead_pid())
    others, before = registry.register("new", clock.now)
    assert others == [] and before is None


def test_nothing_is_cleared_or_merged_while_memory_is_off(mem, clock):
    mem.remember("scratch", tier="session")
    mem.update_settings(enabled=False)
    clock.advance(days=1)
    report = mem.hooks.start_session("k")
    assert report["cleared"] == [] and report["skipped"] == "disabled"
    assert len(mem.memories()) == 1


# ---- one digest per day --------------------------------------------------------------------


def _digest_memory(mem, text: str):
    return mem.remember(
        text,
        type="episodic",
        tier="daily",
        source="session-digest",
        reviewed=False,
        tags=["work_task"],
        evidence=[{"quote": text, "source": "k#c1"}],
    )


def test_past_days_daily_memories_merge_into_one_digest(mem, clock):
    a = _digest_memory(mem, "TODO: reconcile refunds with the ledger")
    clock.advance(hours=1)
    b = _digest_memory(mem, "下一步：核对退款与总账")
    manual = mem.remember("Met Ana about the close", type="episodic", tier="daily")
    today = mem.remember("A durable rule", tier="durable")
    assert mem.hooks.merge_daily() == []  # still today: nothing to merge
    clock.advance(days=1)
    late = _digest_memory(mem, "TODO: today's task stays apart")
    (merged,) = mem.hooks.merge_daily()
    assert sorted(merged["merged"]) == sorted([a.id, b.id]) and merged["reviewed"] is False
    digest = mem.get(merged["id"])
    assert digest.meta.tier.value == "daily" and digest.meta.reviewed is False
    assert digest.meta.title == f"Daily digest {(clock.now - timedelta(days=1)).date()}"
    assert "reconcile refunds" in digest.text and "核对退款与总账" in digest.text
    assert "daily-digest" in digest.meta.tags and len(digest.meta.evidence) == 2
    for gone in (a, b):
        with pytest.raises(NotFoundError):
            mem.get(gone.id)
    # a single reviewed memory of that day is left as it is; today's are not touched
    assert mem.get(manual.id) and mem.get(today.id) and mem.get(late.id)
    assert any(r["action"] == "merge" and r["id"] == digest.id for r in mem.hooks.audit.records())
    assert mem.hooks.merge_daily() == []  # idempotent


def test_a_late_memory_of_a_merged_day_extends_that_days_digest(mem, clock):
    day = clock.now
    _digest_memory(mem, "TODO: first task")
    _digest_memory(mem, "TODO: second task")
    clock.advance(days=1)
    (first,) = mem.hooks.merge_daily()
    late = mem.remember(
        "TODO: third task",
        type="episodic",
        tier="daily",
        source="session-digest",
        reviewed=False,
        created=day + timedelta(hours=3),
    )
    (second,) = mem.hooks.merge_daily()
    assert second["id"] == first["id"] and second["merged"] == [late.id]
    text = mem.get(first["id"]).text
    assert text.count("first task") == 1 and "third task" in text
    assert len([r for r in mem.memories() if "daily-digest" in r["tags"]]) == 1


def test_unreviewed_memories_are_never_merged_into_a_reviewed_digest(mem, clock):
    mem.remember("Reviewed note one", type="episodic", tier="daily")
    mem.remember("Reviewed note two", type="episodic", tier="daily")
    _digest_memory(mem, "TODO: unreviewed one")
    _digest_memory(mem, "TODO: unreviewed two")
    clock.advance(days=1)
    merged = mem.hooks.merge_daily()
    assert sorted(m["reviewed"] for m in merged) == [False, True]
    for m in merged:
        entry = mem.get(m["id"])
        assert entry.meta.reviewed is m["reviewed"]
        assert ("unreviewed" in entry.text) is (not m["reviewed"])
