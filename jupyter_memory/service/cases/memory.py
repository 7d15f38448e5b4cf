"""``CaseMemory``: one investigation case's memory (spec 000), the single place
for its policy: the write policy, the decision flow, repair, archive.

It composes three parts over one :class:`~.index_keeper.CaseIndexKeeper`
(files, INDEX.md, clock, write policy): the note writer (``note.py``), the
archiver (``archive.py``) and the reads below. Cross-case search is
:func:`~.search.search_cases`; DataFrames are in :mod:`jupyter_memory.frames.cases`.

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

from ..._i18n import M_
from ...core.cases import policy
from ...core.cases.entry_format import validate_status
from ...core.cases.index_format import CaseIndex, entry_row, period_of, render_index
from ...exceptions import NotFoundError
from ...store.cases.files import CaseStore, list_case_ids
from .archive import CaseArchiver
from .index_keeper import CaseIndexKeeper, EntryRef, workspace_policy
from .note import CaseNoteWriter, FileArg
from .results import (
    CaseArchiveResult,
    CaseNoteResult,
    CaseRecord,
    CaseUncompressResult,
    DoctorReport,
    note_result,
)


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
        self.keeper = CaseIndexKeeper(workspace, case_id, name=name, clock=clock)
        self.notes = CaseNoteWriter(self.keeper)
        self.archiver = CaseArchiver(self.keeper)

    @property
    def store(self) -> CaseStore:
        return self.keeper.store

    @property
    def case_id(self) -> str:
        return self.keeper.case_id

    @property
    def workspace(self) -> Path:
        return self.keeper.workspace

    @property
    def memory_dir(self) -> Path:
        return self.keeper.memory_dir

    def policy(self) -> policy.WritePolicy:
        """The team's Memory Write Policy (read before every write attempt)."""
        return self.keeper.policy()

    # -- reading -------------------------------------------------------------------------

    def entries(
        self,
        *,
        type: str | None = None,
        evidence: str | None = None,
        hypothesis: str | None = None,
        status: str | None = None,
        legacy: bool | None = None,
    ) -> list[CaseRecord]:
        """Entries sorted by date, filtered. Legacy v1 entries are listed with what
        they have (state ``""`` when unknown); a file that cannot be read at all is
        left out here and reported by :meth:`doctor` and :meth:`status`."""
        records, _ = self.keeper.load()
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

    def get(self, entry: EntryRef) -> CaseRecord:
        return self.keeper.record(entry)

    def index(self) -> CaseIndex:
        """The index derived from the files (what INDEX.md should say); writes nothing."""
        records, _ = self.keeper.load()
        return self.keeper.expected_index(records)

    def index_markdown(self, only: Iterable[CaseRecord] | None = None) -> str:
        """INDEX.md as the files imply it; ``only``: just the rows of these entries."""
        index = self.index()
        if only is not None:
            keys = {entry_row(r.entry).key for r in only}
            rows = tuple(r for r in index.rows if r.key in keys)
            index = replace(index, rows=rows, period=period_of(rows))
        return render_index(index)

    def doctor(self) -> DoctorReport:
        """Check INDEX.md against the entry files; changes nothing."""
        return self.keeper.check(*self.keeper.load())

    # -- writing ---------------------------------------------------------------------------

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
        source: str | os.PathLike[str] | None = None,
        actor: str = "assistant",
    ) -> CaseNoteResult:
        """Run spec 000's write decision flow; return what it did.

        ``action`` is ``disabled`` (policy), ``excluded`` (already evidence, already
        in a working paper, a plain operation record, or not one of the five
        types), ``skipped`` (exact duplicate), ``updated`` (only status or links
        changed) or ``created`` (with ``关联 Memory`` filled when it continues an
        existing topic). Failures raise, whatever the policy.

        ``evidence`` ids missing from ``evidence_registry.json`` are not linked
        and are named in ``unknown_evidence``. ``source`` is the notebook or chat
        the note came from: a new entry given no ``files`` links it (关联文件).
        The file name keeps a Chinese title readable (``…_退款不计入收入.md``)."""
        return self.notes.note(
            type,
            title,
            body,
            evidence,
            hypotheses,
            related,
            files,
            status=status,
            slug=slug,
            source=source,
            actor=actor,
        )

    def set_status(self, entry: EntryRef, status: str, *, actor: str = "person") -> CaseNoteResult:
        """Entry file first, then INDEX.md, then read both back."""
        keeper = self.keeper
        validate_status(status)
        name = keeper.entry_name(entry)
        pol = keeper.require_writable()
        with keeper.locked():
            records, _ = keeper.ensure_index(actor, target=name)
            record = next((r for r in records if r.name == name), None)
            if record is None:
                raise NotFoundError(
                    M_(
                        "no case memory entry {name} in {memory_dir}",
                        name=name,
                        memory_dir=self.memory_dir,
                    )
                )
            if record.status == status:
                return note_result(
                    self.case_id,
                    "skipped",
                    M_("already {status}", status=status),
                    pol,
                    len(records),
                    path=record.path,
                )
            new = replace(record.entry, status=status)
            keeper.rewrite(record, new, actor)
            records = [replace(r, entry=new) if r.name == name else r for r in records]
            keeper.write_index(records, actor, action="case.index")
            keeper.verify(name, records)
        reason = M_("status {old} → {new}", old=record.status, new=status)
        return note_result(self.case_id, "updated", reason, pol, len(records), path=record.path)

    def repair(self, *, actor: str = "person") -> DoctorReport:
        """Rewrite INDEX.md from the entry files; stops (raises) when ambiguous."""
        self.keeper.require_writable()
        with self.keeper.locked():
            _, report = self.keeper.ensure_index(actor)
        return report

    def rebuild_index(self, *, actor: str = "person") -> DoctorReport:
        """Rebuild INDEX.md from the files whether or not it looked consistent."""
        self.keeper.require_writable()
        with self.keeper.locked():
            records, report = self.keeper.ensure_index(actor)
            if not report.repaired:
                self.keeper.write_index(records, actor, action="case.rebuild")
        return report

    def archive(
        self,
        final_states: Mapping[str, str] | None = None,
        delete: Iterable[EntryRef] = (),
        *,
        compress_excluded: bool = False,
        actor: str = "person",
    ) -> CaseArchiveResult:
        """Close the case: snapshot INDEX.pre-archive.md, mark final states, delete
        the entries confirmed worthless (file and row), return the 已纳入 list.
        ``compress_excluded``: each v2 entry ending 已排除 keeps a one-line record,
        its full text kept in the snapshot (:meth:`uncompress` gives it back)."""
        return self.archiver.archive(
            final_states, delete, compress_excluded=compress_excluded, actor=actor
        )

    def uncompress(
        self, entries: Iterable[EntryRef] = (), *, actor: str = "person"
    ) -> CaseUncompressResult:
        """Give compressed records back from INDEX.pre-archive.md (all, or ``entries``)."""
        return self.archiver.uncompress(entries, actor=actor)

    # -- overview --------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """What ``%case open`` / ``case open`` show: policy, counts, index health."""
        pol = self.policy()
        records, problems = self.keeper.load()
        report = self.keeper.check(records, problems)
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
            "problems": [p.as_message() for p in report.problems],
            "suggestion": policy.noise_suggestion(len(records)),
        }


def list_cases(workspace: str | os.PathLike[str]) -> list[str]:
    """Ids of every case under ``<workspace>/cases/`` (for pickers and frames)."""
    return list_case_ids(workspace)


__all__ = ["CaseMemory", "list_cases", "workspace_policy"]
