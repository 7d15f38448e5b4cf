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
        return _adopt(values)

    @classmethod
    def adopt(cls, values: dict[str, Any]) -> RecallHit:
        """:meth:`trusted_fields` without the key check, for the one caller whose dict
        is a literal naming every field (``MemoryRecall.hit``: a test holds its keys
        to the model's at every level); the check was a tenth of a hit's build."""
        return _adopt(values)


# A hit's slots set through their descriptors: a recall makes ten hits, and
# ``object.__setattr__`` by name cost a third of each.
_HIT_FIELDS = frozenset(RecallHit.model_fields)
_new = object.__new__
_set_dict = object.__setattr__
_slots = BaseModel.__dict__
_set_fields = _slots["__pydantic_fields_set__"].__set__
_set_extra = _slots["__pydantic_extra__"].__set__
_set_private = _slots["__pydantic_private__"].__set__
_ALL_SET = set(_HIT_FIELDS)  # copied per hit: each hit has a set of its own


def _adopt(values: dict[str, Any]) -> RecallHit:
    hit: RecallHit = _new(RecallHit)
    _set_dict(hit, "__dict__", values)
    _set_fields(hit, _ALL_SET.copy())
    _set_extra(hit, None)
    _set_private(hit, None)
    return hit
