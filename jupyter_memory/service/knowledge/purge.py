"""Purging a dismissed proposal: its text leaves every file, its hash stays (issue 29).

A dismissed proposal keeps its file so that the same text is not suggested
again; the person may want the text itself gone (it quoted something they
regret typing, say). Purge deletes the file and drops the file name (which
holds a slug of the text) from the audit lines about it, and keeps the dedup
hash in ``dismissed.json``, so the proposal stays refused. Only a dismissed
proposal is purged: a pending one is dismissed first (``dismiss --purge``),
and an applied one's text is in a knowledge file, where the person edits it.
"""

from __future__ import annotations

from ..._i18n import M_
from ...core.knowledge.keys import dedup_hash
from ...exceptions import ConflictError, NotFoundError
from ..context import ServiceContext
from .events import QueueEvents
from .queue import KnowledgeQueue
from .results import PurgeResult


class ProposalPurge:
    def __init__(self, ctx: ServiceContext, queue: KnowledgeQueue, events: QueueEvents) -> None:
        self.ctx = ctx
        self.queue = queue
        self.events = events

    def purge(self, proposal_id: str) -> PurgeResult:
        """Remove a dismissed proposal's text from the queue and the audit; keep its hash."""
        store = self.queue.store
        with self.ctx.semantic.foreground(), self.ctx.user.locked():
            try:
                path, p = store.find(proposal_id)
            except NotFoundError:
                if self._purged_before(proposal_id):
                    return PurgeResult(proposal_id, "already_purged")
                raise
            if p.status != "dismissed":
                raise ConflictError(
                    M_(
                        "proposal {id} is {status}; only a dismissed proposal is purged"
                        " (dismiss it with --purge)",
                        id=p.id,
                        status=p.status,
                    ),
                    state=p.status,
                )
            store.purge(path, p.dedup_hash or dedup_hash(p.text))
        self.ctx.audit.scrub(p.id)
        self.ctx.audit.append(
            "proposal.purge", actor=self.ctx.actor, at=self.ctx.clock(), id=p.id, project=p.project
        )
        self.events.emit("purged", p.id)
        return PurgeResult(p.id, "purged")

    def _purged_before(self, proposal_id: str) -> bool:
        return any(
            r.get("action") == "proposal.purge" and r.get("id") == proposal_id
            for r in self.ctx.audit.records()
        )
