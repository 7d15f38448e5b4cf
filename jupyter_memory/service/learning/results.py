"""What the learning services return (``to_dict()`` keeps the keys of the old dicts)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..._i18n import M_
from ...core.learning.corrections import Thresholds
from ...core.learning.work_memory import Rejection
from ..results import MappingResult

# -- the session digest -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class StoredWorkMemory(MappingResult):
    """A work memory the digest stored (unreviewed)."""

    id: str
    type: str  # the spec 001 work type
    title: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "title": self.title}


@dataclass(frozen=True, eq=False)
class DigestedBatch(MappingResult):
    """One batch of new messages (an inbox session or a chat file) and what came of it."""

    source: str
    session_key: str
    messages: int
    stored: int
    rejected: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "session_key": self.session_key,
            "messages": self.messages,
            "stored": self.stored,
            "rejected": self.rejected,
        }


@dataclass(frozen=True, eq=False)
class LearnedProposal(MappingResult):
    """A candidate rule that passed the thresholds and went to the queue."""

    key: str
    rule: str
    status: str | None
    proposal_id: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "rule": self.rule,
            "status": self.status,
            "proposal_id": self.proposal_id,
        }


@dataclass(frozen=True, eq=False)
class DigestReport(MappingResult):
    """One session-digest run: batches, stored memories, validator rejections, proposals."""

    extractor: str  # "llm" or "deterministic"
    batches: list[DigestedBatch]
    stored: list[StoredWorkMemory]
    rejected: list[Rejection]
    proposed: list[LearnedProposal]
    # The LLM budget's word: spent (a background digest used the embedded
    # extractor) or, for a person's request, that it went over today's budget.
    notice: str | None = None

    def review_notice(self, how: str = "%memories --review") -> str | None:
        """The one line a digest leaves where the person is (issue 32): what waits for review."""
        n = len(self.stored)
        if n == 0:
            return None
        if n == 1:
            return M_("1 memory from this session waits for review: {how}", how=how)
        return M_("{n} memories from this session wait for review: {how}", n=n, how=how)

    def to_dict(self) -> dict[str, Any]:
        return {
            "extractor": self.extractor,
            "batches": [b.to_dict() for b in self.batches],
            "stored": [s.to_dict() for s in self.stored],
            "rejected": [r.to_dict() for r in self.rejected],
            "proposed": [p.to_dict() for p in self.proposed],
            "notice": self.notice,
            "review_notice": self.review_notice(),
        }


# -- self-learning ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CandidateEvidence(MappingResult):
    """One piece of a candidate's evidence: a session, the person's words, when.

    ``live`` is False for evidence older than the last rejection (it no longer counts).
    """

    session: str
    quote: str
    at: datetime
    live: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "quote": self.quote,
            "at": self.at.isoformat(),
            "live": self.live,
        }


@dataclass(frozen=True, eq=False)
class CandidateRule(MappingResult):
    """A self-learning candidate rule with its live evidence count and confidence.

    ``status``: collecting, ready, blocked (ready but no quote can back a
    proposal), proposed or rejected (dismissed, no evidence since).
    """

    key: str
    rule: str
    source: str  # "correction" or "gotcha"
    evidence: int
    confidence: float
    proposal_id: str | None
    dismissals: list[tuple[datetime, str]]
    status: str = "collecting"
    evidence_items: list[CandidateEvidence] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "rule": self.rule,
            "source": self.source,
            "evidence": self.evidence,
            "confidence": self.confidence,
            "proposal_id": self.proposal_id,
            "dismissals": [{"at": at.isoformat(), "reason": why} for at, why in self.dismissals],
            "status": self.status,
            "evidence_items": [e.to_dict() for e in self.evidence_items],
        }


@dataclass(frozen=True, eq=False)
class LearningReport(MappingResult):
    """Every candidate rule and the thresholds it must pass to become a proposal."""

    thresholds: Thresholds
    candidates: list[CandidateRule]

    def to_dict(self) -> dict[str, Any]:
        return {
            "thresholds": self.thresholds.to_dict(),
            "candidates": [c.to_dict() for c in self.candidates],
            "count": len(self.candidates),
        }


# -- review -------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class UnreviewedMemory(MappingResult):
    """A memory waiting for the person's review, with its evidence and scene."""

    id: str
    title: str
    text: str
    type: str
    tier: str
    source: str
    work_type: Any
    scene: Any
    evidence: list[dict[str, Any]]
    created: datetime
    layer: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "text": self.text,
            "type": self.type,
            "tier": self.tier,
            "source": self.source,
            "work_type": self.work_type,
            "scene": self.scene,
            "evidence": [dict(q) for q in self.evidence],
            "created": self.created,
            "layer": self.layer,
        }


@dataclass(frozen=True, eq=False)
class ReviewDecision(MappingResult):
    """The person's decision on an unreviewed memory.

    ``status`` is kept, discarded, promoted (with the queue's ``proposal``) or
    skipped (the queue already holds it: ``reason``); each status carries its
    own keys in ``to_dict()``.
    """

    id: str
    status: str
    proposal: Mapping[str, Any] | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "status": self.status}
        if self.status == "kept":
            out["reviewed"] = True
        elif self.status == "promoted":
            out["proposal"] = dict(self.proposal or {})
        elif self.status == "skipped":
            out["reason"] = self.reason
        return out
