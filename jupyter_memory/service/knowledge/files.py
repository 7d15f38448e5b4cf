"""Knowledge files, switches and agent context: the policy half of governed knowledge.

Mixed into :class:`~jupyter_memory.service.memory.Memory` (through
:class:`~jupyter_memory.service.knowledge.agent_tools.KnowledgeMixin`). What reaches an
agent is decided here and only here (docs/design.md invariant 3): approved
knowledge files, nothing from the queue, nothing at all when memory is
disabled.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ...core.knowledge.context import (
    LayerSource,
    build_context,
    expand_catalog,
    library_status,
)
from ...core.knowledge.format import (
    KnowledgeDoc,
    parse_knowledge,
    prepare_save,
    render_knowledge,
)
from ...core.knowledge.reorganize import (
    ReorganizeError,
    needs_preinject_reorganize,
    reorganize_doc,
    validate_reorganized,
)
from ...core.llm import parse_reorganized, reorganize_prompt
from ...exceptions import (
    ConflictError,
    JupyterMemoryError,
    KnowledgeConflictError,
    PolicyError,
    ValidationError,
)
from ...store.audit import AuditLog
from ...store.knowledge.files import KnowledgeFile, LoadedKnowledge
from ...store.knowledge.queue import QueueStore
from ...store.root import StoreRoot

AGENT_PROPOSALS_PER_CONVERSATION = 5
MAX_EXPAND_LABELS = 50
DEFAULT_CONVERSATION = "default"

QueueListener = Callable[[dict[str, Any]], None]


@dataclass
class KnowledgeState:
    """Per-``Memory`` runtime state: listeners, rate counters, pre-inject attempts."""

    files: dict[Path, KnowledgeFile] = field(default_factory=dict)
    listeners: list[QueueListener] = field(default_factory=list)
    agent_calls: dict[str, int] = field(default_factory=dict)
    preinject_tried: set[tuple[str, Path]] = field(default_factory=set)
    preinject_errors: list[str] = field(default_factory=list)
    rounds: dict[str, list[Any]] = field(default_factory=dict)
    last_skipped: list[dict[str, str]] = field(default_factory=list)
    queue: QueueStore | None = None


def _editor_text(loaded: LoadedKnowledge) -> str:
    """What an editor shows: the stored text, or the empty template for a missing file."""
    return loaded.text if loaded.exists else render_knowledge(KnowledgeDoc())


def _check_version(base: object) -> str:
    """A version is the 64 lowercase hex digits of a sha256 (see ``knowledge_version``)."""
    if not isinstance(base, str) or len(base) != 64 or set(base) - set("0123456789abcdef"):
        raise ValidationError(
            "must be the version read with the text (64 hex digits, e.g. from "
            "read_knowledge() or `jupyter-memory knowledge show --json`)",
            field="base",
        )
    return base


def check_layer(layer: str, field_name: str = "layer") -> str:
    if layer not in ("user", "project"):
        raise ValidationError(f"{layer!r} is not 'user' or 'project'", field=field_name)
    return layer


class KnowledgeFilesMixin:
    # Provided by Memory.
    user: StoreRoot
    audit: AuditLog
    actor: str
    clock: Callable[[], datetime]
    project_id: str | None
    project_root: StoreRoot | None
    _project: Callable[[str | os.PathLike[str]], tuple[str, StoreRoot]]
    known_projects: Callable[[], dict[str, str]]

    # -- state, events ----------------------------------------------------------------

    def _kn(self) -> KnowledgeState:
        state: KnowledgeState | None = self.__dict__.get("_knowledge_state")
        if state is None:
            state = KnowledgeState()
            self.__dict__["_knowledge_state"] = state
        return state

    def _queue_store(self) -> QueueStore:
        state = self._kn()
        if state.queue is None:
            state.queue = QueueStore(self.user.layout)
        return state.queue

    def on_queue_change(self, callback: QueueListener) -> Callable[[], None]:
        """Call ``callback(event)`` after every queue change; returns an unsubscribe function.

        ``event`` has ``action`` (created, superseded, applied, dismissed),
        ``id`` and ``pending`` (the pending count after the change).
        """
        self._kn().listeners.append(callback)

        def unsubscribe() -> None:
            if callback in self._kn().listeners:
                self._kn().listeners.remove(callback)

        return unsubscribe

    def _emit(self, action: str, proposal_id: str, **extra: Any) -> None:
        listeners = list(self._kn().listeners)
        if not listeners:
            return
        good, _ = self._queue_store().scan()
        event = {"action": action, "id": proposal_id, "pending": sum(p.is_pending for _, p in good)}
        event.update(extra)
        for listener in listeners:
            # The change is already durable; a broken listener must not undo or
            # hide it, so its error becomes a warning instead of a failed apply.
            try:
                listener(event)
            except Exception as exc:  # noqa: BLE001 - listener code is not ours
                warnings.warn(f"queue listener failed: {exc!r}", RuntimeWarning, stacklevel=2)

    # -- knowledge files --------------------------------------------------------------

    def _layer_root(
        self, layer: str, project: str | os.PathLike[str] | None
    ) -> tuple[str, StoreRoot, str | None]:
        check_layer(layer)
        if layer == "user":
            return "user", self.user, None
        if project is not None:
            pid, root = self._project(project)
            return "project", root, pid
        if self.project_root is not None and self.project_id is not None:
            return "project", self.project_root, self.project_id
        raise ValidationError(
            "pick a project: pass project= (a folder or a known project id) or focus one",
            field="project",
        )

    def _file(self, root: StoreRoot) -> KnowledgeFile:
        files = self._kn().files
        if root.root not in files:
            files[root.root] = KnowledgeFile(root.layout)
        return files[root.root]

    def _load(
        self, layer: str, project: str | os.PathLike[str] | None
    ) -> tuple[LoadedKnowledge, str | None]:
        _, root, pid = self._layer_root(layer, project)
        return self._file(root).load(), pid

    def knowledge(self, layer: str = "user", project: str | os.PathLike[str] | None = None) -> str:
        """The file as stored (for the editor), or an empty two-section template.

        An editor that saves later needs the version too: use :meth:`read_knowledge`.
        """
        loaded, _ = self._load(layer, project)
        return _editor_text(loaded)

    def knowledge_version(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> str:
        """The file's version now (sha256 of its bytes); a save names it as ``base``."""
        return self._load(layer, project)[0].version

    def read_knowledge(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> dict[str, Any]:
        """One read for an editor: ``text``, its ``version`` and ``status``, from the same bytes."""
        layer, root, pid = self._layer_root(layer, project)
        loaded = self._file(root).load()
        return {
            "layer": layer,
            "project": pid,
            "path": str(loaded.path),
            "exists": loaded.exists,
            "text": _editor_text(loaded),
            "version": loaded.version,
            "status": self._status_of(loaded, layer, pid),
        }

    def knowledge_doc(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> KnowledgeDoc:
        return self._load(layer, project)[0].doc

    def save_knowledge(
        self,
        layer: str,
        text: str,
        project: str | os.PathLike[str] | None = None,
        *,
        base: str | None = None,
    ) -> dict[str, Any]:
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
            raise ValidationError("must be a string", field="text")
        if base is not None:
            _check_version(base)
        layer, root, pid = self._layer_root(layer, project)
        kfile = self._file(root)
        _, rendered = prepare_save(text, path=str(kfile.path))
        with root.locked():
            if base is not None:
                current = kfile.load(fresh=True)
                # Same bytes as the save would write: nothing newer is lost.
                if current.version != base and current.text != rendered:
                    raise KnowledgeConflictError(
                        f"{kfile.path} changed since version {base[:12]} was read "
                        f"(it is now {current.version}); nothing was written: merge your "
                        "text with the current file and save again naming the new version",
                        path=kfile.path,
                        base=base,
                        current_version=current.version,
                        current_text=_editor_text(current),
                        text=text,
                    )
            digest = kfile.write(rendered)
            written = kfile.load(fresh=True)
        self._audit_knowledge_write("knowledge.save", kfile, digest, layer, pid)
        return self._status_of(written, layer, pid)

    def _audit_knowledge_write(
        self,
        action: str,
        kfile: Any,
        digest: str,
        layer: str,
        pid: str | None,
        *,
        at: datetime | None = None,
        **extra: Any,
    ) -> None:
        """One audit line for every write of a knowledge file (save, reorganize, apply)."""
        self.audit.append(
            action,
            actor=self.actor,
            at=at or self.clock(),
            path=str(kfile.path),
            sha256=digest,
            layer=layer,
            project=pid,
            **extra,
        )

    def library_status(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> dict[str, Any]:
        """Counts of the *saved* file: leaves, characters / budget, last updated, mode, version."""
        layer, root, pid = self._layer_root(layer, project)
        return self._status_of(self._file(root).load(), layer, pid)

    def _status_of(self, loaded: LoadedKnowledge, layer: str, pid: str | None) -> dict[str, Any]:
        source = LayerSource(layer, str(loaded.path), loaded.doc, pid)
        status = library_status(source, exists=loaded.exists, last_updated=loaded.updated)
        return {**status.to_dict(), "version": loaded.version}

    def reorganize(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> dict[str, Any]:
        """Back up, dedupe, condense and (past the threshold) regroup one file."""
        layer, root, pid = self._layer_root(layer, project)
        kfile = self._file(root)
        loaded = kfile.load()
        if not loaded.exists:
            raise ValidationError(
                f"{kfile.path} does not exist; nothing to reorganize", field="layer"
            )
        # Computed outside the lock: an LLM may take minutes, and other writers
        # must not wait for it. The file is re-checked under the lock.
        new_text, grouped, removed = self._reorganized_text(loaded.doc, layer)
        with root.locked():
            if kfile.load(fresh=True).version != loaded.version:
                raise ConflictError(
                    f"{kfile.path} changed while it was being reorganized; nothing was written",
                    state="changed",
                )
            kfile.write_backup(loaded.text)
            digest = kfile.write(new_text)
        self._audit_knowledge_write(
            "knowledge.reorganize", kfile, digest, layer, pid, backup=str(kfile.backup_path)
        )
        return {
            "layer": layer,
            "project": pid,
            "path": str(kfile.path),
            "backup": str(kfile.backup_path),
            "grouped": grouped,
            "duplicates_removed": removed,
            "chars_before": len(render_knowledge(loaded.doc)),
            "chars_after": len(new_text),
            "used_llm": self.llm is not None,
            "version": digest,
        }

    def _reorganized_text(self, doc: KnowledgeDoc, layer: str) -> tuple[str, bool, int]:
        client = self.llm
        if client is None:
            result = reorganize_doc(doc, layer)
            return result.text, result.grouped, result.duplicates_removed
        from ...core.knowledge.context import CATALOG_THRESHOLD
        from ...core.knowledge.format import chars_of

        group = chars_of(doc) >= CATALOG_THRESHOLD[layer]
        reply = client.complete(reorganize_prompt(render_knowledge(doc), group=group))
        text = validate_reorganized(doc, parse_reorganized(reply))
        removed = len(doc.leaves()) - len(parse_knowledge(text).leaves())
        return text, group, max(0, removed)

    # -- what an agent sees -----------------------------------------------------------

    def _context_sources(self, project: str | os.PathLike[str] | None) -> list[LayerSource]:
        sources = []
        layers: list[tuple[str, str | os.PathLike[str] | None]] = [("user", None)]
        if project is not None or self.project_root is not None:
            layers.append(("project", project))
        for layer, proj in layers:
            _, root, pid = self._layer_root(layer, proj)
            loaded = self._file(root).load()
            sources.append(LayerSource(layer, str(loaded.path), loaded.doc, pid))
        return sources

    def _preinject(self, sources: list[LayerSource], conversation: str) -> list[LayerSource]:
        """Reorganize a file past its threshold but still flat, once per conversation."""
        state = self._kn()
        out = []
        for source in sources:
            key = (conversation, Path(source.origin))
            if key not in state.preinject_tried and needs_preinject_reorganize(
                source.doc, source.layer
            ):
                state.preinject_tried.add(key)
                try:
                    self.reorganize(source.layer, project=source.project)
                    _, root, _ = self._layer_root(source.layer, source.project)
                    source = LayerSource(
                        source.layer, source.origin, self._file(root).load().doc, source.project
                    )
                except (JupyterMemoryError, OSError) as exc:
                    # Never blocks the context: the unreorganized file is used.
                    state.preinject_errors.append(f"{source.origin}: {exc}")
            out.append(source)
        return out

    def context(
        self, project: str | os.PathLike[str] | None = None, *, conversation: str | None = None
    ) -> str:
        """The delimited block of approved knowledge for an agent; ``""`` when disabled."""
        if not self.enabled:
            return ""
        sources = self._context_sources(project)
        sources = self._preinject(sources, conversation or DEFAULT_CONVERSATION)
        return build_context(sources)

    def expand_knowledge_catalog(
        self, labels: str | Sequence[str], project: str | os.PathLike[str] | None = None
    ) -> dict[str, Any]:
        """Full entries for exact catalog labels (several at once) and the unknown ones."""
        if not self.enabled:
            raise PolicyError("memory is disabled: there is no knowledge to expand")
        wanted = [labels] if isinstance(labels, str) else list(labels)
        if not wanted:
            raise ValidationError("give at least one label", field="labels")
        if len(wanted) > MAX_EXPAND_LABELS:
            raise ValidationError(f"at most {MAX_EXPAND_LABELS} labels per call", field="labels")
        for label in wanted:
            if not isinstance(label, str) or not label.strip() or len(label) > 500:
                raise ValidationError("each label must be a non-empty string", field="labels")
        return expand_catalog(self._context_sources(project), wanted).to_dict()


__all__ = ["KnowledgeFilesMixin", "ReorganizeError", "check_layer"]
