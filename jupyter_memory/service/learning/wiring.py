"""The learning and tier services of one ``Memory``, built from its context.

Tier housekeeping and the cold archive belong to the memories domain; they are
built here beside the session digest because the digest, review and the daily
merge all write through the same memory operations (one-way imports: memory →
wiring → learning services → memories services).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..context import ServiceContext
from ..memories.cold_archive import ColdArchive
from ..memories.tiers import TierMemoryWrites, TiersService
from .agent_sessions import AgentSessions
from .candidates import SelfLearner
from .digest import DigestService
from .gotchas import GotchaCapture
from .ports import (
    KnowledgeQueuePort,
    MemoryListing,
    QueueChanges,
    ReviewWrites,
    WorkMemoryWriter,
)
from .review import ReviewService


class LearningMemoryWrites(TierMemoryWrites, WorkMemoryWriter, ReviewWrites, Protocol):
    """Every memory write the learning and tier services make (the memory writer's)."""


@dataclass(frozen=True)
class LearningServices:
    tiers: TiersService
    cold_archive: ColdArchive
    learner: SelfLearner
    digest: DigestService
    review: ReviewService
    gotchas: GotchaCapture
    agent_sessions: AgentSessions


def learning_services(
    ctx: ServiceContext,
    *,
    writer: LearningMemoryWrites,
    reader: MemoryListing,
    queue: KnowledgeQueuePort,
    queue_events: QueueChanges | None = None,
) -> LearningServices:
    """Build the services over the memory ``writer`` and ``reader`` and the knowledge ``queue``.

    With ``queue_events``, a learned proposal dismissed in the queue rejects its
    candidate at once, with the person's reason.
    """
    tiers = TiersService(ctx, writer)
    learner = SelfLearner(ctx, queue)
    if queue_events is not None:
        queue_events.on_queue_change(learner.on_queue_event)
    digest = DigestService(ctx, writer, learner)
    return LearningServices(
        tiers=tiers,
        cold_archive=ColdArchive(ctx, tiers),
        learner=learner,
        digest=digest,
        review=ReviewService(ctx, writer, queue),
        gotchas=GotchaCapture(ctx, writer, reader, learner),
        agent_sessions=AgentSessions(ctx, digest, queue),
    )


__all__ = ["LearningMemoryWrites", "LearningServices", "learning_services"]
