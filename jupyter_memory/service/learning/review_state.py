"""Where the person's review of a memory stands, as a card in a notebook shows it.

A review card is drawn from this live state, not from kernel state, so it reads
the same after a reload, a kernel restart, or a decision made elsewhere (CLI,
another kernel, REST). A memory is

* ``unreviewed`` — waiting for Keep, Discard or Promote;
* ``kept`` — reviewed (Keep; or written by the person, who needs no review);
* ``promoted`` — reviewed and queued as a proposal (``promoted_to``).

A memory that is gone is no state here: the caller lists it as missing
(discarded or forgotten in this memory home, or never in it).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.memories.models import MemoryEntry
from ..results import MappingResult

UNREVIEWED = "unreviewed"
KEPT = "kept"
PROMOTED = "promoted"
# The quotes a card shows; the memory keeps all of them.
MAX_QUOTES = 3


def home_key(home: Path) -> str:
    """A short, stable name of a memory home (its resolved path, hashed).

    The kernel writes it into a review card and the server answers its own, so
    the card can tell "discarded in this home" from "kept in another home"
    without putting a path into the notebook.
    """
    return hashlib.sha256(str(home).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True, eq=False)
class ReviewState(MappingResult):
    """One memory's review state with what its card shows."""

    id: str
    state: str
    title: str
    text: str
    kind: str
    tier: str
    source: str
    scene: str | None
    layer: str
    project: str | None
    quotes: list[dict[str, str | None]] = field(default_factory=list)
    promotable: bool = False
    promoted_to: str | None = None

    @property
    def decided(self) -> bool:
        return self.state != UNREVIEWED

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.state,
            "title": self.title,
            "text": self.text,
            "kind": self.kind,
            "tier": self.tier,
            "source": self.source,
            "scene": self.scene,
            "layer": self.layer,
            "project": self.project,
            "quotes": [dict(q) for q in self.quotes],
            "promotable": self.promotable,
            "promoted_to": self.promoted_to,
        }


def review_state(entry: MemoryEntry, project: str | None) -> ReviewState:
    """The review state of a stored memory (``project``: the one it was found in, if any)."""
    meta = entry.meta
    extra = meta.model_extra or {}
    promoted_to = extra.get("promoted_to")
    if not meta.reviewed:
        state = UNREVIEWED
    elif promoted_to:
        state = PROMOTED
    else:
        state = KEPT
    quotes = [{"quote": q.quote, "source": q.source} for q in meta.evidence if q.quote.strip()]
    scene = extra.get("scene")
    return ReviewState(
        id=meta.id,
        state=state,
        title=meta.title,
        text=entry.text,
        kind=str(extra.get("work_type") or meta.type.value),
        tier=meta.tier.value,
        source=meta.source.value,
        scene=str(scene) if scene else None,
        layer=entry.layer,
        project=project if entry.layer == "project" else None,
        quotes=quotes[:MAX_QUOTES],
        promotable=bool(quotes),
        promoted_to=str(promoted_to) if promoted_to else None,
    )


@dataclass(frozen=True, eq=False)
class ReviewStates(MappingResult):
    """The states of the memories asked for (asked order), and the ids not found."""

    # Not ``items``: a Mapping has that method.
    states: list[ReviewState]
    missing: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"items": [s.to_dict() for s in self.states], "missing": list(self.missing)}
