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
from .candidates import SelfLearner
from .digest import DigestService
from .ports import MemoryLookup, ProposalQueue, ReviewWrites, WorkMemoryWriter
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


def learning_services(
    ctx: ServiceContext,
    *,
    writer: LearningMemoryWrites,
    reader: MemoryLookup,
    queue: ProposalQueue,
) -> LearningServices:
    """Build the services over the memory ``writer`` and ``reader`` and the knowledge ``queue``."""
    tiers = TiersService(ctx, writer)
    learner = SelfLearner(ctx, queue)
    return LearningServices(
        tiers=tiers,
        cold_archive=ColdArchive(ctx, tiers),
        learner=learner,
        digest=DigestService(ctx, writer, learner),
        review=ReviewService(ctx, reader, writer, queue),
    )


__all__ = ["LearningMemoryWrites", "LearningServices", "learning_services"]
