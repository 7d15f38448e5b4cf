"""Review of unreviewed memories for the notebook's review cards (issue 15).

``GET review?ids=a,b[&project=p]`` answers each memory's live review state
(``unreviewed``, ``kept``, ``promoted`` with its proposal as the queue holds it
now) and the ids this memory home does not hold; ``POST review/{id}/keep``,
``…/discard`` and ``…/promote`` (``{"kind": "rule"|"info"}``) are the person's
decisions, through ``Memory.review_memory``. A memory decided meanwhile is a
409 ``already_kept`` / ``already_promoted`` naming what happened, a gone one a
404. ``project`` names the registered project a project-layer memory lives in
(the card knows it; the server focuses none). Every decision is announced on
the change feed (area ``memories``; a promotion also ``queue``).
``GET review/count`` answers how many memories wait for review (the panel's
Memories tab shows it, issue 32 item 8).
"""

from __future__ import annotations

from typing import Any, Literal

from tornado import web

from ..exceptions import ConflictError
from ..service.learning.review_state import home_key
from .base import APPROVE, READ, ApiError, MemoryHandler, authorized, off_loop
from .bodies import _Body

# A notebook shows at most a few dozen review cards; the extension asks in batches.
MAX_REVIEW_IDS = 200


class ReviewBody(_Body):
    """``{}`` or ``{"project": id}``: the project a project-layer memory lives in."""

    _nullable = frozenset({"project"})
    project: str | None = None


class PromoteBody(ReviewBody):
    kind: Literal["rule", "info"] = "rule"


class ReviewStatesHandler(MemoryHandler):
    """``GET review?ids=a,b``: where the review of each memory a card shows stands."""

    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        ids = self.ids_arg("memory", MAX_REVIEW_IDS)
        project = self.project_arg()
        states = self.backend.memory.hooks.review_states(ids, project=project).to_dict()
        promoted = [s["promoted_to"] for s in states["items"] if s["promoted_to"]]
        proposals = {p["id"]: p for p in self.backend.proposal_states(promoted)[0]}
        for state in states["items"]:
            state["proposal"] = proposals.get(state["promoted_to"] or "")
        self.reply({**states, "home": home_key(self.backend.memory.home)})


class ReviewCountHandler(MemoryHandler):
    """``GET review/count``: ``{"unreviewed": n}``, every layer this home reads."""

    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        self.reply({"unreviewed": self.backend.memory.hooks.unreviewed_count()})


class _DecisionHandler(MemoryHandler):
    decision = ""

    def decide(self, memory_id: str, body: ReviewBody, **options: Any) -> None:
        self.id_arg(memory_id)
        project = self.project_arg(body.project) if body.project else None
        try:
            result = self.backend.memory.review_memory(
                memory_id, self.decision, project=project, **options
            ).to_dict()
        except ConflictError as exc:
            raise ApiError(409, str(exc), error="conflict", state=exc.state) from None
        if result["status"] == "skipped":  # the queue already had it: nothing changed
            self.reply(result)
            return
        self.backend.changed("memories", self.decision, id=memory_id)
        proposal = (result.get("proposal") or {}).get("id")
        if proposal:
            self.backend.changed("queue", "propose", id=str(proposal))
        self.reply(result)


class KeepHandler(_DecisionHandler):
    decision = "keep"

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self, memory_id: str) -> None:
        self.decide(memory_id, self.body(ReviewBody))


class DiscardHandler(_DecisionHandler):
    decision = "discard"

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self, memory_id: str) -> None:
        self.decide(memory_id, self.body(ReviewBody))


class PromoteHandler(_DecisionHandler):
    decision = "promote"

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self, memory_id: str) -> None:
        body = self.body(PromoteBody)
        self.decide(memory_id, body, kind=body.kind)
