"""What the case memory service returns: records, write results, reports.

Every result carries what a surface needs to print under the team's write
policy (``notice()``), so magics and the CLI hold no policy of their own. The
texts are :class:`~jupyter_memory._i18n.Message` values: ``notice()`` and
``to_dict()`` give the English, ``localized_notice()`` the person's language.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..._i18n import M_, N_, Message, localized
from ...core.cases.entry_format import CaseEntry
from ...core.cases.policy import WritePolicy, noise_suggestion

ACTIONS = ("created", "updated", "skipped", "excluded", "disabled")
# The outcome word of a notice line, translated where it is shown.
_ACTION_WORDS = {
    "created": N_("created"),
    "updated": N_("updated"),
    "skipped": N_("skipped"),
    "excluded": N_("excluded"),
    "disabled": N_("disabled"),
}


def _text(value: Message | str | None) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True)
class CaseRecord:
    """One entry file as read: its name, path and parsed content."""

    case_id: str
    name: str
    path: Path
    entry: CaseEntry

    @property
    def title(self) -> str:
        return self.entry.title

    @property
    def type(self) -> str:
        return self.entry.type

    @property
    def date(self) -> str:
        return self.entry.date

    @property
    def status(self) -> str:
        return self.entry.status

    @property
    def legacy(self) -> bool:
        return self.entry.legacy

    def to_dict(self) -> dict[str, Any]:
        e = self.entry
        return {
            "case": self.case_id,
            "file": self.name,
            "path": str(self.path),
            "title": e.title,
            "type": e.type,
            "date": e.date,
            "status": e.status,
            "evidence": list(e.evidence),
            "hypotheses": list(e.hypotheses),
            "related": e.related,
            "files": [asdict(f) for f in e.files],
            "legacy": e.legacy,
            "body": e.body,
        }


@dataclass(frozen=True)
class CaseNoteResult:
    """Outcome of a write attempt: ``action`` is one of :data:`ACTIONS`."""

    action: str
    reason: Message | str
    case_id: str
    policy: str
    path: Path | None = None
    related: str | None = None
    suggestion: Message | None = None  # cleanup advice past 30 entries
    hint: Message | None = None  # how to set the write policy when it defaulted
    # Files the write went around (unreadable entries, ambiguous rows, …): always
    # reported, whatever the policy (spec 000: failures are never silent).
    problems: tuple[str, ...] = ()
    # 关联证据 ids that evidence_registry.json does not hold: named, never linked
    # (also shown whatever the policy: what was asked for did not happen).
    unknown_evidence: tuple[str, ...] = ()

    @property
    def entry(self) -> str | None:
        return self.path.name if self.path is not None else None

    @property
    def message(self) -> str | None:
        """The one line to print: ``None`` under ``silent`` (write and forget)."""
        line = self._message()
        return None if line is None else str(line)

    def _message(self) -> Message | None:
        if self.action == "disabled":
            return M_(
                "case memory {case}: nothing written ({reason})",
                case=self.case_id,
                reason=self.reason,
            )
        if self.policy == "silent":
            return None
        word = _ACTION_WORDS.get(self.action)
        action: Message | str = Message(word) if word else self.action
        return M_(
            "case memory {case}: {action}{where} ({reason})",
            case=self.case_id,
            action=action,
            where=f" {self.entry}" if self.entry else "",
            reason=self.reason,
        )

    def notice(self) -> list[str]:
        """Lines a surface prints; never a question, never blocking.

        Under ``notify`` (and ``disabled``) the notice is one line: the outcome,
        then the cleanup advice and the policy hint after " · ". ``silent``
        prints nothing. Either way each problem the write went around follows
        on a line of its own."""
        return self._notice(str)

    def localized_notice(self) -> list[str]:
        """:meth:`notice` in the person's language (magics and the CLI print this)."""
        return self._notice(localized)

    def _notice(self, show: Callable[[object], str]) -> list[str]:
        problems = [
            show(M_("case memory {case}: {problem}", case=self.case_id, problem=p))
            for p in self.problems
        ]
        if self.unknown_evidence:
            said = M_(
                "case memory {case}: evidence {ids} is not in evidence_registry.json; not "
                "linked (register it, then note again with the same type, title and body)",
                case=self.case_id,
                ids=", ".join(self.unknown_evidence),
            )
            problems.insert(0, show(said))
        line = self._message()
        if line is None:
            return problems
        parts = (line, self.suggestion, self.hint)
        return [" · ".join(show(p) for p in parts if p), *problems]

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "reason": str(self.reason),
            "case": self.case_id,
            "policy": self.policy,
            "path": str(self.path) if self.path else None,
            "entry": self.entry,
            "related": self.related,
            "suggestion": _text(self.suggestion),
            "hint": _text(self.hint),
            "message": self.message,
            "problems": list(self.problems),
            "unknown_evidence": list(self.unknown_evidence),
            "notice": self.notice(),
        }


def note_result(
    case_id: str,
    action: str,
    reason: Message | str,
    pol: WritePolicy,
    count: int,
    *,
    path: Path | None = None,
    related: str | None = None,
    problems: tuple[str, ...] = (),
) -> CaseNoteResult:
    """A write result under ``pol``: cleanup advice past the noise limit, the policy hint."""
    return CaseNoteResult(
        action,
        reason,
        case_id,
        pol.value,
        path=path,
        related=related,
        suggestion=noise_suggestion(count),
        hint=pol.hint,
        problems=problems,
    )


# Problem kinds that rewriting INDEX.md from the files repairs.
REPAIRABLE_KINDS = ("index-", "missing-", "orphan-", "row-")


@dataclass(frozen=True)
class CaseProblem:
    """One disagreement between INDEX.md and the entry files, or a bad file.

    ``blocking`` problems cannot be repaired without guessing: a write of one
    of ``files`` (entry file names) stops; writes of other entries go on."""

    kind: str
    path: str
    detail: str
    line: int | None = None
    blocking: bool = False
    files: tuple[str, ...] = ()

    @property
    def repairable(self) -> bool:
        """Rewriting INDEX.md from the files settles it."""
        return self.kind.startswith(REPAIRABLE_KINDS)

    def __str__(self) -> str:
        return str(self.as_message())

    def localized(self) -> str:
        """:meth:`__str__` with the detail in the person's language (magics, CLI)."""
        return self.as_message().localized()

    def as_message(self) -> Message:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return Message(
            "{kind}: {where}: {detail}", {"kind": self.kind, "where": where, "detail": self.detail}
        )


@dataclass
class DoctorReport:
    case_id: str
    entries: int = 0
    problems: list[CaseProblem] = field(default_factory=list)
    repaired: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def blocking(self) -> list[CaseProblem]:
        return [p for p in self.problems if p.blocking]

    def to_dict(self) -> dict[str, Any]:
        return {
            "case": self.case_id,
            "ok": self.ok,
            "entries": self.entries,
            "repaired": self.repaired,
            "problems": [asdict(p) for p in self.problems],
        }


@dataclass(frozen=True)
class CaseArchiveResult:
    """What closing a case did; ``included`` (已纳入) is the retrospective's input."""

    case_id: str
    snapshot: Path
    included: list[CaseRecord]
    updated: list[str]
    deleted: list[str]
    kept_legacy: list[str]
    compressed: list[str] = field(default_factory=list)  # 已排除 → one-line summary
    not_compressed: list[str] = field(default_factory=list)  # "file: why"

    def to_dict(self) -> dict[str, Any]:
        return {
            "case": self.case_id,
            "snapshot": str(self.snapshot),
            "included": [r.to_dict() for r in self.included],
            "updated": self.updated,
            "deleted": self.deleted,
            "kept_legacy": self.kept_legacy,
            "compressed": self.compressed,
            "not_compressed": self.not_compressed,
        }


@dataclass(frozen=True)
class CaseUncompressResult:
    """Entries whose record was given back from the pre-archive snapshot."""

    case_id: str
    snapshot: Path
    restored: list[str]
    skipped: list[str]  # "file: why"

    def to_dict(self) -> dict[str, Any]:
        return {
            "case": self.case_id,
            "snapshot": str(self.snapshot),
            "restored": self.restored,
            "skipped": self.skipped,
        }


@dataclass(frozen=True)
class CaseSearchHit:
    case_id: str
    name: str
    path: Path
    title: str
    type: str
    date: str
    status: str
    legacy: bool
    snippet: str

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["path"] = str(self.path)
        d["case"] = d.pop("case_id")
        d["file"] = d.pop("name")
        return d
