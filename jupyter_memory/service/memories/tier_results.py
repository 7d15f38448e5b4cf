"""What tier housekeeping and the cold archive return (``to_dict()`` keeps the old keys)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..results import MappingResult


@dataclass(frozen=True, eq=False)
class DailyMerge(MappingResult):
    """One day's daily-tier memories folded into the memory ``id`` (the daily merge)."""

    id: str
    day: str
    merged: list[str]
    reviewed: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "day": self.day,
            "merged": list(self.merged),
            "reviewed": self.reviewed,
        }


@dataclass(frozen=True, eq=False)
class SessionStart(MappingResult):
    """What a new notebook session cleared and merged; ``skipped`` says why it did nothing."""

    session_key: str
    cleared: list[str] = field(default_factory=list)
    merged: list[DailyMerge] = field(default_factory=list)
    skipped: str | None = None  # "disabled" or "running"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "session_key": self.session_key,
            "cleared": list(self.cleared),
            "merged": [m.to_dict() for m in self.merged],
        }
        if self.skipped is not None:
            out["skipped"] = self.skipped
        return out


@dataclass(frozen=True, eq=False)
class ColdArchiveItem(MappingResult):
    """A memory the cold archive moved (or, in a dry run, would move) into ``.old/``."""

    id: str
    title: str
    layer: str
    attention: float
    path: str
    archived_path: str | None = None  # set when it was moved

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "layer": self.layer,
            "attention": self.attention,
            "path": self.path,
        }
        if self.archived_path is not None:
            out["archived_path"] = self.archived_path
        return out


@dataclass(frozen=True, eq=False)
class ColdArchiveReport(MappingResult):
    """One run of the cold archive."""

    dry_run: bool
    archived: list[ColdArchiveItem]

    @property
    def count(self) -> int:
        return len(self.archived)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "archived": [a.to_dict() for a in self.archived],
            "count": self.count,
        }


@dataclass(frozen=True, eq=False)
class ColdArchivedMemory(MappingResult):
    """A memory lying in a layer's cold archive (``.old/``)."""

    id: str
    layer: str
    name: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "layer": self.layer, "name": self.name}


@dataclass(frozen=True, eq=False)
class ColdRestore(MappingResult):
    """A memory brought back from the cold archive."""

    id: str
    layer: str
    path: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "layer": self.layer, "path": self.path}
