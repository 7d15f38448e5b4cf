"""``CaseMemory``: one investigation case's memory (spec 000), the single place
for its policy: the write policy, the decision flow, repair, archive.

Red lines (each has a test): it never writes ``evidence_registry.json``,
working papers or any workflow file (the store refuses targets outside
``case_memory/``); it never asks the person anything (results carry at most
one non-blocking line); and nothing here is ever injected into an agent's
context — it is read for retrospectives and on request only.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ...core.cases import policy
from ...core.cases.format import (
    CaseEntry,
    CaseIndex,
    entry_row,
    parse_entry,
    parse_entry_name,
    parse_index,
    parse_index_header,
    period_of,
    render_entry,
    render_index,
    validate_status,
)
from ...exceptions import (
    ConflictError,
    DerivedIndexError,
    NotFoundError,
    ParseError,
    PolicyError,
    UnsafeNameError,
    ValidationError,
)
from ...store.cases.files import CaseStore, read_team_profile
from ...store.links import linked
from .index_check import index_problems
from .note import FileArg, run_note
from .results import ArchiveResult, CaseNoteResult, CaseProblem, CaseRecord, DoctorReport


def _local_now() -> datetime:
    return datetime.now().astimezone()


def workspace_policy(workspace: str | os.PathLike[str]) -> policy.WritePolicy:
    """The Memory Write Policy of ``<workspace>/team-profile.md`` (``notify`` + hint if unset)."""
    path, text = read_team_profile(workspace)
    return policy.parse_team_profile(text, path=str(path))


class CaseMemory:
    """``CaseMemory(workspace, "CASE-2026-001")``: read, note, repair, archive."""

    def __init__(
        self,
        workspace: str | os.PathLike[str],
        case_id: str,
        *,
        name: str | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.store = CaseStore(workspace, case_id)
        if not self.store.workspace.is_dir():
            raise NotFoundError(f"workspace folder not found: {self.store.workspace}")
        if name is not None and ("\n" in name or not name.strip()):
            raise ValidationError("must be one non-empty line", field="name")
        self._name = name.strip() if name else None
        self._clock = clock or _local_now

    @property
    def case_id(self) -> str:
        return self.store.case_id

    @property
    def workspace(self) -> Path:
        return self.store.workspace

    @property
    def memory_dir(self) -> Path:
        return self.store.memory_dir

    def policy(self) -> policy.WritePolicy:
        """The team's Memory Write Policy (read before every write attempt)."""
        return workspace_policy(self.workspace)

    # -- reading -------------------------------------------------------------------------

    def _load(self) -> tuple[list[CaseRecord], list[CaseProblem]]:
        names, stray = self.store.list_names()
        records: list[CaseRecord] = []
        problems: list[CaseProblem] = []
        rel_dir = self.store.relative(self.memory_dir)
        for name in names:
            path = self.memory_dir / name
            rel = f"{rel_dir}/{name}"
            try:
                entry = parse_entry(self.store.read_entry(name), path=rel)
            except ParseError as exc:
                problems.append(CaseProblem("entry-unparseable", rel, exc.reason, blocking=True))
                continue
            date, etype, _ = parse_entry_name(name) or ("", "", "")
            if entry.legacy:  # a v1 file may lack fields its name carries
                entry = replace(entry, type=entry.type or etype, date=entry.date or date)
            if (entry.type, entry.date) != (etype, date):
                problems.append(
                    CaseProblem(
                        "name-mismatch",
                        rel,
                        f"file says {entry.date} {entry.type}, its name says {date} {etype}",
                    )
                )
            records.append(CaseRecord(self.case_id, name, path, entry))
        for name in stray:
            rel = self.store.relative(self.store.entry_path(name))
            problems.append(
                CaseProblem("stray", rel, "not named <YYYY-MM-DD>_<type>_<slug>.md; not indexed")
            )
        by_key: dict[tuple[str, str, str], list[str]] = {}
        for r in records:
            by_key.setdefault(entry_row(r.entry).key, []).append(r.name)
        for key, owners in by_key.items():
            if len(owners) > 1:
                problems.append(
                    CaseProblem(
                        "ambiguous",
                        self.store.relative(self.store.index_path),
                        f"files {', '.join(owners)} would own the same row {' | '.join(key)}; "
                        "rename one title so each row names one file",
                        blocking=True,
                    )
                )
        return records, problems

    def entries(
        self,
        *,
        type: str | None = None,
        evidence: str | None = None,
        hypothesis: str | None = None,
        status: str | None = None,
        legacy: bool | None = None,
    ) -> list[CaseRecord]:
        """Entries sorted by date, filtered; an unreadable file is a :class:`ParseError`."""
        records, problems = self._load()
        for p in problems:
            if p.kind == "entry-unparseable":
                raise ParseError(p.detail, path=p.path)
        out = [
            r
            for r in records
            if (type is None or r.type == type)
            and (evidence is None or evidence in r.entry.evidence)
            and (hypothesis is None or hypothesis in r.entry.hypotheses)
            and (status is None or r.status == status)
            and (legacy is None or r.legacy == legacy)
        ]
        return sorted(out, key=lambda r: (r.date, r.name))

    def get(self, entry: str | os.PathLike[str] | CaseRecord) -> CaseRecord:
        name = self._entry_name(entry)
        text = self.store.read_entry(name)
        parsed = parse_entry(text, path=self.store.relative(self.store.entry_path(name)))
        return CaseRecord(self.case_id, name, self.store.entry_path(name), parsed)

    def _entry_name(self, entry: str | os.PathLike[str] | CaseRecord) -> str:
        if isinstance(entry, CaseRecord):
            return entry.name
        raw = os.fspath(entry)
        path = Path(raw)
        if len(path.parts) > 1:
            resolved = (self.workspace / path).resolve() if not path.is_absolute() else path
            if resolved.parent != self.memory_dir:
                resolved = (self.memory_dir / path).resolve()
            if resolved.parent != self.memory_dir.resolve():
                raise UnsafeNameError(f"{raw!r} is not inside {self.memory_dir}", field="entry")
            raw = resolved.name
        if parse_entry_name(raw) is None:
            raise UnsafeNameError(
                f"{raw!r} is not a case memory file (<YYYY-MM-DD>_<type>_<slug>.md)", field="entry"
            )
        return raw

    def _expected_index(
        self, records: Iterable[CaseRecord], index_text: str | None = None
    ) -> CaseIndex:
        rows = tuple(entry_row(r.entry) for r in sorted(records, key=lambda r: (r.date, r.name)))
        existing = self.store.read_index() if index_text is None else index_text
        old_name = parse_index_header(existing)[1] if existing else None
        name = self._name or old_name or self.case_id
        return CaseIndex(self.case_id, name, period_of(rows), rows)

    def index(self) -> CaseIndex:
        """The index derived from the files (what INDEX.md should say); writes nothing."""
        records, _ = self._load()
        return self._expected_index(records)

    def index_markdown(self) -> str:
        return render_index(self.index())

    def doctor(self) -> DoctorReport:
        """Check INDEX.md against the entry files; changes nothing."""
        return self._doctor(*self._load())

    def _doctor(self, records: list[CaseRecord], problems: list[CaseProblem]) -> DoctorReport:
        report = DoctorReport(self.case_id, entries=len(records), problems=list(problems))
        # A link is never followed (issue 19): reads skip it, a write through it
        # raises LinkedPathError naming it; doctor lists each one.
        report.problems.extend(
            CaseProblem(
                "symlink",
                self.store.relative(link),
                "symlink is never followed; replace it with the real file or folder",
            )
            for link in self.store.links()
        )
        if self.memory_dir.is_dir() and not linked(self.workspace, self.memory_dir):
            index_text = self.store.read_index()
            report.problems.extend(
                index_problems(
                    self._expected_index(records, index_text or ""),
                    index_text,
                    {entry_row(r.entry).key: self.store.relative(r.path) for r in records},
                    self.store.relative(self.store.index_path),
                )
            )
        return report

    # -- writing ---------------------------------------------------------------------------

    def _require_writable(self) -> policy.WritePolicy:
        pol = self.policy()
        if pol.value == "disabled":
            raise PolicyError(
                f"Memory Write Policy is disabled in {pol.source}: case memory is read-only"
            )
        return pol

    def _ensure_index(self, actor: str) -> tuple[list[CaseRecord], DoctorReport]:
        """Repair INDEX.md from the files (caller holds the lock); stop when ambiguous."""
        records, problems = self._load()
        report = self._doctor(records, problems)
        if report.blocking:
            lines = "; ".join(str(p) for p in report.blocking)
            raise DerivedIndexError(f"case memory writing stopped for {self.case_id}: {lines}")
        if any(
            p.kind.startswith(("index-", "missing-", "orphan-", "row-")) for p in report.problems
        ):
            self._write_index(records, actor, action="case.repair")
            report.repaired = True
        return records, report

    def _write_index(self, records: list[CaseRecord], actor: str, *, action: str) -> None:
        text = render_index(self._expected_index(records))
        self.store.write("INDEX.md", text, action=action, actor=actor, at=self._clock())

    def _verify(self, name: str, records: list[CaseRecord]) -> None:
        """Read the entry and INDEX.md back and compare status and links."""
        rel = self.store.relative(self.store.entry_path(name))
        entry = parse_entry(self.store.read_entry(name), path=rel)
        index = parse_index(self.store.read_index() or "", path=str(self.store.index_path))
        rows = [r for r in index.rows if r.key == entry_row(entry).key]
        if len(rows) != 1 or rows[0] != entry_row(entry) or len(index.rows) != len(records):
            raise DerivedIndexError(
                f"read-back mismatch between {rel} and INDEX.md (status or links differ)"
            )

    def _result(
        self, action: str, reason: str, pol: policy.WritePolicy, count: int, **kw: Any
    ) -> CaseNoteResult:
        return CaseNoteResult(
            action,
            reason,
            self.case_id,
            pol.value,
            suggestion=policy.noise_suggestion(count),
            hint=pol.hint,
            **kw,
        )

    def note(
        self,
        type: str,
        title: str,
        body: str,
        evidence: Iterable[str] = (),
        hypotheses: Iterable[str] = (),
        related: str | None = None,
        files: Iterable[FileArg] = (),
        *,
        status: str | None = None,
        slug: str | None = None,
        actor: str = "assistant",
    ) -> CaseNoteResult:
        """Run spec 000's write decision flow; return what it did.

        ``action`` is ``disabled`` (policy), ``excluded`` (already evidence, already
        in a working paper, a plain operation record, or not one of the five
        types), ``skipped`` (exact duplicate), ``updated`` (only status or links
        changed) or ``created`` (with ``关联 Memory`` filled when it continues an
        existing topic). Failures raise, whatever the policy."""
        return run_note(
            self,
            type,
            title,
            body,
            evidence,
            hypotheses,
            related,
            files,
            status=status,
            slug=slug,
            actor=actor,
        )

    def _rewrite(self, record: CaseRecord, new: CaseEntry, actor: str) -> None:
        """Replace an entry file (never a legacy one, never one edited beyond our format)."""
        if record.legacy:
            raise ConflictError(f"{record.name} is a legacy v1 entry: read-only, never rewritten")
        text = self.store.read_entry(record.name)
        if render_entry(record.entry) != text.replace("\r\n", "\n"):
            raise ConflictError(
                f"{record.name} was edited beyond the entry format; rewriting it would lose "
                "text, so it is left alone (edit its status by hand)"
            )
        self.store.write(
            record.name, render_entry(new), action="case.update", actor=actor, at=self._clock()
        )

    def set_status(
        self, entry: str | os.PathLike[str] | CaseRecord, status: str, *, actor: str = "person"
    ) -> CaseNoteResult:
        """Entry file first, then INDEX.md, then read both back."""
        validate_status(status)
        name = self._entry_name(entry)
        pol = self._require_writable()
        with self.store.locked():
            records, _ = self._ensure_index(actor)
            record = next((r for r in records if r.name == name), None)
            if record is None:
                raise NotFoundError(f"no case memory entry {name} in {self.memory_dir}")
            if record.status == status:
                return self._result(
                    "skipped", f"already {status}", pol, len(records), path=record.path
                )
            new = replace(record.entry, status=status)
            self._rewrite(record, new, actor)
            records = [replace(r, entry=new) if r.name == name else r for r in records]
            self._write_index(records, actor, action="case.index")
            self._verify(name, records)
        return self._result(
            "updated", f"status {record.status} → {status}", pol, len(records), path=record.path
        )

    def repair(self, *, actor: str = "person") -> DoctorReport:
        """Rewrite INDEX.md from the entry files; stops (raises) when ambiguous."""
        self._require_writable()
        with self.store.locked():
            _, report = self._ensure_index(actor)
        return report

    def rebuild_index(self, *, actor: str = "person") -> DoctorReport:
        """Rebuild INDEX.md from the files whether or not it looked consistent."""
        self._require_writable()
        with self.store.locked():
            records, report = self._ensure_index(actor)
            if not report.repaired:
                self._write_index(records, actor, action="case.rebuild")
        return report

    def archive(
        self,
        final_states: Mapping[str, str] | None = None,
        delete: Iterable[str | os.PathLike[str] | CaseRecord] = (),
        *,
        actor: str = "person",
    ) -> ArchiveResult:
        """Close the case: snapshot INDEX.pre-archive.md, mark final states, delete
        the entries confirmed worthless (file and row), return the 已纳入 list."""
        from .archive import run_archive

        self._require_writable()
        return run_archive(self, dict(final_states or {}), list(delete), actor)

    # -- overview --------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """What ``%case open`` / ``case open`` show: policy, counts, index health."""
        pol = self.policy()
        records, problems = self._load()
        report = self._doctor(records, problems)
        return {
            "case": self.case_id,
            "workspace": str(self.workspace),
            "memory_dir": str(self.memory_dir),
            "policy": pol.value,
            "hint": pol.hint,
            "entries": len(records),
            "legacy": sum(r.legacy for r in records),
            "by_type": dict(Counter(r.type for r in records)),
            "by_status": dict(Counter(r.status for r in records)),
            "index_ok": report.ok,
            "problems": [str(p) for p in report.problems],
            "suggestion": policy.noise_suggestion(len(records)),
        }

    def frame(self) -> Any:
        """Entries as a pandas DataFrame (pandas imported only here)."""
        from ...frames.cases import case_frame

        return case_frame(self)


from .search import search_cases  # noqa: E402  (re-exported next to CaseMemory)


def list_cases(workspace: str | os.PathLike[str]) -> list[str]:
    """Ids of every case under ``<workspace>/cases/`` (for pickers and frames)."""
    from ...store.cases.files import list_case_ids

    return list_case_ids(workspace)


__all__ = ["CaseMemory", "list_cases", "search_cases", "workspace_policy"]
