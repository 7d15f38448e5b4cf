"""DigestService, SelfLearner and ReviewService built from a ServiceContext alone.

No ``Memory``: the memory operations are the user layer's files
(:class:`tests.service.learning_helpers.UserLayerMemories`) and the knowledge
queue is the real queue service of the same context.
"""

from __future__ import annotations

import pytest

from jupyter_memory.exceptions import NotFoundError, PolicyError
from jupyter_memory.service.knowledge.wiring import knowledge_services
from jupyter_memory.service.learning.candidates import SelfLearner
from jupyter_memory.service.learning.digest import DigestService
from jupyter_memory.service.learning.results import (
    CandidateRule,
    DigestReport,
    ReviewDecision,
    UnreviewedMemory,
)
from jupyter_memory.service.learning.review import ReviewService
from tests.service.learning_helpers import UserLayerMemories, open_context

CELLS = [
    {
        "id": "c2",
        "role": "user",
        "kind": "code",
        "text": "# We decided to drop test accounts from refunds because finance excludes them\n"
        "rev = df.sum()",
        "timestamp": 1767225601000,
    },
    {"id": "a", "role": "assistant", "text": "I'll install it with yarn add pandas-profiling"},
    {"id": "u", "role": "user", "text": "no, use npm not yarn"},
]


@pytest.fixture
def ctx(memory_home, clock):
    c = open_context(memory_home, clock)
    yield c
    c.user.close()


@pytest.fixture
def ops(ctx):
    return UserLayerMemories(ctx)


@pytest.fixture
def queue(ctx):
    return knowledge_services(ctx).queue


@pytest.fixture
def learner(ctx, queue):
    return SelfLearner(ctx, queue)


def test_digest_service_stores_unreviewed_work_memories(ctx, ops, learner):
    digests = DigestService(ctx, ops, learner)
    assert digests.digest_record("kernel-1", CELLS) == 3
    assert digests.digest_pending() == 3
    report = digests.digest()
    assert isinstance(report, DigestReport) and report.extractor == "deterministic"
    assert list(report.to_dict()) == [
        "extractor",
        "batches",
        "stored",
        "rejected",
        "proposed",
        "notice",
        "review_notice",
    ]
    assert report.notice is None  # no LLM, no budget to speak of
    assert report.review_notice() == (
        "1 memory from this session waits for review: %memories --review"
    )
    (batch,) = report.batches
    assert batch.to_dict() == {
        "source": "inbox:kernel-1",
        "session_key": "kernel-1",
        "messages": 3,
        "stored": len(report.stored),
        "rejected": len(report.rejected),
    }
    fact = next(s for s in report.stored if s.type == "work_fact")
    assert list(fact.to_dict()) == ["id", "type", "title"]
    entry = ops.get(fact.id)
    assert entry.meta.reviewed is False and entry.meta.source.value == "session-digest"
    assert digests.digest_pending() == 0
    assert digests.digest().batches == []  # consumed once


def test_self_learner_counts_a_correction_and_a_dismissal(ctx, ops, learner):
    DigestService(ctx, ops, learner).digest_record("kernel-1", CELLS)
    DigestService(ctx, ops, learner).digest()
    (cand,) = learner.candidates()
    assert isinstance(cand, CandidateRule) and cand.evidence == 1 and cand.proposal_id is None
    assert list(cand.to_dict()) == [
        "key",
        "rule",
        "source",
        "evidence",
        "confidence",
        "proposal_id",
        "dismissals",
        "status",
        "evidence_items",
    ]
    learner.dismiss_candidate(cand.key, "this repo uses pnpm")
    (after,) = learner.candidates()
    assert after.confidence == 0.0
    assert after.to_dict()["dismissals"][0]["reason"] == "this repo uses pnpm"
    with pytest.raises(NotFoundError):
        learner.dismiss_candidate("no such rule", "x")


def test_review_service_keeps_discards_and_promotes(ctx, ops, queue, learner):
    DigestService(ctx, ops, learner).digest_record("kernel-1", CELLS)
    stored = DigestService(ctx, ops, learner).digest().stored
    review = ReviewService(ctx, ops, queue)
    rows = review.unreviewed()
    assert {r.id for r in rows} == {s.id for s in stored}
    assert all(isinstance(r, UnreviewedMemory) for r in rows)
    assert list(rows[0].to_dict()) == [
        "id",
        "title",
        "text",
        "type",
        "tier",
        "source",
        "work_type",
        "scene",
        "evidence",
        "created",
        "layer",
    ]
    fact = next(r for r in rows if r.work_type == "work_fact")
    promoted = review.promote_memory(fact.id)
    assert isinstance(promoted, ReviewDecision) and promoted.status == "promoted"
    proposal = promoted.to_dict()["proposal"]
    assert proposal["status"] == "queued"
    assert queue.proposal(proposal["id"]).source == "session-digest"
    assert ops.get(fact.id).meta.reviewed is True
    # the queue already holds it: skipped, with the queue's reason
    ops.update(fact.id, reviewed=False)
    skipped = review.promote_memory(fact.id).to_dict()
    assert skipped["status"] == "skipped" and set(skipped) == {"id", "status", "reason"}
    others = [r for r in review.unreviewed() if r.id != fact.id]
    for row in others:
        assert review.keep_memory(row.id).to_dict() == {
            "id": row.id,
            "status": "kept",
            "reviewed": True,
        }
    assert review.discard_memory(fact.id).to_dict() == {"id": fact.id, "status": "discarded"}
    assert review.unreviewed() == []
    with pytest.raises(NotFoundError):
        ops.get(fact.id)
    assert review.agent_sees_unreviewed is False
    ctx.settings.update(agent_unreviewed=True)
    assert review.agent_sees_unreviewed is True


def test_a_memory_without_the_persons_words_cannot_be_promoted(ctx, ops, queue):
    entry = ops.remember("Assistant said to cache the frame", reviewed=False)
    with pytest.raises(PolicyError):
        ReviewService(ctx, ops, queue).promote_memory(entry.id)
