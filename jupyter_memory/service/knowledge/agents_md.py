"""``jupyter-memory agents-md sync``: approved knowledge for coding agents that read files.

Codex (and most coding agents) read ``AGENTS.md``; Claude Code reads ``CLAUDE.md``,
so ours imports the former with an ``@AGENTS.md`` line. We keep one managed
block per file (:mod:`jupyter_memory.core.knowledge.agents_block`) and never touch the
rest. By default the block carries the *Project* layer only: AGENTS.md is
committed with the project, and the person's User knowledge is theirs alone
(``include_user=True`` adds it). Files are created only with ``create=True``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from ..._i18n import M_
from ...core.knowledge import agents_block as blk
from ...core.knowledge.context import LAYER_TAG, LayerSource, build_context
from ...core.knowledge.format import INFO, RULES, KnowledgeDoc
from ...exceptions import NotFoundError, OversizeError
from ...store.knowledge.agent_files import agent_files_lock, read_agent_file, write_agent_file
from ...store.layout import project_root
from ..context import ServiceContext
from .results import AgentsMdAutosync, FileOutcome, SyncReport

AGENTS_MD = "AGENTS.md"
CLAUDE_MD = "CLAUDE.md"
IMPORT_LINE = "@AGENTS.md"


class KnowledgeSource(Protocol):
    """What a sync reads: the switch and the knowledge files (``KnowledgeFiles``)."""

    @property
    def enabled(self) -> bool: ...

    def register_project(self, project: str | os.PathLike[str]) -> str: ...

    def knowledge_doc(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> KnowledgeDoc: ...


def _sources(mem: KnowledgeSource, project_dir: Path, include_user: bool) -> list[LayerSource]:
    # Not a focus: an auto-sync after Apply must not move the person's focus.
    pid = mem.register_project(project_dir)
    rel = os.path.join(project_root(Path(".")).name, "knowledge.md")
    sources = [LayerSource("project", rel, mem.knowledge_doc("project", project_dir), pid)]
    if include_user:
        sources.insert(0, LayerSource("user", "User knowledge", mem.knowledge_doc("user"), None))
    return sources


def _labels(sources: list[LayerSource]) -> list[tuple[str, str]]:
    return [
        (s.layer, entry.text)
        for s in sources
        for name in (RULES, INFO)
        for entry in s.doc.section(name)
    ]


def _refusal(path: Path, found: blk.Block, new_content: str) -> FileOutcome:
    return FileOutcome(
        path,
        "refused",
        M_(
            "{path}: the jupyter-memory block was edited by hand (its hash no longer matches); "
            "not updated. Move your edits outside the block, or pass --force to update it anyway.",
            path=path,
        ),
        diff=blk.block_diff(found.content, new_content, path=path.name),
    )


def _upsert(path: Path, text: str, content: str, force: bool) -> tuple[str, FileOutcome | None]:
    found = blk.find_block(text, path=str(path))
    if found is not None and found.edited and not force:
        return text, _refusal(path, found, content)
    return blk.upsert_block(text, content, path=str(path)), None


def _agents_content(
    mem: KnowledgeSource, sources: list[LayerSource], rest_bytes: int
) -> tuple[str, str]:
    if not mem.enabled:
        return blk.block_content("", disabled=True), "flat"
    flat = blk.block_content(build_context([s for s in sources if not s.doc.is_empty]))
    overhead = len(blk.render_block("").encode("utf-8")) + 4  # markers and padding
    if rest_bytes + overhead + len(flat.encode("utf-8")) <= blk.AGENTS_MD_MAX_BYTES:
        return flat, "flat"
    budget = blk.AGENTS_MD_MAX_BYTES - rest_bytes - overhead
    if budget < 2_000:
        raise OversizeError(
            M_(
                "AGENTS.md already holds {rest_bytes:,} bytes outside the jupyter-memory block; "
                "agents read at most {limit:,} bytes, so there is no room",
                rest_bytes=rest_bytes,
                limit=blk.AGENTS_MD_MAX_BYTES,
            ),
            field="AGENTS.md",
        )
    return blk.catalog_content(_labels(sources), budget), "catalog"


def _sync_agents(
    mem: KnowledgeSource, project_dir: Path, *, create: bool, force: bool, include_user: bool
) -> FileOutcome:
    path = project_dir / AGENTS_MD
    text = read_agent_file(path)
    if text is None and not create:
        raise NotFoundError(M_("{path} does not exist: pass --create to create it", path=path))
    old = text or ""
    found = blk.find_block(old, path=str(path))
    rest = old if found is None else old[: found.start] + old[found.end :]
    content, mode = _agents_content(
        mem, _sources(mem, project_dir, include_user), len(rest.encode())
    )
    new, refused = _upsert(path, old, content, force)
    if refused is not None:
        return refused
    size = len(new.encode("utf-8"))
    if text is not None and new == text:
        said = M_("{path}: up to date", path=path)
        return FileOutcome(path, "unchanged", said, mode=mode, bytes=size)
    write_agent_file(path, new)
    action = "created" if text is None else "updated"
    said = (
        M_("{path}: created ({mode}, {size:,} bytes)", path=path, mode=mode, size=size)
        if text is None
        else M_("{path}: updated ({mode}, {size:,} bytes)", path=path, mode=mode, size=size)
    )
    return FileOutcome(path, action, said, mode=mode, bytes=size)


def _imports_agents(text: str) -> bool:
    return any(line.strip() == IMPORT_LINE for line in text.splitlines())


def _sync_claude(project_dir: Path, *, create: bool, force: bool) -> FileOutcome:
    path = project_dir / CLAUDE_MD
    text = read_agent_file(path)
    if text is None and not create:
        return FileOutcome(
            path,
            "absent",
            M_(
                "{path} does not exist: Claude Code reads CLAUDE.md, not AGENTS.md; pass --create "
                "to add one that imports it ({line})",
                path=path,
                line=IMPORT_LINE,
            ),
        )
    old = text or ""
    found = blk.find_block(old, path=str(path))
    outside = old if found is None else old[: found.start] + old[found.end :]
    if found is None and _imports_agents(outside):
        return FileOutcome(path, "kept", M_("{path}: already imports AGENTS.md", path=path))
    new, refused = _upsert(path, old, IMPORT_LINE + "\n", force)
    if refused is not None:
        return refused
    if text is not None and new == text:
        return FileOutcome(path, "unchanged", M_("{path}: up to date", path=path))
    write_agent_file(path, new)
    if text is None:
        return FileOutcome(path, "created", M_("{path}: created (imports AGENTS.md)", path=path))
    return FileOutcome(path, "updated", M_("{path}: updated (imports AGENTS.md)", path=path))


def _remove(path: Path, force: bool) -> FileOutcome:
    text = read_agent_file(path)
    if text is None:
        return FileOutcome(path, "absent", M_("{path}: does not exist", path=path))
    found = blk.find_block(text, path=str(path))
    if found is None:
        said = M_("{path}: has no jupyter-memory block", path=path)
        return FileOutcome(path, "unchanged", said)
    if found.edited and not force:
        return FileOutcome(
            path,
            "refused",
            M_(
                "{path}: the jupyter-memory block was edited by hand; not removed (your edits "
                "would be lost). Pass --force to remove it anyway.",
                path=path,
            ),
            diff=blk.block_diff(found.content, "", path=path.name),
        )
    write_agent_file(path, blk.remove_block(text, path=str(path)))
    said = M_("{path}: block removed; the rest is unchanged", path=path)
    return FileOutcome(path, "removed", said)


def sync_agents_md(
    mem: KnowledgeSource,
    project_dir: str | os.PathLike[str],
    *,
    create: bool = False,
    remove: bool = False,
    force: bool = False,
    include_user: bool = False,
) -> SyncReport:
    """Write (or remove) the managed blocks of ``<project>/AGENTS.md`` and ``CLAUDE.md``."""
    folder = Path(project_dir).expanduser()
    if not folder.is_dir():
        raise NotFoundError(M_("project folder {folder} does not exist", folder=folder))
    folder = folder.resolve()
    report = SyncReport()
    with agent_files_lock(folder):
        if remove:
            report.files = [_remove(folder / AGENTS_MD, force), _remove(folder / CLAUDE_MD, force)]
            return report
        agents = _sync_agents(mem, folder, create=create, force=force, include_user=include_user)
        report.files.append(agents)
        if agents.action == "refused":
            return report
        report.files.append(_sync_claude(folder, create=create, force=force))
    return report


def autosync_agents_md(mem: KnowledgeSource, project_dir: str | os.PathLike[str]) -> SyncReport:
    """Re-sync an existing AGENTS.md block after an Apply (the ``agents_md_autosync`` switch).

    Narrower than ``sync``: it creates no file and adds no block (a person who
    removed the block meant it), leaves CLAUDE.md to the explicit command, and
    never overwrites a hand-edited block (the outcome is ``refused``, with the
    diff). The User layer stays in the block only if the last sync put it there.
    """
    folder = Path(project_dir).expanduser().resolve()
    path = folder / AGENTS_MD
    report = SyncReport()
    if read_agent_file(path) is None:
        report.files.append(
            FileOutcome(
                path, "absent", M_("{path} does not exist: auto-sync creates no files", path=path)
            )
        )
        return report
    with agent_files_lock(folder):
        text = read_agent_file(path)
        found = blk.find_block(text or "", path=str(path))
        if text is None or found is None:
            report.files.append(
                FileOutcome(
                    path,
                    "skipped",
                    M_(
                        "{path}: has no jupyter-memory block; auto-sync only updates one that "
                        "`jupyter-memory agents-md sync` wrote",
                        path=path,
                    ),
                )
            )
            return report
        include_user = f'<{LAYER_TAG} layer="user"' in found.content
        report.files.append(
            _sync_agents(mem, folder, create=False, force=False, include_user=include_user)
        )
    return report


class AutosyncAfterApply:
    """The Apply hook (registered by :func:`~.wiring.knowledge_services`): re-sync a
    project's AGENTS.md block after an Apply to it.

    ``None`` while the ``agents_md_autosync`` switch is off, else the sync's
    report. The Apply is already durable when this runs, so a failed sync is
    returned (``ok: false`` and ``error``) for the person to see, never raised
    over it.
    """

    def __init__(self, ctx: ServiceContext, source: KnowledgeSource) -> None:
        self.ctx = ctx
        self.source = source

    def __call__(self, project_id: str) -> AgentsMdAutosync | None:
        if not self.ctx.settings.read()["agents_md_autosync"]:
            return None
        folder = self.ctx.projects.known().get(project_id)
        if folder is None:
            return AgentsMdAutosync(project_id, error="unknown project")
        try:
            report = autosync_agents_md(self.source, folder)
        except Exception as exc:  # noqa: BLE001 - reported in the result; the Apply stands
            return AgentsMdAutosync(project_id, error=str(exc))
        return AgentsMdAutosync(project_id, report=report)


__all__ = [
    "AGENTS_MD",
    "CLAUDE_MD",
    "IMPORT_LINE",
    "AutosyncAfterApply",
    "FileOutcome",
    "KnowledgeSource",
    "SyncReport",
    "autosync_agents_md",
    "sync_agents_md",
]
