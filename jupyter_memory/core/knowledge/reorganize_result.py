"""What a reorganize did, as a typed value, and the "same entry" test it uses.

A reorganize may only (issue 32, item 6):

* **merge** two entries when the *same entry* test says they are one entry;
* **condense** filler (openers like "Note that", repeated end punctuation);
* **group** entries under a label that names what they share.

Everything it did is listed in :class:`ReorganizeOutcome`, so a person (or
the pre-inject notice) can be told exactly what changed.

The same-entry test is a parameter, :data:`SameEntry`: a function of two
entry texts that returns why they are one entry, or ``None`` when they are
not. The default, :func:`strict_same_entry`, calls two texts the same only
when they are identical once whitespace, case and punctuation are normalised
(:func:`~.keys.dedup_key`); a meaning-aware identity module can be passed in
instead without touching the reorganizer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..._i18n import M_
from .format import KnowledgeDoc
from .keys import dedup_key

SameEntry = Callable[[str, str], "str | None"]


# The reorganizer compares every pair of a file's entries: each text is normalised once.
_key = lru_cache(maxsize=4096)(dedup_key)


def strict_same_entry(a: str, b: str) -> str | None:
    """Identical after whitespace, case and punctuation normalisation; else not the same."""
    if _key(a) == _key(b):
        return M_("identical once whitespace, case and punctuation are normalised")
    return None


@dataclass(frozen=True)
class Merge:
    """``removed`` was dropped because it is the same entry as ``kept``."""

    section: str
    kept: str
    removed: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "kept": self.kept,
            "removed": self.removed,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Condensed:
    """An entry whose filler was removed: ``before`` became ``after``."""

    section: str
    before: str
    after: str

    def to_dict(self) -> dict[str, Any]:
        return {"section": self.section, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class Group:
    """A label made by this reorganize, and the word its entries share."""

    section: str
    label: str
    shared: str
    entries: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "label": self.label,
            "shared": self.shared,
            "entries": self.entries,
        }


@dataclass(frozen=True)
class ReorganizeOutcome:
    """The reorganized file and everything that changed on the way."""

    doc: KnowledgeDoc
    text: str
    merged: tuple[Merge, ...]
    condensed: tuple[Condensed, ...]
    groups: tuple[Group, ...]
    chars_before: int
    chars_after: int
    leaves_before: int
    leaves_after: int
    # Share of leaves under an "other"/"misc"-style label (never above OTHER_SHARE_MAX).
    other_share: float

    @property
    def grouped(self) -> bool:
        return self.doc.has_groups

    @property
    def changed(self) -> bool:
        return bool(self.merged or self.condensed or self.groups) or self.chars_after != (
            self.chars_before
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "merged": [m.to_dict() for m in self.merged],
            "condensed": [c.to_dict() for c in self.condensed],
            "groups": [g.to_dict() for g in self.groups],
            "chars_before": self.chars_before,
            "chars_after": self.chars_after,
            "leaves_before": self.leaves_before,
            "leaves_after": self.leaves_after,
            "other_share": round(self.other_share, 3),
            "grouped": self.grouped,
            "changed": self.changed,
        }


__all__ = [
    "Condensed",
    "Group",
    "Merge",
    "ReorganizeOutcome",
    "SameEntry",
    "strict_same_entry",
]
