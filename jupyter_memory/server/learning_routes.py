"""The self-learner's candidate rules (spec 003, 自学习) for the panel's Learning view.

``GET learning`` lists every candidate with its evidence, confidence, status
and the thresholds; ``POST learning/reject`` records the person's rejection
with a reason (confidence drops to zero until new evidence); ``POST
learning/promote`` queues the candidate as a proposal now. Nothing here
applies knowledge: a promoted rule waits in the queue like any proposal.
A candidate's key (Chinese, spaces, colons) travels in the body, not the URL.
"""

from __future__ import annotations

from pydantic import Field
from tornado import web

from .base import APPROVE, READ, MemoryHandler, authorized, off_loop
from .bodies import _Body


class CandidateBody(_Body):
    key: str = Field(min_length=1, max_length=1_000)


class RejectBody(CandidateBody):
    reason: str = Field(min_length=1, max_length=2_000)


class LearningHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        self.reply(self.backend.memory.hooks.learning_report().to_dict())


class RejectCandidateHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self) -> None:
        body = self.body(RejectBody)
        candidate = self.backend.memory.dismiss_candidate(body.key, body.reason)
        self.backend.changed("learning", "reject")
        self.reply(candidate.to_dict())


class PromoteCandidateHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self) -> None:
        body = self.body(CandidateBody)
        result = self.backend.memory.promote_candidate(body.key).to_dict()
        self.backend.changed("learning", "promote")
        if result["status"] != "already_pending":
            self.backend.changed("queue", "propose", id=result["proposal_id"])
        self.reply(result)
