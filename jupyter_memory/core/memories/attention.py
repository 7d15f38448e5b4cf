"""Attention score and tiers (spec 003, "注意力评分与层级").

    attention = base_relevance × recency_factor × access_modifier × confidence

* ``recency_factor = (1 - decay[tier]) ** age_days`` with the spec's per-tier
  decay rates: session 0.5 (halves every day), daily 0.1, durable 0.01.
  Age counts from the later of last access and last update.
* ``access_modifier = min(1.5, 1 + 0.1 × ln(1 + access_count))``: use keeps a
  memory warm but cannot push a stale one into HOT on its own.
* The product is clipped to [0, 1]. HOT > 0.7, WARM 0.3–0.7, COLD < 0.3.

In recall the score may only re-weight relevance (``RELEVANCE_FLOOR``) so an
old but exact match still beats a fresh, barely related one:

    recall score = relevance × (RELEVANCE_FLOOR + (1 - RELEVANCE_FLOOR) × attention)

The floor is 1.0: attention orders equally relevant hits and nothing else. A
floor of 0.85 (attention moving a hit by up to 15 %) was cross-validated on
LoCoMo and cost 0.35 points of recall@5 on the conversations it was not tuned
on (benchmarks/ranking_cv.py, docs/recall.md "Cross-validated constants").
"""

from __future__ import annotations

import math
from datetime import datetime

from .ranking import DEFAULT_RANKING

DECAY = {"session": 0.5, "daily": 0.1, "durable": 0.01}
ACCESS_WEIGHT = 0.1
ACCESS_CAP = 1.5
HOT = 0.7
WARM = 0.3
# recall score = relevance × (RELEVANCE_FLOOR + (1 - RELEVANCE_FLOOR) × attention);
# the value lives with the other ranking constants (core/memories/ranking.py).
RELEVANCE_FLOOR = DEFAULT_RANKING.relevance_floor


def recency_factor(tier: str, age_days: float) -> float:
    return float((1.0 - DECAY.get(tier, 0.01)) ** max(0.0, age_days))


def access_modifier(access_count: int) -> float:
    return min(ACCESS_CAP, 1.0 + ACCESS_WEIGHT * math.log1p(max(0, access_count)))


def attention_score(
    *,
    tier: str,
    last_active: datetime,
    now: datetime,
    access_count: int = 0,
    confidence: float = 1.0,
    base_relevance: float = 1.0,
) -> float:
    age_days = (now - last_active).total_seconds() / 86400.0
    score = base_relevance * recency_factor(tier, age_days) * access_modifier(access_count)
    return max(0.0, min(1.0, score * confidence))


def heat(score: float) -> str:
    if score > HOT:
        return "HOT"
    if score >= WARM:
        return "WARM"
    return "COLD"


def combine(relevance: float, attention: float, floor: float = RELEVANCE_FLOOR) -> float:
    return relevance * (floor + (1.0 - floor) * attention)
