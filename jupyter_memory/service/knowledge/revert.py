"""Undo an Apply (issue 32, item 5): the entry leaves the file, the proposal goes back or away.

An applied rule reaches every agent; before this the only way back was to
edit the file. A revert is a person's act like the Apply it undoes (no agent
tool reaches it), possible while the file still holds the entry: the entry is
removed (also from under a label a reorganize put it in), the audit records
``proposal.revert`` next to the ``proposal.apply``, and the proposal either
returns to the queue (``then="pending"``) or is dismissed (``then="dismissed"``,
never suggested again), as the person chooses. Either way it keeps
``reverted_at``, so its card says "reverted".
"""

from __future__ import annotations

from ..._i18n import M_
from ...core.knowledge.format import remove_entry, render_knowledge
from ...core.knowledge.keys import dedup_hash, dedup_key
from ...exceptions import ConflictError, ValidationError
from ..context import ServiceContext
from .decisions import KnowledgeDecisions, also_locked
from .events import QueueEvents
from .files import KnowledgeFiles, refuse_conflicted
from .queue import KnowledgeQueue
from .results import RevertResult

THEN = ("pending", "dismissed")


class KnowledgeRevert:
    """Revert the Apply of one proposal."""

    def __init__(
        self,
        ctx: ServiceContext,
        files: KnowledgeFiles,
        queue: KnowledgeQueue,
        events: QueueEvents,
        decisions: KnowledgeDecisions,
    ) -> None:
        self.ctx = ctx
        self.files = files
        self.queue = queue
        self.events = events
        self.decisions = decisions

    def revert(self, proposal_id: str, then: str = "pending") -> RevertResult:
        """Take an applied entry out of its knowledge file again.

        ``then`` is what becomes of the proposal: ``"pending"`` (back in the
        queue, to decide again) or ``"dismissed"`` (never suggested again).
        Refused with :class:`ConflictError` when the proposal is not applied
        (``state="not_applied"``) or the file no longer holds the entry
        (``state="not_in_file"``: edited or removed since; nothing is written).
        """
        if then not in THEN:
            raise ValidationError(
                M_("{value!r} is not one of: {allowed}", value=then, allowed=", ".join(THEN)),
                field="then",
            )
        store = self.queue.store
        _, p = store.find(proposal_id)
        if p.status != "applied" or p.applied_to is None:
            raise _not_applied(p.id, p.status)
        layer, root, pid = self.files.layer_root(p.applied_to, p.applied_project)
        kfile = self.files.file_of(root)
        # The same locks in the same order as an Apply (user root, then the project's).
        with (
            self.ctx.semantic.foreground(),
            self.ctx.user.locked(),
            also_locked(root, self.ctx.user),
        ):
            path, p = store.find(proposal_id)
            if p.status != "applied":
                raise _not_applied(p.id, p.status)
            loaded = kfile.load(fresh=True)
            refuse_conflicted(loaded)
            removed = remove_entry(loaded.doc, dedup_key, dedup_key(p.text))
            if removed is None:
                raise ConflictError(
                    M_(
                        "{path} no longer holds {text!r} (edited or removed since it was "
                        "applied); nothing was changed",
                        path=kfile.path,
                        text=p.text[:80],
                    ),
                    state="not_in_file",
                )
            doc, section = removed
            version = kfile.write(render_knowledge(doc))
            now = self.ctx.clock()
            if then == "pending":
                update: dict[str, object] = {
                    "status": "pending",
                    "decided_at": None,
                    "applied_to": None,
                    "applied_project": None,
                    "reverted_at": now,
                }
            else:
                update = {"status": "dismissed", "decided_at": now, "reverted_at": now}
                store.add_dismissed(p.dedup_hash or dedup_hash(p.text))
            p = p.model_copy(update=update)
            store.replace(path, p)
        self.files.audit_write(
            "proposal.revert", kfile, version, layer, pid, at=now, id=p.id, section=section,
            item=dedup_hash(p.text), then=then,
        )  # fmt: skip
        self.events.emit("reverted", p.id, then=then, layer=layer, project=pid)
        agents_md = self.decisions.after_project_change(pid) if pid else None
        return RevertResult(
            id=p.id,
            status=then,
            layer=layer,
            project=pid,
            section=section,
            path=str(kfile.path),
            version=version,
            agents_md=agents_md,
        )


def _not_applied(proposal_id: str, status: str) -> ConflictError:
    return ConflictError(
        M_(
            "proposal {id} is {status}, not applied: there is no Apply to revert",
            id=proposal_id,
            status=status,
        ),
        state="not_applied",
    )


__all__ = ["THEN", "KnowledgeRevert"]
