"""Usage statistics of memories (spec 003, ``*memories --stats`` "使用统计"): pure.

From the listing rows (``MemoryReader.list``: type, tier, heat, access_count,
last_accessed), counts per sector, per persistence tier and per heat, each
with how often its memories were recalled and when last; the most recalled
memories; and every sector, tier and heat level named even when it has none
(0), so an empty level is visible rather than missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from ..._i18n import N_
from .models import MemoryType, Tier

HEATS = ("HOT", "WARM", "COLD")
SECTORS = tuple(t.value for t in MemoryType)
TIERS = tuple(t.value for t in Tier)
MOST_RECALLED = 5
# What a person reads for each group of the usage statistics (``--stats``):
# a sector is a memory's type, a tier how long it is kept, a heat how much it
# is used lately (attention: recent and often recalled is HOT).
GROUP_LABELS = {
    "by_sector": N_("recalls by type"),
    "by_tier": N_("recalls by lifetime"),
    "by_heat": N_("recalls by activity"),
}


def _iso(value: datetime | None) -> str | None:
    """JSON as it is (``--json``, REST): ISO 8601, to the second."""
    return value.isoformat(timespec="seconds") if value else None


def _group(rows: list[Mapping[str, Any]], key: str, names: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        members = [r for r in rows if str(r[key]) == name]
        times = [r["last_accessed"] for r in members if r.get("last_accessed")]
        out[name] = {
            "memories": len(members),
            "accesses": sum(int(r.get("access_count") or 0) for r in members),
            "last_accessed": _iso(max(times)) if times else None,
        }
    return out


def usage_stats(rows: Iterable[Mapping[str, Any]], *, top: int = MOST_RECALLED) -> dict[str, Any]:
    """``accesses``, ``accessed``, ``never_accessed``, ``last_accessed``, ``most_recalled``
    and ``by_sector`` / ``by_tier`` / ``by_heat`` (each level present, 0 when empty)."""
    items = list(rows)
    times: list[datetime] = [r["last_accessed"] for r in items if r.get("last_accessed")]
    recalled = [r for r in items if int(r.get("access_count") or 0) > 0]
    # most recalls first; among equals the one recalled last
    recalled.sort(key=lambda r: r["last_accessed"].timestamp() if r.get("last_accessed") else 0)
    recalled.sort(key=lambda r: int(r["access_count"]), reverse=True)
    return {
        "accesses": sum(int(r.get("access_count") or 0) for r in items),
        "accessed": len(recalled),
        "never_accessed": len(items) - len(recalled),
        "last_accessed": _iso(max(times)) if times else None,
        "most_recalled": [
            {
                "id": r["id"],
                "title": r["title"],
                "type": str(r["type"]),
                "tier": str(r["tier"]),
                "access_count": int(r["access_count"]),
                "last_accessed": _iso(r.get("last_accessed")),
            }
            for r in recalled[:top]
        ],
        "by_sector": _group(items, "type", SECTORS),
        "by_tier": _group(items, "tier", TIERS),
        "by_heat": _group(items, "heat", HEATS),
    }
