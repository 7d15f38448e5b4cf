"""The spec 000 write decision flow behind :meth:`CaseMemory.note`.

policy disabled → already in evidence_registry.json → already in a working
paper → one of the five types → not a plain operation record → (under the
case lock) repair INDEX.md from the files → SKIP / UPDATE / CREATE → INDEX.md
→ read both back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.cases import policy
from ...core.cases.format import (
    DEFAULT_STATUS,
    ENTRY_TYPES,
    CaseEntry,
    FileLink,
    check_new_entry,
    entry_file_name,
    entry_row,
    normalize_body,
    render_entry,
    validate_status,
)
from ...core.names import slugify, validate_slug
from ...exceptions import NotFoundError, ValidationError
from .results import CaseNoteResult, CaseRecord

if TYPE_CHECKING:
    from .memory import CaseMemory

FileArg = str | FileLink | Sequence[str]


def _file_link(value: FileArg) -> FileLink:
    if isinstance(value, FileLink):
        return value
    if isinstance(value, str):
        return FileLink(Path(value).name or value, value)
    parts = list(value)
    if not 2 <= len(parts) <= 3:
        raise ValidationError("give a path, (name, path) or (name, path, note)", field="files")
    return FileLink(*parts)


def run_note(
    cm: CaseMemory,
    type: str,
    title: str,
    body: str,
    evidence: Iterable[str],
    hypotheses: Iterable[str],
    related: str | None,
    files: Iterable[FileArg],
    *,
    status: str | None,
    slug: str | None,
    actor: str,
) -> CaseNoteResult:
    if not isinstance(title, str) or not isinstance(body, str):
        raise ValidationError(
            "title and body must be text", field="title" if not isinstance(title, str) else "body"
        )
    pol = cm.policy()
    if pol.value == "disabled":
        return CaseNoteResult(
            "disabled",
            f"Memory Write Policy is disabled in {pol.source}; case memory is read-only",
            cm.case_id,
            pol.value,
        )
    registry = cm.store.read_registry()  # invalid JSON raises: exclusion unknowable
    n_entries = len(cm.store.list_names()[0])
    item = policy.match_registry(
        title,
        body,
        policy.registry_items(registry, path=str(cm.store.registry_path))
        if registry is not None
        else [],
    )
    if item is not None:
        return cm._result(
            "excluded",
            f"already registered in evidence_registry.json as {item.id}",
            pol,
            n_entries,
        )
    paper = policy.match_working_paper(body, cm.store.read_working_papers())
    if paper is not None:
        return cm._result("excluded", f"already in working papers: {paper}", pol, n_entries)
    if type not in ENTRY_TYPES:
        return cm._result(
            "excluded",
            f"type {type!r} is not one of the five types ({', '.join(ENTRY_TYPES)})",
            pol,
            n_entries,
        )
    if type == "think" and policy.is_reasoning_chain(body):
        return cm._result(
            "excluded",
            "a step-by-step reasoning chain; a think entry keeps only the reviewable decision "
            "reason (write that summary instead)",
            pol,
            n_entries,
        )
    if policy.is_operation_record(body):
        return cm._result(
            "excluded",
            "a plain operation record, not a finding or a decision reason",
            pol,
            n_entries,
        )
    candidate = check_new_entry(
        CaseEntry(
            title=title.strip() if isinstance(title, str) else title,
            type=type,
            date=cm._clock().date().isoformat(),
            body=normalize_body(body) if isinstance(body, str) else body,
            status=validate_status(status) if status is not None else DEFAULT_STATUS,
            evidence=tuple(dict.fromkeys(evidence)),
            hypotheses=tuple(dict.fromkeys(hypotheses)),
            related=cm._entry_name(related) if related is not None else None,
            files=tuple(dict.fromkeys(_file_link(f) for f in files)),
        )
    )
    slug = validate_slug(slug) if slug is not None else slugify(candidate.title)
    with cm.store.locked():
        records, _ = cm._ensure_index(actor)
        names = {r.name for r in records}
        if candidate.related is not None and candidate.related not in names:
            raise NotFoundError(f"related entry {candidate.related} not found in {cm.memory_dir}")
        decision = policy.decide(
            candidate, [(r.name, r.entry) for r in records], status_given=status is not None
        )
        if decision.action == "skip":
            return cm._result(
                "skipped",
                decision.reason,
                pol,
                len(records),
                path=cm.store.entry_path(decision.target or ""),
            )
        if decision.action == "update":
            return _update(
                cm, decision.target or "", candidate, records, status, actor, pol, decision.reason
            )
        return _create(cm, candidate, slug, decision, records, actor, pol)


def _create(
    cm: CaseMemory,
    candidate: CaseEntry,
    slug: str,
    decision: policy.Decision,
    records: list[CaseRecord],
    actor: str,
    pol: policy.WritePolicy,
) -> CaseNoteResult:
    keys = {entry_row(r.entry).key for r in records}
    entry = replace(candidate, related=decision.related)
    n = 1
    while entry_row(entry).key in keys:  # same day, type and title: keep rows distinct
        n += 1
        entry = replace(entry, title=f"{candidate.title}（续 {n}）")
    names = {r.name for r in records}
    name, n = entry_file_name(entry.date, entry.type, slug), 1
    while name in names or cm.store.entry_path(name).exists():
        n += 1
        name = entry_file_name(entry.date, entry.type, f"{slug}-{n}")
    path = cm.store.write(
        name, render_entry(entry), action="case.create", actor=actor, at=cm._clock()
    )
    records = [*records, CaseRecord(cm.case_id, name, path, entry)]
    cm._write_index(records, actor, action="case.index")
    cm._verify(name, records)
    return cm._result(
        "created", decision.reason, pol, len(records), path=path, related=entry.related
    )


def _update(
    cm: CaseMemory,
    target: str,
    candidate: CaseEntry,
    records: list[CaseRecord],
    status: str | None,
    actor: str,
    pol: policy.WritePolicy,
    reason: str,
) -> CaseNoteResult:
    record = next(r for r in records if r.name == target)
    old = record.entry
    new = replace(
        old,
        evidence=tuple(dict.fromkeys((*old.evidence, *candidate.evidence))),
        hypotheses=tuple(dict.fromkeys((*old.hypotheses, *candidate.hypotheses))),
        files=tuple(dict.fromkeys((*old.files, *candidate.files))),
        related=candidate.related or old.related,
        status=status or old.status,
    )
    cm._rewrite(record, new, actor)
    records = [replace(r, entry=new) if r.name == target else r for r in records]
    cm._write_index(records, actor, action="case.index")
    cm._verify(target, records)
    return cm._result("updated", reason, pol, len(records), path=record.path)
