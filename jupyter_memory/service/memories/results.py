"""What the memory operations return (``to_dict()`` keeps the keys of the old dicts).

Each result also reads like the dict it replaces (:class:`MappingResult`), so
``report["ok"]`` keeps working; JSON output is built from ``to_dict()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..results import MappingResult


@dataclass(frozen=True, eq=False)
class ForgetResult(MappingResult):
    """A memory deleted with every derived trace (the audit keeps id, hash and time)."""

    id: str
    layer: str
    deleted: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "deleted": self.deleted, "layer": self.layer}


@dataclass(frozen=True, eq=False)
class IndexHealth(MappingResult):
    """One root's index: how many entries, how many files it could not read."""

    layer: str
    root: str
    entries: int
    unreadable_files: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "layer": self.layer,
            "root": self.root,
            "entries": self.entries,
            "unreadable_files": self.unreadable_files,
        }


@dataclass(frozen=True, eq=False)
class MemoryStats(MappingResult):
    """Counts by type, tier, scope, project, heat and layer; where the stores are."""

    total: int
    by_type: dict[str, int]
    by_tier: dict[str, int]
    by_scope: dict[str, int]
    by_project: dict[str, int]
    by_heat: dict[str, int]
    by_layer: dict[str, int]
    unreviewed: int
    home: str
    project: str | None
    project_dir: str | None
    index: list[IndexHealth]
    semantic: dict[str, Any]  # SemanticRecall.status()
    # access counts, last accessed, most recalled, per sector/tier/heat (core/memories/usage.py)
    usage: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "by_type": dict(self.by_type),
            "by_tier": dict(self.by_tier),
            "by_scope": dict(self.by_scope),
            "by_project": dict(self.by_project),
            "by_heat": dict(self.by_heat),
            "by_layer": dict(self.by_layer),
            "unreviewed": self.unreviewed,
            "home": self.home,
            "project": self.project,
            "project_dir": self.project_dir,
            "index": [i.to_dict() for i in self.index],
            "semantic": self.semantic,
            "usage": self.usage,
        }


@dataclass(frozen=True, eq=False)
class StoreProblem(MappingResult):
    """Something ``doctor`` found: a link, an unreadable file, an unreadable audit log."""

    path: str
    kind: str  # "symlink", "unreadable", "audit", "mode" (group or others can open it), …
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "message": self.message}


@dataclass(frozen=True, eq=False)
class ModeFixed(MappingResult):
    """A file or folder ``doctor --fix`` made private: its mode before and after."""

    path: str
    before: int
    after: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "before": f"{self.before:04o}", "after": f"{self.after:04o}"}


@dataclass(frozen=True, eq=False)
class DoctorReport(MappingResult):
    problems: list[StoreProblem] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    fixed: list[ModeFixed] = field(default_factory=list)  # by ``doctor(fix=True)``

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ok": self.ok,
            "problems": [p.to_dict() for p in self.problems],
            "notices": list(self.notices),
        }
        if self.fixed:  # the old keys stay as they were when nothing was fixed
            out["fixed"] = [f.to_dict() for f in self.fixed]
        return out


@dataclass(frozen=True, eq=False)
class LayerRebuild(MappingResult):
    """One root's rebuilt index: files indexed, files it could not read, notices."""

    indexed: int
    problems: list[tuple[str, str]]  # (file name, reason)
    notices: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "indexed": self.indexed,
            "problems": [{"path": n, "message": m} for n, m in self.problems],
            "notices": list(self.notices),
        }


@dataclass(frozen=True, eq=False)
class RebuildReport(MappingResult):
    """``rebuild_index``: one :class:`LayerRebuild` per layer ("project" first, then "user")."""

    layers: dict[str, LayerRebuild]

    def to_dict(self) -> dict[str, Any]:
        return {layer: rep.to_dict() for layer, rep in self.layers.items()}


@dataclass(frozen=True, eq=False)
class EmbedReport(MappingResult):
    """``embed``: whether the worker finished in time, and the semantic status after it."""

    done: bool
    status: dict[str, Any]  # SemanticRecall.status(): available, roots, worker, fallback

    def to_dict(self) -> dict[str, Any]:
        return {"done": self.done, **self.status}


@dataclass(frozen=True, eq=False)
class MemoryPage(MappingResult):
    """One page of the memory listing: its rows, where it starts, how many memories
    there are in all (COLD ones included) and whether listed rows follow the page."""

    rows: list[dict[str, Any]]
    offset: int
    total: int
    more: bool

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "offset": self.offset, "total": self.total, "more": self.more}
