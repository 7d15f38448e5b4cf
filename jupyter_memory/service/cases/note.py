"""``CaseNoteWriter``: the spec 000 write decision flow behind :meth:`CaseMemory.note`.

policy disabled → already in evidence_registry.json → already in a working
paper → one of the five types → not a plain operation record → (under the
case lock) repair INDEX.md from the files → SKIP / UPDATE / CREATE → INDEX.md
→ read both back.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from ..._i18n import M_, Message
from ...core.cases import policy
from ...core.cases.entry_format import (
    DEFAULT_STATUS,
    ENTRY_TYPES,
    CaseEntry,
    FileLink,
    check_new_entry,
    entry_file_name,
    normalize_body,
    validate_evidence_ids,
    validate_status,
)
from ...core.cases.index_format import entry_row
from ...core.cases.source_link import source_link
from ...core.names import slugify, validate_slug
from ...exceptions import NotFoundError, ValidationError
from ..secret_guard import CASE_NOTE_REFUSED, refuse_secrets
from .index_keeper import CaseIndexKeeper
from .results import CaseNoteResult, CaseRecord, note_result

FileArg = str | FileLink | Sequence[str]


def _file_link(value: FileArg) -> FileLink:
    if isinstance(value, FileLink):
        return value
    if isinstance(value, str):
        return FileLink(Path(value).name or value, value)
    parts = list(value)
    if not 2 <= len(parts) <= 3:
        raise ValidationError(M_("give a path, (name, path) or (name, path, note)"), field="files")
    return FileLink(*parts)


class CaseNoteWriter:
    """Admit or refuse a note, then skip, update or create its entry (INDEX.md kept in step)."""

    def __init__(self, keeper: CaseIndexKeeper) -> None:
        self.keeper = keeper

    def _result(
        self,
        action: str,
        reason: Message,
        pol: policy.WritePolicy,
        count: int,
        *,
        path: Path | None = None,
        related: str | None = None,
        problems: tuple[str, ...] = (),
    ) -> CaseNoteResult:
        return note_result(
            self.keeper.case_id,
            action,
            reason,
            pol,
            count,
            path=path,
            related=related,
            problems=problems,
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
        source: str | os.PathLike[str] | None = None,
        actor: str = "assistant",
    ) -> CaseNoteResult:
        """Run the decision flow; see :meth:`CaseMemory.note` for the outcomes."""
        if not isinstance(title, str) or not isinstance(body, str):
            raise ValidationError(
                M_("title and body must be text"),
                field="title" if not isinstance(title, str) else "body",
            )
        evidence, hypotheses = list(evidence), list(hypotheses)  # read twice below
        refuse_secrets(  # the same check as remember (issue 29)
            CASE_NOTE_REFUSED,
            title=title,
            body=body,
            evidence="\n".join(map(str, evidence)),
            hypotheses="\n".join(map(str, hypotheses)),
        )
        keeper, store = self.keeper, self.keeper.store
        pol = keeper.policy()
        if pol.value == "disabled":
            return CaseNoteResult(
                "disabled",
                f"Memory Write Policy is disabled in {pol.source}; case memory is read-only",
                keeper.case_id,
                pol.value,
            )
        items = self._registry_items()
        refusal = self._excluded(type, title, body, pol, items)
        if refusal is not None:
            return refusal
        # 关联证据 links to the registry: an id it does not hold is named, never linked
        registered = {item.id for item in items}
        evidence = validate_evidence_ids(tuple(dict.fromkeys(evidence)))
        unknown = tuple(e for e in evidence if e not in registered)
        candidate = check_new_entry(
            CaseEntry(
                title=title.strip(),
                type=type,
                date=keeper.now().date().isoformat(),
                body=normalize_body(body),
                status=validate_status(status) if status is not None else DEFAULT_STATUS,
                evidence=tuple(e for e in evidence if e in registered),
                hypotheses=tuple(dict.fromkeys(hypotheses)),
                related=keeper.entry_name(related) if related is not None else None,
                files=tuple(dict.fromkeys(_file_link(f) for f in files)),
            )
        )
        slug = validate_slug(slug) if slug is not None else slugify(candidate.title)
        with keeper.locked():
            records, report = keeper.ensure_index(actor)
            # entries the write went around (unreadable, or two owning one row)
            problems = tuple(p.as_message() for p in report.blocking)
            names = {r.name for r in records}
            if candidate.related is not None and candidate.related not in names:
                keeper.stop_if_blocked(report, candidate.related)  # there but unreadable
                raise NotFoundError(
                    M_(
                        "related entry {related} not found in {memory_dir}",
                        related=candidate.related,
                        memory_dir=keeper.memory_dir,
                    )
                )
            decision = policy.decide_case_note(
                candidate, [(r.name, r.entry) for r in records], status_given=status is not None
            )
            if decision.action == "skip":
                skipped = self._result(
                    "skipped",
                    decision.reason,
                    pol,
                    len(records),
                    path=store.entry_path(decision.target or ""),
                    problems=problems,
                )
                return replace(skipped, unknown_evidence=unknown)
            if decision.action == "update":
                target = decision.target or ""
                keeper.stop_if_blocked(report, target)
                result = self._update(
                    target, candidate, records, status, actor, pol, decision.reason
                )
            else:
                link = source_link(source, keeper.memory_dir) if source is not None else None
                result = self._create(candidate, slug, decision, records, actor, pol, link)
            return replace(result, problems=problems, unknown_evidence=unknown)

    def _registry_items(self) -> list[policy.RegistryItem]:
        """The case's registered evidence (none without a registry); invalid JSON raises:
        exclusion cannot be checked."""
        store = self.keeper.store
        registry = store.read_registry()
        if registry is None:
            return []
        return policy.registry_items(registry, path=str(store.registry_path))

    def _excluded(
        self,
        type: str,
        title: str,
        body: str,
        pol: policy.WritePolicy,
        items: list[policy.RegistryItem],
    ) -> CaseNoteResult | None:
        """Spec 000's exclusions, in its order; ``None`` when the note is admissible."""
        store = self.keeper.store
        n = len(store.list_names()[0])
        item = policy.match_registry(title, body, items)
        if item is not None:
            reason = M_("already registered in evidence_registry.json as {id}", id=item.id)
            return self._result("excluded", reason, pol, n)
        paper = policy.match_working_paper(body, store.read_working_papers())
        if paper is not None:
            reason = M_("already in working papers: {paper}", paper=paper)
            return self._result("excluded", reason, pol, n)
        if type not in ENTRY_TYPES:
            reason = M_(
                "type {type!r} is not one of the five types ({types})",
                type=type,
                types=", ".join(ENTRY_TYPES),
            )
            return self._result("excluded", reason, pol, n)
        if type == "think" and policy.is_reasoning_chain(body):
            reason = M_(
                "a step-by-step reasoning chain; a think entry keeps only the reviewable "
                "decision reason (write that summary instead)"
            )
            return self._result("excluded", reason, pol, n)
        if policy.is_operation_record(body):
            reason = M_("a plain operation record, not a finding or a decision reason")
            return self._result("excluded", reason, pol, n)
        return None

    def _create(
        self,
        candidate: CaseEntry,
        slug: str,
        decision: policy.CaseNoteDecision,
        records: list[CaseRecord],
        actor: str,
        pol: policy.WritePolicy,
        link: FileLink | None = None,
    ) -> CaseNoteResult:
        keeper = self.keeper
        # every row of INDEX.md, those kept for unreadable entries included
        keys = {row.key for row in keeper.expected_index(records).rows}
        entry = replace(candidate, related=decision.related)
        if link is not None and not entry.files:  # 关联文件: where the note came from
            entry = replace(entry, files=(link,))
        n = 1
        while entry_row(entry).key in keys:  # same day, type and title: keep rows distinct
            n += 1
            entry = replace(entry, title=f"{candidate.title}（续 {n}）")
        names = {r.name for r in records}
        name, n = entry_file_name(entry.date, entry.type, slug), 1
        while name in names or keeper.store.entry_path(name).exists():
            n += 1
            name = entry_file_name(entry.date, entry.type, f"{slug}-{n}")
        path = keeper.write_entry(name, entry, actor, action="case.create")
        records = [*records, CaseRecord(keeper.case_id, name, path, entry)]
        keeper.write_index(records, actor, action="case.index")
        keeper.verify(name, records)
        return self._result(
            "created", decision.reason, pol, len(records), path=path, related=entry.related
        )

    def _update(
        self,
        target: str,
        candidate: CaseEntry,
        records: list[CaseRecord],
        status: str | None,
        actor: str,
        pol: policy.WritePolicy,
        reason: Message,
    ) -> CaseNoteResult:
        keeper = self.keeper
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
        keeper.rewrite(record, new, actor)
        records = [replace(r, entry=new) if r.name == target else r for r in records]
        keeper.write_index(records, actor, action="case.index")
        keeper.verify(target, records)
        return self._result("updated", reason, pol, len(records), path=record.path)


__all__ = ["CaseNoteWriter", "FileArg"]
