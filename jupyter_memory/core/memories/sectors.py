"""Per-sector lifetimes (spec 003, "按领域衰减") and the tier decision that uses them.

The attention score (:mod:`jupyter_memory.core.memories.attention`) decays by *tier*
(session / daily / durable). The spec adds a base TTL per *sector* (the
memory ``type``); this module combines both into the heat shown to the person
(HOT / WARM / COLD) and the archive decision:

=============  ==========================================  ==========================
sector         TTL                                         counted from
=============  ==========================================  ==========================
episodic       7 days × access_modifier (7 – 10.5 days)    the last update
semantic       365 days                                    the last activity
procedural     30 days × last_used_modifier                the last *use*
reflective     unlimited                                   —
=============  ==========================================  ==========================

* ``access_modifier`` is the attention formula's own (``1 + 0.1·ln(1 + uses)``,
  capped at 1.5): an episode that keeps being recalled lives a little longer,
  "old sessions lose relevance" all the same, so its age counts from its last
  update, not from its last recall.
* ``last_used_modifier`` is the same function of the number of uses, and the
  procedural clock restarts at every use (last access, else last update):
  "unused workflows decay", used ones stay.
* "Last activity" is the later of last access and last update, as in attention.

Decisions:

* **heat** — a memory past its sector TTL is COLD whatever its score (it stays
  findable by explicit ``recall``); otherwise HOT > 0.7, WARM 0.3–0.7, COLD.
* **archive** — spec 003: "< 0.1 (90+ days) → .old/". A memory is archived
  when its attention is below ``ARCHIVE_BELOW``, it has been inactive for at
  least ``ARCHIVE_AFTER_DAYS`` *and* its sector TTL has run out (so a semantic
  fact is kept for its full year, a reflective lesson is never archived).

Pure: no I/O; callers pass the clock.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime

from .attention import access_modifier, attention_score, heat

EPISODIC_TTL_DAYS = 7.0
SEMANTIC_TTL_DAYS = 365.0
PROCEDURAL_TTL_DAYS = 30.0
# reflective: no TTL (learning outcomes are permanent)
BASE_TTL_DAYS: dict[str, float | None] = {
    "episodic": EPISODIC_TTL_DAYS,
    "semantic": SEMANTIC_TTL_DAYS,
    "procedural": PROCEDURAL_TTL_DAYS,
    "reflective": None,
}
ARCHIVE_BELOW = 0.1
ARCHIVE_AFTER_DAYS = 90.0
_DAY = 86400.0


def ttl_days(sector: str, access_count: int = 0) -> float | None:
    """The sector's lifetime in days for a memory used ``access_count`` times (None: unlimited)."""
    base = BASE_TTL_DAYS.get(sector, SEMANTIC_TTL_DAYS)
    if base is None:
        return None
    if sector in ("episodic", "procedural"):
        return base * access_modifier(access_count)
    return base


def _days(a: datetime, b: datetime) -> float:
    return max(0.0, (b - a).total_seconds() / _DAY)


def sector_age_days(
    sector: str, *, updated: datetime, last_accessed: datetime | None, now: datetime
) -> float:
    """Days on the sector's clock: since the last update (episodic) or last use/activity."""
    if sector == "episodic":
        return _days(updated, now)
    last = max(updated, last_accessed) if last_accessed is not None else updated
    return _days(last, now)


def expired(
    sector: str,
    *,
    updated: datetime,
    last_accessed: datetime | None,
    access_count: int,
    now: datetime,
) -> bool:
    """True when the memory outlived its sector's TTL."""
    clock = _ttl_clock(sector, updated, last_accessed, access_count)
    return clock is not None and _days(clock[0], now) > clock[1]


@functools.lru_cache(maxsize=1 << 14)
def _ttl_clock(
    sector: str, updated: datetime, last_accessed: datetime | None, access_count: int
) -> tuple[datetime, float] | None:
    # What of :func:`expired` does not move with the clock: when the sector's clock
    # started and its TTL (None: unlimited). Every recall hit asks, and the same
    # memories come back recall after recall; the arithmetic with ``now`` is as before.
    ttl = ttl_days(sector, access_count)
    if ttl is None:
        return None
    if sector == "episodic":
        return updated, ttl
    return (max(updated, last_accessed) if last_accessed is not None else updated), ttl


@dataclass(frozen=True)
class TierDecision:
    """Attention score, heat (HOT/WARM/COLD), whether the sector TTL ran out, archive verdict."""

    attention: float
    heat: str
    expired: bool
    archive: bool


def decide_tier(
    *,
    sector: str,
    tier: str,
    updated: datetime,
    last_accessed: datetime | None,
    access_count: int,
    confidence: float,
    now: datetime,
) -> TierDecision:
    """The whole tier decision for one memory at ``now``."""
    last_active = max(updated, last_accessed) if last_accessed is not None else updated
    score = attention_score(
        tier=tier,
        last_active=last_active,
        now=now,
        access_count=access_count,
        confidence=confidence,
    )
    past_ttl = expired(
        sector,
        updated=updated,
        last_accessed=last_accessed,
        access_count=access_count,
        now=now,
    )
    archive = past_ttl and score < ARCHIVE_BELOW and _days(last_active, now) >= ARCHIVE_AFTER_DAYS
    return TierDecision(
        attention=score, heat="COLD" if past_ttl else heat(score), expired=past_ttl, archive=archive
    )
