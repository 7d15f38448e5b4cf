"""What recall returns: one hit per memory, at a disclosure level."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict


class RecallHit(BaseModel):
    model_config = ConfigDict(defer_build=True)
    id: str
    title: str
    text: str  # empty at level "index", a window at "snippet", the body at "full"
    type: str
    tier: str
    scope: str
    project: str | None = None
    tags: list[str] = []
    source: str
    score: float
    attention: float
    heat: str
    reviewed: bool
    created: datetime
    updated: datetime
    layer: str
    path: str  # absolute path of the Markdown file
    level: str
    tokens: int
    # A newer memory restates this one with a new value (issue 33): its id.
    superseded_by: str | None = None
    # Spec 003's L2: the memory's evidence quotes and one provenance line (empty at
    # index level).
    evidence: list[str] = []
    provenance: str = ""

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def trusted(cls, **values: Any) -> RecallHit:
        """A hit from values the index already validated, every field given.

        What ``model_construct`` builds, without its per-field default pass:
        recall builds one per hit on every query, and that pass was a fifth
        of a 10k recall's Python time. A missing or unknown field is a bug
        here, so it raises rather than building a half hit.
        """
        return cls.trusted_fields(values)

    @classmethod
    def trusted_fields(cls, values: dict[str, Any]) -> RecallHit:
        """:meth:`trusted` from a dict the hit takes over (recall builds one per hit)."""
        if values.keys() != _HIT_FIELDS:
            missing = sorted(_HIT_FIELDS ^ values.keys())
            raise TypeError(f"RecallHit.trusted: fields differ: {missing}")
        hit = cls.__new__(cls)
        _set(hit, "__dict__", values)
        _set(hit, "__pydantic_fields_set__", set(_HIT_FIELDS))
        _set(hit, "__pydantic_extra__", None)
        _set(hit, "__pydantic_private__", None)
        return hit


_set = object.__setattr__
_HIT_FIELDS = frozenset(RecallHit.model_fields)
