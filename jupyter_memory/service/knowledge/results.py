"""What the knowledge services return: one typed result per operation.

Each result's ``to_dict()`` gives exactly the keys the operation returned as a
plain dict before (the REST responses, ``--json`` output and the MCP tools are
built from it). Each is also a read-only mapping over that dict
(:class:`~jupyter_memory.service.results.MappingResult`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..._i18n import M_
from ...core.knowledge.context import ExpandedEntry, LibraryStatus
from ...core.knowledge.proposals import Proposal
from ...core.knowledge.reorganize_result import ReorganizeOutcome
from ..results import MappingResult

# -- knowledge files --------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class KnowledgeFileStatus(MappingResult):
    """The Library status of a saved file (counts, budget, mode) and its ``version``."""

    status: LibraryStatus
    version: str
    # A git merge left conflict blocks in the file (issue 17); the counts are of this side.
    conflicted: bool = False
    # Committed by a teammate and pulled, never applied or saved here (issue 29):
    # ``{by, commit, chars, over_cap, message}``, else None.
    arrived: dict[str, Any] | None = None

    @property
    def path(self) -> str:
        return self.status.path

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.status.to_dict(),
            "version": self.version,
            "conflicted": self.conflicted,
            "arrived": self.arrived,
        }


@dataclass(frozen=True, eq=False)
class KnowledgeRead(MappingResult):
    """One read for an editor: the text, its version and status, from the same bytes."""

    layer: str
    project: str | None
    path: str
    exists: bool
    text: str
    version: str
    status: KnowledgeFileStatus
    # Both sides of a merge conflict git left in the file (issue 17), else None.
    conflict: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "layer": self.layer,
            "project": self.project,
            "path": self.path,
            "exists": self.exists,
            "text": self.text,
            "version": self.version,
            "status": self.status.to_dict(),
            "conflict": self.conflict,
        }


@dataclass(frozen=True, eq=False)
class ReorganizeResult(MappingResult):
    """What a reorganize did: every merge (and why), condensed entry and new group.

    ``changed`` False means the file had nothing a reorganize may change (no
    true duplicate, no filler, no shared topic the saved characters pay for):
    nothing was written and no backup made. ``written`` False with ``changed``
    True is a preview of an unsaved text (:meth:`.files.KnowledgeFiles.reorganize_text`).
    """

    layer: str
    project: str | None
    path: str
    backup: str
    used_llm: bool
    version: str
    outcome: ReorganizeOutcome
    written: bool = True
    # A person's Reorganize runs past today's LLM budget; it says so (issue 32 item 2).
    over_budget: bool = False
    budget_note: str | None = None

    @property
    def grouped(self) -> bool:
        return self.outcome.grouped

    @property
    def duplicates_removed(self) -> int:
        return len(self.outcome.merged)

    @property
    def changed(self) -> bool:
        return self.outcome.changed

    def summary(self) -> str:
        """One line for a person: what changed, or that nothing needed to."""
        o = self.outcome
        if not o.changed:
            return self._with_budget_note(
                M_(
                    "Nothing to reorganize in {path}: no true duplicates, no filler and no "
                    "shared topic to group within its length; it is left as it is",
                    path=self.path,
                )
            )
        said = M_(
            "{merged} duplicate(s) merged, {condensed} entr(y/ies) condensed, {groups} group(s) "
            "made, {before:,} → {after:,} characters; all {leaves} other entries kept as they were",
            merged=len(o.merged),
            condensed=len(o.condensed),
            groups=len(o.groups),
            before=o.chars_before,
            after=o.chars_after,
            leaves=o.leaves_after,
        )
        if not self.written:
            return M_("Reorganize would make: {said}", said=said)
        done = M_("Reorganized {path}: {said} (the previous text is in {backup})",
                  path=self.path, said=said, backup=self.backup)  # fmt: skip
        return self._with_budget_note(done)

    def _with_budget_note(self, said: str) -> str:
        if not self.budget_note:
            return said
        return M_("{said}; {note}", said=said, note=self.budget_note)

    def to_dict(self) -> dict[str, Any]:
        o = self.outcome.to_dict()
        return {
            "layer": self.layer,
            "project": self.project,
            "path": self.path,
            "backup": self.backup,
            "grouped": self.grouped,
            "duplicates_removed": self.duplicates_removed,
            "chars_before": self.outcome.chars_before,
            "chars_after": self.outcome.chars_after,
            "used_llm": self.used_llm,
            "version": self.version,
            "changed": self.changed,
            "written": self.written,
            "merged": o["merged"],
            "condensed": o["condensed"],
            "groups": o["groups"],
            "leaves_before": o["leaves_before"],
            "leaves_after": o["leaves_after"],
            "other_share": o["other_share"],
            "over_budget": self.over_budget,
            "budget_note": self.budget_note,
            "text": self.outcome.text,
        }


@dataclass(frozen=True, eq=False)
class CatalogExpansion(MappingResult):
    """Full entries for the catalog labels asked for, and the labels nobody has."""

    entries: list[ExpandedEntry]
    unknown: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"entries": [e.to_dict() for e in self.entries], "unknown": list(self.unknown)}


# -- AGENTS.md --------------------------------------------------------------------------


@dataclass
class FileOutcome:
    """What happened to one file: ``action`` is created, updated, unchanged, removed,
    absent, kept (a person's own import line), skipped (auto-sync found no block to
    update), or refused (a hand-edited block)."""

    path: Path
    action: str
    message: str
    diff: str = ""
    mode: str | None = None  # flat | catalog (AGENTS.md only)
    bytes: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "action": self.action,
            "message": self.message,
            "diff": self.diff,
            "mode": self.mode,
            "bytes": self.bytes,
        }


@dataclass
class SyncReport:
    """What ``agents-md sync`` (or the auto-sync) did to each file."""

    files: list[FileOutcome] = field(default_factory=list)

    @property
    def refused(self) -> bool:
        return any(f.action == "refused" for f in self.files)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": not self.refused, "files": [f.to_dict() for f in self.files]}


@dataclass(frozen=True, eq=False)
class AgentsMdAutosync(MappingResult):
    """The AGENTS.md auto-sync after an Apply to ``project``: its report, or why it failed."""

    project: str
    report: SyncReport | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.report is not None and not self.report.refused

    def to_dict(self) -> dict[str, Any]:
        if self.report is None:
            return {"ok": False, "project": self.project, "error": self.error, "files": []}
        return {**self.report.to_dict(), "project": self.project}


# -- the queue --------------------------------------------------------------------------

# Why Process all left an item whose suggested project was never named: the
# person's pick, not a failure.
PICK_A_PROJECT = "pick a project"


@dataclass(frozen=True, eq=False)
class ProposeResult(MappingResult):
    """``queued`` (with the new ``proposal``) or ``skipped`` (``id`` None, with the ``reason``)."""

    status: str
    id: str | None
    reason: str
    supersedes: str | None = None
    proposal: Proposal | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "id": self.id, "reason": self.reason}
        if self.proposal is not None:
            out["supersedes"] = self.supersedes
            out["proposal"] = self.proposal.to_dict()
        return out


@dataclass(frozen=True, eq=False)
class PurgeResult(MappingResult):
    """``purged`` (the dismissed proposal's file is gone, its hash kept) or ``already_purged``."""

    id: str
    status: Literal["purged", "already_purged"]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status}


# A person's decision on one proposal (apply or dismiss), or the one it already
# had: a closed set of types, matched by type (``isinstance`` / ``match``) by
# REST, the CLI and the cards. Each ``to_dict()`` is the JSON the decision
# answered with as one dict with a ``status`` string (the schema tests hold it);
# ``status`` stays readable as that word.


@dataclass(frozen=True, eq=False)
class Applied(MappingResult):
    """The proposal was merged into Rules or Info of ``path`` (now at ``version``).

    ``agents_md`` is set only when an Apply to a project re-synced AGENTS.md.
    """

    id: str
    layer: str
    project: str | None
    section: str
    path: str
    version: str
    agents_md: AgentsMdAutosync | None = None

    @property
    def status(self) -> Literal["applied"]:
        return "applied"

    def to_dict(self) -> dict[str, Any]:
        return _entry_write_dict(self)


@dataclass(frozen=True, eq=False)
class Dismissed(MappingResult):
    """The proposal was dismissed: its text is never suggested again."""

    id: str

    @property
    def status(self) -> Literal["dismissed"]:
        return "dismissed"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status}


DecidedState = Literal["saved", "dismissed", "superseded"]


@dataclass(frozen=True, eq=False)
class AlreadyDecided(MappingResult):
    """The proposal had a decision already (``state``); nothing changed.

    ``saved`` names where it went (``layer``, ``project``), ``superseded`` the
    proposal that took its place (``superseded_by``).
    """

    id: str
    state: DecidedState
    layer: str | None = None
    project: str | None = None
    superseded_by: str | None = None

    @property
    def status(self) -> str:
        return f"already_{self.state}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "status": self.status}
        if self.state == "saved":
            out.update(layer=self.layer, project=self.project)
        elif self.state == "superseded":
            out["superseded_by"] = self.superseded_by
        return out


DecisionResult = Applied | Dismissed | AlreadyDecided


@dataclass(frozen=True, eq=False)
class SkippedProposal(MappingResult):
    """A pending proposal that Process all left in the queue, and why."""

    id: str
    text: str
    reason: str
    # What kind of failure, without the item's own figures: the same refusal
    # of every item ("8,044 / 8,051 … characters is over the limit") is one cause.
    cause: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "reason": self.reason}


@dataclass(frozen=True, eq=False)
class Failure(MappingResult):
    """One reason Process all could not apply items, said once with how many it stopped."""

    reason: str
    count: int
    ids: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "count": self.count, "ids": list(self.ids)}


@dataclass(frozen=True, eq=False)
class ProcessAllResult(MappingResult):
    """Process all: what was applied, what was skipped, one AGENTS.md report per project.

    ``failures`` lists each distinct reason an Apply failed once, with its
    count (one over-cap file refuses every later item the same way: one line,
    not 89); items left for a project pick are not failures. ``ok`` is False
    when anything failed.
    """

    applied: list[Applied | AlreadyDecided]
    skipped: list[SkippedProposal]
    agents_md: list[AgentsMdAutosync] | None = None

    @property
    def failures(self) -> list[Failure]:
        grouped: dict[str, tuple[str, list[str]]] = {}
        for s in self.skipped:
            if s.reason != PICK_A_PROJECT:
                grouped.setdefault(s.cause or s.reason, (s.reason, []))[1].append(s.id)
        return [Failure(reason, len(ids), ids) for reason, ids in grouped.values()]

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "applied": [a.to_dict() for a in self.applied],
            "skipped": [s.to_dict() for s in self.skipped],
            "failures": [f.to_dict() for f in self.failures],
            "ok": self.ok,
        }
        if self.agents_md:
            out["agents_md"] = [r.to_dict() for r in self.agents_md]
        return out


@dataclass(frozen=True, eq=False)
class PlannedTarget(MappingResult):
    """How many pending items Process all would apply to one file."""

    layer: str
    project: str | None
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {"layer": self.layer, "project": self.project, "count": self.count}


@dataclass(frozen=True, eq=False)
class ProcessAllPlan(MappingResult):
    """What Process all would do, shown before it runs: counts per layer and project."""

    targets: list[PlannedTarget]
    pick_a_project: int

    @property
    def total(self) -> int:
        return sum(t.count for t in self.targets)

    def to_dict(self) -> dict[str, Any]:
        return {
            "targets": [t.to_dict() for t in self.targets],
            "total": self.total,
            "pick_a_project": self.pick_a_project,
        }


@dataclass(frozen=True, eq=False)
class RevertResult(MappingResult):
    """A reverted Apply: the entry left ``path``; the proposal is now ``status``."""

    id: str
    status: str  # "pending" (back in the queue) or "dismissed"
    layer: str
    project: str | None
    section: str
    path: str
    version: str
    agents_md: AgentsMdAutosync | None = None

    def to_dict(self) -> dict[str, Any]:
        return _entry_write_dict(self)


__all__ = [
    "AgentsMdAutosync",
    "AlreadyDecided",
    "Applied",
    "DecidedState",
    "CatalogExpansion",
    "DecisionResult",
    "Dismissed",
    "Failure",
    "FileOutcome",
    "KnowledgeFileStatus",
    "KnowledgeRead",
    "PICK_A_PROJECT",
    "PlannedTarget",
    "ProcessAllPlan",
    "ProcessAllResult",
    "ProposeResult",
    "ReorganizeResult",
    "RevertResult",
    "SkippedProposal",
    "SyncReport",
]


def _entry_write_dict(result: Applied | RevertResult) -> dict[str, Any]:
    """The JSON of an act that wrote an entry's file: an Apply, or its Revert."""
    out: dict[str, Any] = {
        "id": result.id,
        "status": result.status,
        "layer": result.layer,
        "project": result.project,
        "section": result.section,
        "path": result.path,
        "version": result.version,
    }
    if result.agents_md is not None:
        out["agents_md"] = result.agents_md.to_dict()
    return out
