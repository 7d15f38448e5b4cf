"""What is left to embed, in words: the line ``stats`` shows (CLI, ``%memories --stats``).

The numbers come from ``SemanticRecall.status()`` (``service/memories/semantic.py``):
``pending`` notes not embedded in their current form, ``notes_per_s`` the
rate last measured by an embedding worker (stored beside the vectors, so a
short CLI process can estimate too), ``coverage`` and ``min_coverage``.
"""

from __future__ import annotations

import math
from typing import Any

from ..._i18n import tr


def eta_seconds(pending: int, notes_per_s: float | None) -> float | None:
    """Seconds left at the measured rate; ``None`` when no rate was measured yet."""
    if pending <= 0:
        return 0.0
    if not notes_per_s or notes_per_s <= 0:
        return None
    return pending / notes_per_s


def duration_text(seconds: float) -> str:
    """A rough duration: "40 s", "12 min", "3 h 5 min"."""
    if seconds < 90:
        return tr("{n} s").format(n=max(1, math.ceil(seconds)))
    minutes = math.ceil(seconds / 60)
    if minutes < 90:
        return tr("{n} min").format(n=minutes)
    return tr("{h} h {m} min").format(h=minutes // 60, m=minutes % 60)


def embedding_line(status: dict[str, Any]) -> str | None:
    """One line on the embedding work, or ``None`` without the semantic extra."""
    if not status.get("available"):
        return None
    pending = int(status.get("pending", 0))
    if pending <= 0:
        return tr("every memory is embedded; recall is hybrid")
    rate = status.get("notes_per_s")
    eta = status.get("eta_seconds")
    if eta is None or not rate:
        line = tr("{pending} memories left to embed (rate not measured yet)").format(
            pending=pending
        )
    else:
        line = tr("{pending} memories left to embed, about {eta} at {rate} a second").format(
            pending=pending, eta=duration_text(float(eta)), rate=f"{float(rate):.0f}"
        )
    if not status.get("hybrid_ready", True):
        line += "; " + tr("recall stays lexical until {pct}% are embedded").format(
            pct=round(100 * float(status.get("min_coverage", 0.0)))
        )
    return line
