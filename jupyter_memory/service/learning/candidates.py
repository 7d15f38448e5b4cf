"""The self-learner (spec 003, 自学习): corrections and repeated gotchas become
candidate rules with a confidence, and a candidate past the thresholds becomes
a queue *proposal* (source ``correction`` or ``gotcha``) — never applied, never
injected until a person applies it.

Gotchas arrive with the digested cells: the notebook layer marks a cell that
failed with the same exception signature for the ``GOTCHA_REPEATS``-th time in
its session (``error``, ``error_line``, ``error_repeats``). Each such session is
one piece of evidence, quoting the failing line of the person's own cell.

A dismissal of that proposal in the queue, or :meth:`SelfLearner.dismiss_candidate`
with a reason, lowers the candidate's confidence to zero; it needs new evidence to
come back.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ...core.learning.corrections import (
    GOTCHA_REPEATS,
    GOTCHA_RULE,
    GOTCHA_RULE_PLAIN,
    Correction,
    Evidence,
    LearningCandidate,
    add_evidence,
    confidence,
    detect_correction,
    dismiss,
    ready,
)
from ...core.learning.work_memory import Batch
from ...exceptions import NotFoundError, ValidationError
from ...store.learning.candidates import LearningStore
from ..context import ServiceContext
from .ports import ProposalQueue
from .results import CandidateRule, LearnedProposal


def _corrections(batch: Batch, now: datetime) -> list[tuple[Correction, Evidence]]:
    """Person replies that directly follow an assistant message, with their evidence."""
    found = []
    ordered = [*batch.background, *batch.messages]
    new_ids = {m.id for m in batch.messages}
    for prev, msg in zip(ordered, ordered[1:], strict=False):
        if msg.id not in new_ids or msg.role != "user" or prev.role != "assistant":
            continue
        correction = detect_correction(msg.text)
        if correction is not None:
            at = msg.event_time or now
            found.append((correction, Evidence(batch.session_of(msg), correction.quote, at)))
    return found


def _gotchas(batch: Batch, now: datetime) -> list[tuple[str, str, Evidence]]:
    """``(key, rule, evidence)`` for cells that made a gotcha in their session."""
    found = []
    for msg in batch.messages:
        if msg.role != "user" or not msg.error or not msg.error_line:
            continue
        if (msg.error_repeats or 0) < GOTCHA_REPEATS or msg.error_line not in msg.text:
            continue  # the quote must be the person's own line, verbatim
        rule = GOTCHA_RULE.format(line=msg.error_line, signature=msg.error)
        at = msg.event_time or now
        found.append(
            (f"gotcha:{msg.error}", rule, Evidence(batch.session_of(msg), msg.error_line, at))
        )
    return found


class SelfLearner:
    """Candidate rules of one home; ready ones go to the knowledge queue as proposals."""

    def __init__(self, ctx: ServiceContext, queue: ProposalQueue) -> None:
        self.ctx = ctx
        self.queue = queue
        self.store = LearningStore(ctx.home)

    def _propose(self, cand: LearningCandidate) -> Mapping[str, Any]:
        quote = cand.live_evidence()[-1].quote
        texts = [cand.rule]
        if cand.source == "gotcha":
            texts.append(GOTCHA_RULE_PLAIN.format(signature=cand.key.split(":", 1)[1]))
        for i, text in enumerate(texts):
            try:
                return self.queue.propose(
                    text,
                    "rule",
                    quote,
                    source=cand.source,
                    messages=[{"role": "user", "text": quote}],
                )
            except ValidationError as exc:
                # A gotcha line may be refused as execution state (a path, a query):
                # the plain warning, with the line as its quote, is proposed instead.
                if "refused" in str(exc) and i + 1 < len(texts):
                    continue
                raise
        raise AssertionError("unreachable")

    def learn(self, batch: Batch) -> list[LearnedProposal]:
        """Add this batch's corrections and gotchas as evidence; propose the ready candidates."""
        now = self.ctx.clock()
        candidates = self.store.load()
        for correction, evidence in _corrections(batch, now):
            cand, pid = candidates.get(correction.key, (None, None))
            if cand is None:
                cand = LearningCandidate(
                    key=correction.key, rule=correction.rule, source="correction"
                )
            add_evidence(cand, evidence)
            candidates[correction.key] = (cand, pid)
        for key, rule, evidence in _gotchas(batch, now):
            cand, pid = candidates.get(key, (None, None))
            if cand is None:
                cand = LearningCandidate(key=key, rule=rule, source="gotcha")
            # One piece of evidence per session: the spec counts sessions, not failures.
            if not any(e.session == evidence.session for e in cand.live_evidence()):
                add_evidence(cand, evidence)
            candidates[key] = (cand, pid)
        proposed = []
        for key, (cand, pid) in list(candidates.items()):
            if pid is not None:
                proposal = self.queue.proposal(pid)
                if proposal.status == "dismissed" and not any(
                    at == proposal.decided_at for at, _ in cand.dismissals
                ):
                    dismiss(cand, proposal.decided_at or now, "dismissed in the queue")
                if proposal.is_pending or proposal.status == "applied":
                    continue
                pid = None
            if ready(cand, now):
                result = self._propose(cand)
                pid = result.get("id")
                proposed.append(LearnedProposal(key, cand.rule, result.get("status"), pid))
            candidates[key] = (cand, pid)
        self.store.save(candidates)
        return proposed

    def candidates(self) -> list[CandidateRule]:
        """Every candidate rule, with its live evidence count and confidence now."""
        now = self.ctx.clock()
        return [
            CandidateRule(
                key=c.key,
                rule=c.rule,
                source=c.source,
                evidence=len(c.live_evidence()),
                confidence=round(confidence(c, now), 4),
                proposal_id=pid,
                dismissals=list(c.dismissals),
            )
            for c, pid in self.store.load().values()
        ]

    def dismiss_candidate(self, key: str, reason: str) -> None:
        """The person rejects a candidate rule: confidence drops until new evidence."""
        loaded = self.store.load()
        if key not in loaded:
            raise NotFoundError(f"no candidate rule {key!r}")
        dismiss(loaded[key][0], self.ctx.clock(), reason)
        self.store.save(loaded)
