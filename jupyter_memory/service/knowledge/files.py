"""Knowledge files: read, save (compare-and-swap), Library status, reorganize.

The policy half of the two ``knowledge.md`` files (User and Project). A save
names the version it was edited from and is checked against the file under
the root's lock, the same lock an Apply takes (docs/knowledge.md).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

from ..._i18n import M_
from ...core.knowledge.context import CATALOG_THRESHOLD, LayerSource, library_status
from ...core.knowledge.format import (
    KnowledgeDoc,
    chars_of,
    parse_knowledge,
    prepare_save,
    render_knowledge,
)
from ...core.knowledge.reorganize import reorganize_doc
from ...core.knowledge.reorganize_check import ReorganizeError, check_reorganized
from ...core.knowledge.reorganize_result import ReorganizeOutcome, SameEntry
from ...core.llm import parse_reorganized, reorganize_prompt
from ...exceptions import ConflictError, KnowledgeConflictError, ParseError, ValidationError
from ...store import git
from ...store.deadline import past_deadline
from ...store.knowledge.files import KnowledgeFile, LoadedKnowledge
from ...store.root import StoreRoot
from ..context import ServiceContext
from ..llm_budget import over_budget_note
from .arrival import Arrivals
from .results import KnowledgeFileStatus, KnowledgeRead, ReorganizeResult

ProjectArg = str | os.PathLike[str]


def identity_same_entry(a: str, b: str) -> str | None:
    """The identity module's "same entry" reason for two entry texts, or ``None``."""
    # Imported when a Reorganize first compares entries: the identity analysis is a
    # few hundred compiled patterns, which every kernel's first cell paid for when
    # it reached this module through the pre-inject path.
    from ...core.knowledge.identity import same_entry_reason

    return same_entry_reason(a, b)


def editor_text(loaded: LoadedKnowledge) -> str:
    """What an editor shows: the stored text, or the empty template for a missing file."""
    return loaded.text if loaded.exists else render_knowledge(KnowledgeDoc())


def refuse_conflicted(loaded: LoadedKnowledge) -> None:
    """A write other than a person's save would drop one side of a merge conflict."""
    if loaded.conflict is not None:
        raise ConflictError(
            M_(
                "{path} has an unresolved merge conflict (line {first_line}); resolve it first "
                "in the Library editor or with `jupyter-memory knowledge resolve`",
                path=loaded.path,
                first_line=loaded.conflict.first_line,
            ),
            state="merge-conflict",
        )


def mark_resolved(path: Path) -> None:
    """Stage a resolved knowledge file in its clone (``git add``), if git left it unmerged."""
    # After the save: its git calls keep their own timeouts, not the request's deadline.
    with past_deadline():
        top = git.toplevel(path.parent)
        if top is not None:
            rel = os.path.relpath(path, top)
            if git.unmerged(top, rel):
                git.stage(top, rel)


def _check_version(base: object) -> str:
    """A version is the 64 lowercase hex digits of a sha256 (see ``knowledge_version``)."""
    if not isinstance(base, str) or len(base) != 64 or set(base) - set("0123456789abcdef"):
        raise ValidationError(
            M_(
                "must be the version read with the text (64 hex digits, e.g. from "
                "read_knowledge() or `jupyter-memory knowledge show --json`)"
            ),
            field="base",
        )
    return base


def check_layer(layer: str, field_name: str = "layer") -> str:
    if layer not in ("user", "project"):
        raise ValidationError(
            M_("{layer!r} is not 'user' or 'project'", layer=layer), field=field_name
        )
    return layer


class KnowledgeFiles:
    """The User and Project knowledge files of one memory home (and its projects)."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx
        # One parse cache per file (KnowledgeFile re-reads only when the file changed).
        self._files: dict[Path, KnowledgeFile] = {}
        # What Reorganize calls one entry (merged): the identity module's "same
        # entry" decision, so paraphrases merge while rules about different
        # regions, tables, metrics or periods never do. ``same_entry(a, b)``
        # returns why a and b are one entry, or None.
        self.same_entry: SameEntry = identity_same_entry
        self.arrivals = Arrivals(ctx.audit, ctx.who)

    @property
    def enabled(self) -> bool:
        return self.ctx.settings.enabled

    def register_project(self, project: ProjectArg) -> str:
        """The id of a project folder (registering it) or of a known id."""
        return self.ctx.projects.register(project)

    def drop_cache(self) -> None:
        """Forget the parsed files (the next read parses again); for benchmarks."""
        self._files.clear()

    # -- which file ---------------------------------------------------------------------

    def layer_root(
        self, layer: str, project: ProjectArg | None
    ) -> tuple[str, StoreRoot, str | None]:
        """The layer, storage root and project id a ``layer``/``project`` pair names."""
        check_layer(layer)
        if layer == "user":
            return "user", self.ctx.user, None
        projects = self.ctx.projects
        if project is not None:
            pid, root = projects.resolve(project)
            return "project", root, pid
        if projects.project_root is not None and projects.project_id is not None:
            return "project", projects.project_root, projects.project_id
        raise ValidationError(
            M_("pick a project: pass project= (a folder or a known project id) or focus one"),
            field="project",
        )

    def file_of(self, root: StoreRoot) -> KnowledgeFile:
        if root.root not in self._files:
            self._files[root.root] = KnowledgeFile(root.layout)
        return self._files[root.root]

    def _load(self, layer: str, project: ProjectArg | None) -> tuple[LoadedKnowledge, str | None]:
        _, root, pid = self.layer_root(layer, project)
        return self.file_of(root).load(), pid

    # -- reading ------------------------------------------------------------------------

    def knowledge(self, layer: str = "user", project: ProjectArg | None = None) -> str:
        """The file as stored (for the editor), or an empty two-section template.

        An editor that saves later needs the version too: use :meth:`read_knowledge`.
        """
        loaded, _ = self._load(layer, project)
        return editor_text(loaded)

    def knowledge_version(self, layer: str = "user", project: ProjectArg | None = None) -> str:
        """The file's version now (sha256 of its bytes); a save names it as ``base``."""
        return self._load(layer, project)[0].version

    def read_knowledge(
        self, layer: str = "user", project: ProjectArg | None = None
    ) -> KnowledgeRead:
        """One read for an editor: ``text``, its ``version`` and ``status``, from the same bytes."""
        layer, root, pid = self.layer_root(layer, project)
        loaded = self.file_of(root).load()
        return KnowledgeRead(
            layer=layer,
            project=pid,
            path=str(loaded.path),
            exists=loaded.exists,
            text=editor_text(loaded),
            version=loaded.version,
            status=self.status_of(loaded, layer, pid),
            conflict=loaded.conflict.to_dict() if loaded.conflict else None,
        )

    def knowledge_doc(self, layer: str = "user", project: ProjectArg | None = None) -> KnowledgeDoc:
        """The knowledge file of ``layer`` parsed into sections and entries."""
        return self._load(layer, project)[0].doc

    def library_status(
        self, layer: str = "user", project: ProjectArg | None = None
    ) -> KnowledgeFileStatus:
        """Counts of the *saved* file: leaves, characters / budget, last updated, mode, version."""
        layer, root, pid = self.layer_root(layer, project)
        return self.status_of(self.file_of(root).load(), layer, pid)

    def status_of(
        self, loaded: LoadedKnowledge, layer: str, pid: str | None
    ) -> KnowledgeFileStatus:
        source = LayerSource(layer, str(loaded.path), loaded.doc, pid)
        status = library_status(source, exists=loaded.exists, last_updated=loaded.updated)
        arrived = self.arrivals.arrival(loaded) if layer == "project" else None
        return KnowledgeFileStatus(
            status,
            loaded.version,
            loaded.conflict is not None,
            arrived.to_dict() if arrived is not None else None,
        )

    # -- writing ------------------------------------------------------------------------

    def save_knowledge(
        self,
        layer: str,
        text: str,
        project: ProjectArg | None = None,
        *,
        base: str | None = None,
    ) -> KnowledgeFileStatus:
        """A person's save: strict parse, 8,000-character cap, canonical two-section form.

        ``base`` is the version the text was edited from (:meth:`read_knowledge`).
        The file is checked against it and written under the root's lock, the
        same lock an Apply takes, so no write can land in between: if the file
        changed since, :class:`KnowledgeConflictError` carries both sides and
        nothing is written. Without ``base`` the text replaces the file as it
        is (a deliberate overwrite; see docs/knowledge.md). Returns the Library
        status of what was written, with its ``version``.
        """
        if not isinstance(text, str):
            raise ValidationError(M_("must be a string"), field="text")
        if base is not None:
            _check_version(base)
        layer, root, pid = self.layer_root(layer, project)
        kfile = self.file_of(root)
        _, rendered = prepare_save(text, path=str(kfile.path))
        with self.ctx.semantic.foreground(), root.locked():
            try:
                current: LoadedKnowledge | None = kfile.load(fresh=True)
            except ParseError:
                if base is not None:
                    raise
                current = None  # a save without a base may replace a malformed file
            # Same bytes as the save would write: nothing newer is lost.
            if (
                base is not None
                and current is not None
                and current.version != base
                and current.text != rendered
            ):
                raise KnowledgeConflictError(
                    M_(
                        "{path} changed since version {base} was read (it is now {version}); "
                        "nothing was written: merge your text with the current file and save "
                        "again naming the new version",
                        path=kfile.path,
                        base=base[:12],
                        version=current.version,
                    ),
                    path=kfile.path,
                    base=base,
                    current_version=current.version,
                    current_text=editor_text(current),
                    text=text,
                )
            digest = kfile.write(rendered)
            written = kfile.load(fresh=True)
        resolved = current is not None and current.conflict is not None
        if resolved and layer == "project":
            mark_resolved(kfile.path)  # git add: the merge may now be committed
        self.audit_write("knowledge.save", kfile, digest, layer, pid, resolved=resolved or None)
        return self.status_of(written, layer, pid)

    def audit_write(
        self,
        action: str,
        kfile: KnowledgeFile,
        digest: str | None,
        layer: str,
        pid: str | None,
        *,
        at: datetime | None = None,
        **extra: Any,
    ) -> None:
        """One audit line for every write of a knowledge file (save, reorganize, apply)."""
        # ``by`` names the person (git identity of the clone, JupyterHub or OS user).
        folder = kfile.root.parent if layer == "project" else None
        self.arrivals.written(kfile.path, digest)
        self.ctx.audit.append(
            action,
            actor=self.ctx.actor,
            by=self.ctx.who(folder),
            at=at or self.ctx.clock(),
            path=str(kfile.path),
            sha256=digest,
            layer=layer,
            project=pid,
            **extra,
        )

    def reorganize(
        self, layer: str = "user", project: ProjectArg | None = None, *, trigger: str = "person"
    ) -> ReorganizeResult:
        """Back up, merge true duplicates, condense filler and (past the threshold) group.

        Never loses a rule and never makes the file longer (issue 32): the
        result, the deterministic one or an LLM's, is checked by
        :func:`~jupyter_memory.core.knowledge.reorganize_check.check_reorganized`
        and refused with the reason otherwise. Duplicates are what
        :attr:`same_entry` says is one entry. A file with nothing to change is
        not written. ``trigger`` ("person" or "preinject") goes into the audit.

        An LLM call counts against today's budget (llm_budget.py); a pre-inject
        reorganize is background work, refused once the budget is spent
        (:class:`~jupyter_memory.exceptions.LLMBudgetSpentError`, which names it).
        """
        layer, root, pid = self.layer_root(layer, project)
        kfile = self.file_of(root)
        loaded = kfile.load()
        if not loaded.exists:
            raise ValidationError(
                M_("{path} does not exist; nothing to reorganize", path=kfile.path), field="layer"
            )
        refuse_conflicted(loaded)
        # Computed outside the lock: an LLM may take minutes, and other writers
        # must not wait for it. The file is re-checked under the lock.
        outcome, note = self._reorganized(loaded.doc, layer, background=trigger == "preinject")
        used_llm = self.ctx.settings.llm is not None
        if not outcome.changed and outcome.text == loaded.text:
            return ReorganizeResult(
                layer, pid, str(kfile.path), str(kfile.backup_path), used_llm, loaded.version,
                outcome, written=False, over_budget=note is not None, budget_note=note,
            )  # fmt: skip
        with self.ctx.semantic.foreground(), root.locked():
            if kfile.load(fresh=True).version != loaded.version:
                raise ConflictError(
                    M_(
                        "{path} changed while it was being reorganized; nothing was written",
                        path=kfile.path,
                    ),
                    state="changed",
                )
            kfile.write_backup(loaded.text)
            digest = kfile.write(outcome.text)
        self.audit_write(
            "knowledge.reorganize", kfile, digest, layer, pid, backup=str(kfile.backup_path),
            trigger=trigger, used_llm=used_llm, merged=len(outcome.merged),
            condensed=len(outcome.condensed), groups=len(outcome.groups),
            chars_before=outcome.chars_before, chars_after=outcome.chars_after,
        )  # fmt: skip
        return ReorganizeResult(
            layer, pid, str(kfile.path), str(kfile.backup_path), used_llm, digest, outcome,
            over_budget=note is not None, budget_note=note,
        )  # fmt: skip

    def reorganize_text(
        self, layer: str, text: str, project: ProjectArg | None = None
    ) -> ReorganizeResult:
        """What Reorganize would make of an unsaved ``text`` (the editor's); nothing is written.

        The over-cap editor's way out: the text may be past the save cap. The
        deterministic reorganizer always (the editor waits for it; an LLM call
        is the saved file's Reorganize). ``written`` is False; the person saves
        the result, or not, after seeing the diff.
        """
        if not isinstance(text, str):
            raise ValidationError(M_("must be a string"), field="text")
        layer, root, pid = self.layer_root(layer, project)
        kfile = self.file_of(root)
        doc = parse_knowledge(text, path=str(kfile.path))
        outcome = reorganize_doc(doc, layer, same_entry=self.same_entry)
        return ReorganizeResult(
            layer=layer, project=pid, path=str(kfile.path), backup=str(kfile.backup_path),
            used_llm=False, version=kfile.load().version, outcome=outcome, written=False,
        )  # fmt: skip

    def _reorganized(
        self, doc: KnowledgeDoc, layer: str, *, background: bool = False
    ) -> tuple[ReorganizeOutcome, str | None]:
        """The outcome, and what to say when the LLM call went over today's budget."""
        llm = self.ctx.settings.llm
        client = (
            None
            if llm is None
            else self.ctx.settings.budget.client(llm, use="reorganize", background=background)
        )
        if client is None:
            return reorganize_doc(doc, layer, same_entry=self.same_entry), None
        group = chars_of(doc) >= CATALOG_THRESHOLD[layer]
        reply = client.complete(reorganize_prompt(render_knowledge(doc), group=group))
        note = (
            over_budget_note(client.spend)
            if client.went_over and client.spend is not None
            else None
        )
        try:
            outcome = check_reorganized(doc, parse_reorganized(reply), same_entry=self.same_entry)
            return outcome, note
        except ReorganizeError as exc:
            raise ReorganizeError(
                M_(
                    "the LLM's reorganized text was refused ({reason}); the file is unchanged",
                    reason=exc.message,
                ),
                field="reorganize",
            ) from exc


__all__ = [
    "KnowledgeFiles",
    "ReorganizeError",
    "check_layer",
    "editor_text",
    "mark_resolved",
    "refuse_conflicted",
]
