"""Queued Knowledge: list pending proposals, the state of any, apply, dismiss, purge, process all."""

from __future__ import annotations

from typing import Any

from tornado import web

from ..core.knowledge.queue_filter import QueueFilter
from ..service.knowledge.results import AlreadyDecided, DecisionResult
from .base import APPROVE, READ, ApiError, MemoryHandler, authorized, off_loop
from .bodies import ApplyBody, DismissBody, EmptyBody, ProcessAllBody
from .jsonable import to_jsonable


def _reply_or_refuse(decided: DecisionResult, proposal_id: str) -> dict[str, Any]:
    """The decision's JSON; a proposal that was decided already is a 409 carrying it."""
    result: dict[str, Any] = to_jsonable(decided.to_dict())
    if isinstance(decided, AlreadyDecided):
        raise ApiError(
            409,
            f"proposal {proposal_id} was already decided ({decided.status}); nothing changed",
            error="conflict",
            state=decided.status,
            result=result,
        )
    return result


QUEUE_PAGE = 100
MAX_QUEUE_PAGE = 500


class QueueHandler(MemoryHandler):
    read_lane = "listing"

    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        # One page (issue 16): a queue of 5,000 would freeze the panel drawing it.
        limit = self.int_arg("limit", QUEUE_PAGE, 1, MAX_QUEUE_PAGE)
        offset = self.int_arg("offset", 0, 0)
        # The search and filters apply before the page is cut (a filter over the
        # page the browser holds would miss what it has not loaded).
        wanted = QueueFilter.parse(
            text=self.get_argument("q", ""),
            layer=self.get_argument("layer", ""),
            kind=self.get_argument("kind", ""),
            source=self.get_argument("source", ""),
        )
        items = self.backend.pending_proposals()
        matched = [p for p in items if wanted.matches(p)] if wanted.active else items
        page = self.backend.with_neighbours(matched[offset : offset + limit])
        enabled = self.backend.memory.settings["enabled"]
        more = max(0, len(matched) - offset - len(page))
        self.reply(
            {
                "items": page,
                "count": len(items),
                "matched": len(matched),
                "enabled": enabled,
                "offset": offset,
                "more": more,
            }
        )


# A notebook shows at most a few dozen cards; the extension asks in batches of this size.
MAX_STATE_IDS = 200


class ProposalStatesHandler(MemoryHandler):
    """``GET queue/proposals?ids=a,b``: what became of each proposal a card shows."""

    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        ids = self.ids_arg("proposal", MAX_STATE_IDS)
        items, missing = self.backend.proposal_states(ids)
        self.reply({"items": items, "missing": missing})


class ApplyHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self, proposal_id: str) -> None:
        self.id_arg(proposal_id)
        body = self.body(ApplyBody)
        project = self.project_arg(body.project) if body.project else None
        applied = self.backend.memory.apply(
            proposal_id, to=body.to, project=project, replaces=body.replaces
        )
        result = _reply_or_refuse(applied, proposal_id)
        self.backend.changed("queue", "apply", id=proposal_id)
        self.reply(result)


class DismissHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self, proposal_id: str) -> None:
        self.id_arg(proposal_id)
        body = self.body(DismissBody)  # {} or {"reason": "…"} (kept for the self-learner)
        dismissed = self.backend.memory.dismiss(proposal_id, body.reason)
        result = _reply_or_refuse(dismissed, proposal_id)
        self.backend.changed("queue", "dismiss", id=proposal_id)
        self.reply(result)


class PurgeHandler(MemoryHandler):
    """A dismissed proposal's text removed from every file; its hash kept (issue 29)."""

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self, proposal_id: str) -> None:
        self.id_arg(proposal_id)
        self.body(EmptyBody)
        result = to_jsonable(self.backend.memory.hooks.purge(proposal_id).to_dict())
        self.backend.changed("queue", "purge", id=proposal_id)
        self.reply(result)


class ProcessAllHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self) -> None:
        # No layer and no project: each item goes to the layer it was suggested for.
        # ``expect``: the plan's total the person confirmed (GET queue/process-all/plan).
        body = self.body(ProcessAllBody)
        result = self.backend.memory.process_all(expect=body.expect).to_dict()
        self.backend.changed("queue", "process_all")
        self.reply(result)
