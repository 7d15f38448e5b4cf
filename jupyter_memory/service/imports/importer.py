"""``Memory.import_from``: read a source, plan every item, then write memories and proposals.

Order of work: read the source (store), parse each file (core), plan every
item against what is stored (core), and only then write: memories in one
validated batch (``Memory.hooks.import_jsonl``), proposals one by one through
``Memory.propose`` with the file's text as the person's words, so the
evidence check of invariant 4 runs as for any proposal. A dry run stops
after the plan: it reports exactly what the writes would be.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..._i18n import M_
from ...core.imports import agents_md, basic_memory, bounds, claude_memory, mem0, nbi
from ...core.imports.drafts import SOURCES, MemoryDraft, ParsedFile, text_key
from ...core.imports.plan import ExistingState, ImportPlan, plan_import
from ...core.knowledge.keys import dedup_hash
from ...core.knowledge.known import Known
from ...core.progress import NoProgress, Progress
from ...exceptions import JupyterMemoryError, ParseError, PolicyError, ValidationError
from ...store.imports.source_files import (
    MAX_EXPORT_JSON_BYTES,
    SourceFile,
    SourceListing,
    read_source,
)
from ...store.imports.staging import staged_jsonl
from ..paths import resolve_project_dir
from ..secret_guard import kinds_in
from .port import MemoryPort
from .report import ImportReport

AGENTS_FILES = ("AGENTS.md", "CLAUDE.md")
MAX_IMPORT_ITEMS = bounds.MAX_IMPORT_ITEMS


def _refuse_secrets(pf: ParsedFile) -> None:
    """Imported text goes through the secret guard: an item holding a secret is left
    out and named with its kinds (the rest of the file is imported)."""
    memories = []
    for draft in pf.memories:
        kinds = kinds_in(draft.text) or kinds_in(draft.title)
        if kinds:
            item = f"line {draft.line}" if draft.line else "note"
            pf.skipped.append((item, _secret_reason(kinds)))
        else:
            memories.append(draft)
    proposals = []
    for prop in pf.proposals:
        kinds = kinds_in(prop.text) or kinds_in(prop.quote)
        if kinds:
            pf.skipped.append((f"line {prop.line}", _secret_reason(kinds)))
        else:
            proposals.append(prop)
    pf.memories, pf.proposals = memories, proposals


def _secret_reason(kinds: tuple[str, ...]) -> str:
    return str(M_("holds a secret ({kinds}): not imported", kinds=", ".join(kinds)))


def _read(source: str, path: str | os.PathLike[str], progress: Progress) -> SourceListing:
    progress.stage("reading", None)
    tick = progress.advance
    if source == "mem0":
        return read_source(
            path,
            wanted=lambda r: r.endswith(".json"),
            max_bytes=MAX_EXPORT_JSON_BYTES,
            progress=tick,
        )
    if source == "agents-md":
        return read_source(path, wanted=lambda r: r in AGENTS_FILES, progress=tick)
    if source == "claude-memory":
        return read_source(
            path,
            wanted=lambda r: claude_memory.kind_of_file(r, memory_folder=True) is not None,
            hidden_ok=frozenset({".claude"}),
            progress=tick,
        )
    return read_source(path, wanted=lambda r: r.endswith(".md"), progress=tick)


def _claude_files(listing: SourceListing) -> tuple[list[SourceFile], bool]:
    if listing.single_file:
        return listing.files, False
    memory_folder = any(f.rel == claude_memory.INDEX_NAME for f in listing.files)
    files = [
        f
        for f in listing.files
        if claude_memory.kind_of_file(f.rel, memory_folder=memory_folder) is not None
    ]
    return files, memory_folder


def _parse(
    source: str,
    listing: SourceListing,
    mem: MemoryPort,
    default_layer: str,
    planned_dir: Path | None = None,
) -> tuple[list[tuple[ParsedFile, str]], list[dict[str, str]]]:
    files = listing.files
    memory_folder = False
    if source == "claude-memory":
        files, memory_folder = _claude_files(listing)
    topics = frozenset(f.rel for f in files)
    home = str(Path.home())
    folder = planned_dir or mem.hooks.project_dir
    project_dir = str(folder) if folder else None
    parsed: list[tuple[ParsedFile, str]] = []
    problems: list[dict[str, str]] = []
    items = 0
    for f in files:
        try:
            if source == "basic-memory":
                pf = ParsedFile(f.rel, memories=[basic_memory.parse_note(f.rel, f.text)])
            elif source == "mem0":
                # Counted before any draft is built: a huge export stops here.
                room = MAX_IMPORT_ITEMS - items
                drafts = mem0.parse_export(f.rel, f.text, room=room, cap=MAX_IMPORT_ITEMS)
                pf = ParsedFile(f.rel, memories=drafts)
            elif source == "nbi":
                pf = nbi.parse_rule(f.rel, f.text, project_dir=project_dir, home=home)
            elif source == "agents-md":
                pf = agents_md.parse_instructions(f.rel, f.text, layer=default_layer)
            else:
                pf = claude_memory.parse_file(
                    f.rel,
                    f.text,
                    layer=default_layer,
                    topic_files=topics,
                    memory_folder=memory_folder,
                )
        except ParseError as exc:
            problems.append({"file": f.rel, "reason": exc.reason})
            continue
        except JupyterMemoryError:
            raise  # the run's own refusals (the item cap) stop the run
        except (RecursionError, ValueError, TypeError) as exc:
            # A parser's bounds missed it: still this file's problem, not the run's.
            problems.append({"file": f.rel, "reason": str(M_("cannot read: {reason}", reason=exc))})
            continue
        items += len(pf.memories) + len(pf.proposals)
        if items > MAX_IMPORT_ITEMS:
            raise bounds.over_item_cap(f.rel, MAX_IMPORT_ITEMS)
        _refuse_secrets(pf)
        parsed.append((pf, f.text))
    return parsed, problems


def _is_registered(mem: MemoryPort, project: str | os.PathLike[str]) -> bool:
    known = mem.hooks.known_projects()
    try:
        pid, folder = resolve_project_dir(project, known)
    except JupyterMemoryError:
        return True  # let focus() raise its own error for a bad name
    return known.get(pid) == str(folder)


def _existing(mem: MemoryPort, pid: str | None) -> ExistingState:
    state = ExistingState()
    for row in mem.export():
        if isinstance(row.get("import_key"), str):
            state.memory_keys.add(row["import_key"])
        state.memory_texts.add(text_key(str(row.get("text", ""))))
    layers: list[tuple[str, str | None, str]] = [("user", None, "user")]
    if pid is not None:
        layers.append(("project", pid, f"project {pid}"))
    for layer, project, label in layers:
        try:
            doc = mem.hooks.knowledge_doc(layer, project)
        except ParseError:
            continue  # a malformed knowledge file is reported where it is read for context
        state.known += [Known(leaf, "knowledge", label) for _, leaf in doc.leaves()]
    for p in mem.queue(include_decided=True):
        if p.is_pending:
            state.known.append(Known(p.text, "pending", p.id))
        elif p.status == "dismissed":  # dismissed in other words stays dismissed (issue 32)
            state.known.append(Known(p.text, "dismissed", p.id))
        state.queued_hashes[p.dedup_hash or dedup_hash(p.text)] = p.status
    return state


def _record(source: str, draft: MemoryDraft, pid: str | None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "text": draft.text,
        "title": draft.title,
        "type": draft.type,
        "tier": "durable",
        "tags": draft.tags,
        "source": "import",
        # The person's own notes, imported by the person; an agent's text waits for review.
        "reviewed": draft.reviewed,
        "extra": {**draft.extra, "import_key": draft.key, "imported_from": source},
    }
    if draft.agent:
        record["agent"] = draft.agent
    else:
        record["scope"] = "project" if pid else "user"
    if draft.created is not None:
        record["created"] = draft.created.isoformat()
    return record


def _write(
    mem: MemoryPort,
    source: str,
    plan: ImportPlan,
    texts: dict[str, str],
    pid: str | None,
    report: ImportReport,
    progress: Progress,
) -> None:
    if plan.proposals and not mem.enabled:
        raise PolicyError(M_("memory is disabled: proposals are paused, so nothing was imported"))
    if plan.memories:
        progress.stage("writing memories", len(plan.memories))
        records = [_record(source, d, pid) for _, d in plan.memories]
        with staged_jsonl(records) as staged:
            ids = mem.hooks.import_jsonl(staged, source="import")
        for item, memory_id in zip(report.memories, ids, strict=True):
            item["id"] = memory_id
        progress.advance(len(ids))
    if plan.proposals:
        progress.stage("queueing proposals", len(plan.proposals))
    queued = []
    for planned, item in zip(plan.proposals, report.proposals, strict=True):
        draft = planned.draft
        result = mem.propose(
            draft.text,
            draft.kind,
            draft.quote,
            planned.layer,
            pid if planned.layer == "project" else None,
            "import",
            # The file is the person's own text for this round: they chose to import it.
            messages=[{"role": "user", "text": texts[planned.file]}],
            quote_origin={"message_id": f"{planned.file}:{draft.line}"},
        )
        progress.advance()
        # read as a mapping: ``propose`` answers a dict-like result in every version
        if result["status"] == "queued":
            item["id"] = result["id"]
            queued.append(item)
        else:
            reason = result["reason"] or result["status"]
            report.skipped.append(
                {"file": planned.file, "item": f"line {draft.line}", "reason": reason}
            )
    report.proposals = queued


def import_from(
    mem: MemoryPort,
    source: str,
    path: str | os.PathLike[str],
    project: str | os.PathLike[str] | None = None,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Import ``path`` as ``source`` into the memory home, or ``project`` when given."""
    if source not in SOURCES:
        raise ValidationError(
            M_(
                "{source!r} is not one of: {sources}",
                source=source,
                sources=", ".join(SOURCES),
            ),
            field="source",
        )
    bar = progress or NoProgress()
    before = mem.hooks.project_dir
    planned_dir: Path | None = None
    pid: str | None
    if project is not None and dry_run and not _is_registered(mem, project):
        # A dry run registers nothing and creates no folder: plan against the
        # id the project would get (its own layer is empty until then).
        pid, planned_dir = resolve_project_dir(project, mem.hooks.known_projects())
    else:
        pid = mem.focus(project) if project is not None else mem.project_id
    try:
        listing = _read(source, path, bar)
        if not listing.files and not listing.problems:
            raise ValidationError(
                M_(
                    "{folder} holds no {source} files: is it the right folder and source?",
                    folder=Path(path),
                    source=source,
                ),
                field="path",
            )
        default_layer = "project" if pid else "user"
        parsed, problems = _parse(source, listing, mem, default_layer, planned_dir)
        state = _existing(mem, None if planned_dir is not None else pid)
        plan = plan_import(parsed, state, default_layer=default_layer, now=mem.hooks.clock())
        report = ImportReport(source, str(path), dry_run, files=len(listing.files))
        report.problems = [{"file": f, "reason": r} for f, r in listing.problems] + problems
        report.problems += plan.problems
        report.skipped = plan.skipped
        report.memories = [
            {"file": f, "title": d.title, "type": d.type, "reviewed": d.reviewed}
            for f, d in plan.memories
        ]
        report.proposals = [
            {
                "file": p.file,
                "line": p.draft.line,
                "text": " ".join(p.draft.text.split()),
                "kind": p.draft.kind,
                "layer": p.layer,
                **({"supersedes": p.supersedes} if p.supersedes else {}),
            }
            for p in plan.proposals
        ]
        if not dry_run:
            texts = {pf.path: text for pf, text in parsed}
            _write(mem, source, plan, texts, pid, report, bar)
        return report
    finally:
        bar.close()
        if project is not None and mem.hooks.project_dir != before:
            mem.focus(before)


__all__ = ["SOURCES", "import_from"]
