"""Per-sector TTLs (spec 003 "按领域衰减") and the tier decision at fixed clock times."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_memory.core.memories.sectors import decide_tier, expired, sector_age_days, ttl_days

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


def days_ago(n: float) -> datetime:
    return NOW - timedelta(days=n)


def test_base_ttls_by_sector():
    assert ttl_days("episodic") == 7.0
    assert ttl_days("semantic") == 365.0
    assert ttl_days("procedural") == 30.0
    assert ttl_days("reflective") is None
    # use stretches episodes and workflows, at most by the access cap (1.5)
    assert 7.0 < ttl_days("episodic", 5) < 10.5
    assert ttl_days("procedural", 10_000) == pytest.approx(45.0)
    assert ttl_days("semantic", 50) == 365.0


def test_episodic_ages_from_its_update_even_when_recalled():
    kw = {"access_count": 0, "now": NOW}
    assert not expired("episodic", updated=days_ago(6), last_accessed=None, **kw)
    assert expired("episodic", updated=days_ago(8), last_accessed=days_ago(0), **kw)


def test_procedural_clock_restarts_at_each_use():
    assert expired("procedural", updated=days_ago(40), last_accessed=None, access_count=0, now=NOW)
    assert not expired(
        "procedural", updated=days_ago(40), last_accessed=days_ago(2), access_count=1, now=NOW
    )


def test_reflective_never_expires_nor_archives():
    verdict = decide_tier(
        sector="reflective",
        tier="session",
        updated=days_ago(5000),
        last_accessed=None,
        access_count=0,
        confidence=1.0,
        now=NOW,
    )
    assert not verdict.expired and not verdict.archive and verdict.heat == "COLD"


@pytest.mark.parametrize(
    ("sector", "tier", "age", "heat", "archive"),
    [
        ("semantic", "durable", 0, "HOT", False),  # fresh
        ("semantic", "durable", 60, "WARM", False),  # 0.99^60 = 0.55
        ("semantic", "durable", 200, "COLD", False),  # score 0.13, TTL (365) not over
        ("semantic", "durable", 400, "COLD", True),  # past TTL, score 0.018, 90+ days
        ("episodic", "durable", 10, "COLD", False),  # score 0.90 but past 7-day TTL
        ("episodic", "daily", 100, "COLD", True),
        ("procedural", "session", 20, "COLD", False),  # 0.5^20, within its 30 days
        ("procedural", "session", 95, "COLD", True),
    ],
)
def test_decisions_at_fixed_clock_times(sector, tier, age, heat, archive):
    verdict = decide_tier(
        sector=sector,
        tier=tier,
        updated=days_ago(age),
        last_accessed=None,
        access_count=0,
        confidence=1.0,
        now=NOW,
    )
    assert (verdict.heat, verdict.archive) == (heat, archive)


@given(
    sector=st.sampled_from(["episodic", "semantic", "procedural", "reflective"]),
    tier=st.sampled_from(["session", "daily", "durable"]),
    age=st.floats(min_value=0, max_value=3000),
    uses=st.integers(min_value=0, max_value=10_000),
    confidence=st.floats(min_value=0, max_value=1),
)
def test_archive_implies_cold_low_score_and_ninety_days(sector, tier, age, uses, confidence):
    verdict = decide_tier(
        sector=sector,
        tier=tier,
        updated=days_ago(age),
        last_accessed=None,
        access_count=uses,
        confidence=confidence,
        now=NOW,
    )
    assert 0.0 <= verdict.attention <= 1.0
    if verdict.archive:
        assert verdict.heat == "COLD" and verdict.attention < 0.1 and age >= 90
    if verdict.expired:
        assert verdict.heat == "COLD"


@given(
    sector=st.sampled_from(["episodic", "semantic", "procedural", "reflective", "other"]),
    updated=st.floats(min_value=0, max_value=800),
    accessed=st.none() | st.floats(min_value=0, max_value=800),
    uses=st.integers(min_value=0, max_value=10_000),
)
def test_expired_is_the_ttl_against_the_sector_age(sector, updated, accessed, uses):
    # expired() must say what ttl_days and sector_age_days say together.
    up, last = days_ago(updated), None if accessed is None else days_ago(accessed)
    ttl = ttl_days(sector, uses)
    age = sector_age_days(sector, updated=up, last_accessed=last, now=NOW)
    assert expired(sector, updated=up, last_accessed=last, access_count=uses, now=NOW) == (
        ttl is not None and age > ttl
    )
