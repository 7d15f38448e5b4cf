"""The self-learner (spec 003, 自学习): corrections and repeated gotchas become
candidate rules with a confidence, and a candidate past the thresholds becomes
a queue *proposal* (source ``correction`` or ``gotcha``) — never applied, never
injected until a person applies it.

Gotchas arrive two ways, one piece of evidence per session either way: the
notebook's capture reports the ``GOTCHA_REPEATS``-th failure of one exception
signature at once (:mod:`.gotchas`, which also writes the ``auto-gotcha``
memory), and a digested cell carries the same signal (``error``,
``error_line``, ``error_repeats``). The quote is the failing line of the
person's own cell, or the whole cell when the line is too short to stand as
evidence; a candidate whose every quote is too short is *blocked*: it is shown,
never proposed.

The person sees every candidate with its evidence, confidence and the
thresholds (:meth:`SelfLearner.report`), can reject one with a reason
(:meth:`SelfLearner.dismiss_candidate`: confidence drops to zero until new
evidence) or promote it to a proposal now (:meth:`SelfLearner.promote`). A
dismissal of the proposal in the queue counts as a rejection, with the reason
the person gave there.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..._i18n import M_
from ...core.learning.corrections import (
    GOTCHA_REPEATS,
    GOTCHA_RULE,
    GOTCHA_RULE_PLAIN,
    Correction,
    Evidence,
    LearningCandidate,
    Thresholds,
    add_evidence,
    candidate_status,
    confidence,
    detect_correction,
    dismiss,
    gotcha_quote,
    proposal_quote,
    ready,
    same_candidate,
)
from ...core.learning.work_memory import Batch
from ...exceptions import NotFoundError, ValidationError
from ...store.learning.candidates import LearningStore
from ..context import ServiceContext
from .ports import ProposalQueue
from .results import CandidateEvidence, CandidateRule, LearnedProposal, LearningReport

QUEUE_DISMISSAL = "dismissed in the queue (no reason given)"


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
            continue  # the quote must be the person's own words, verbatim
        rule = GOTCHA_RULE.format(line=msg.error_line, signature=msg.error)
        quote = gotcha_quote(msg.error_line, msg.text)
        at = msg.event_time or now
        found.append((f"gotcha:{msg.error}", rule, Evidence(batch.session_of(msg), quote, at)))
    return found


class SelfLearner:
    """Candidate rules of one home; ready ones go to the knowledge queue as proposals."""

    def __init__(self, ctx: ServiceContext, queue: ProposalQueue) -> None:
        self.ctx = ctx
        self.queue = queue
        self.store = LearningStore(ctx.home)

    def _propose(self, cand: LearningCandidate, quote: str) -> Mapping[str, Any]:
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
            key = correction.key
            if key not in candidates:  # the same correction in other words is one candidate
                same = same_candidate(correction.rule, (c for c, _ in candidates.values()))
                key = same.key if same is not None else key
            cand, pid = candidates.get(key, (None, None))
            if cand is None:
                cand = LearningCandidate(key=key, rule=correction.rule, source="correction")
            add_evidence(cand, evidence)
            candidates[key] = (cand, pid)
        for key, rule, evidence in _gotchas(batch, now):
            _add_gotcha_evidence(candidates, key, rule, evidence)
        proposed = self._propose_ready(candidates, now)
        self.store.save(candidates)
        return proposed

    def add_gotcha(
        self, session: str, signature: str, line: str | None, cell_text: str
    ) -> tuple[CandidateRule, list[LearnedProposal]]:
        """A gotcha seen in ``session`` right now (the capture's signal): its evidence,
        and a proposal only if the candidate passed the thresholds."""
        now = self.ctx.clock()
        key = f"gotcha:{signature}"
        rule = (
            GOTCHA_RULE.format(line=line, signature=signature)
            if line
            else (GOTCHA_RULE_PLAIN.format(signature=signature))
        )
        candidates = self.store.load()
        evidence = Evidence(session, gotcha_quote(line, cell_text), now)
        _add_gotcha_evidence(candidates, key, rule, evidence)
        proposed = self._propose_ready(candidates, now)
        self.store.save(candidates)
        cand, pid = candidates[key]
        return self._row(cand, pid, now), proposed

    def _propose_ready(
        self, candidates: dict[str, tuple[LearningCandidate, str | None]], now: datetime
    ) -> list[LearnedProposal]:
        proposed = []
        for key, (cand, pid) in list(candidates.items()):
            if pid is not None:
                proposal = self.queue.proposal(pid)
                if proposal.status == "dismissed" and not any(
                    at == proposal.decided_at for at, _ in cand.dismissals
                ):
                    reason = getattr(proposal, "dismiss_reason", None) or QUEUE_DISMISSAL
                    dismiss(cand, proposal.decided_at or now, str(reason))
                if proposal.is_pending or proposal.status == "applied":
                    continue
                pid = None
            quote = proposal_quote(cand)
            if ready(cand, now) and quote is not None:
                result = self._propose(cand, quote)
                pid = result.get("id")
                proposed.append(LearnedProposal(key, cand.rule, result.get("status"), pid))
            candidates[key] = (cand, pid)
        return proposed

    def on_queue_event(self, event: Mapping[str, Any]) -> None:
        """A queue listener: a learned proposal dismissed there rejects its candidate now,
        with the reason the person gave (or says none was given)."""
        if event.get("action") != "dismissed":
            return
        loaded = self.store.load()
        for key, (cand, pid) in loaded.items():
            if pid is None or pid != event.get("id"):
                continue
            proposal = self.queue.proposal(pid)
            at = proposal.decided_at or self.ctx.clock()
            if not any(when == at for when, _ in cand.dismissals):
                dismiss(cand, at, str(event.get("reason") or QUEUE_DISMISSAL))
            loaded[key] = (cand, None)  # no proposal any more: new evidence may propose again
            self.store.save(loaded)
            return

    def _row(self, c: LearningCandidate, pid: str | None, now: datetime) -> CandidateRule:
        live = c.live_evidence()
        return CandidateRule(
            key=c.key,
            rule=c.rule,
            source=c.source,
            evidence=len(live),
            confidence=round(confidence(c, now), 4),
            proposal_id=pid,
            dismissals=list(c.dismissals),
            status=candidate_status(c, pid, now),
            evidence_items=[
                CandidateEvidence(e.session, e.quote, e.at, e in live) for e in c.evidence
            ],
        )

    def candidates(self) -> list[CandidateRule]:
        """Every candidate rule, with its live evidence count and confidence now."""
        now = self.ctx.clock()
        return [self._row(c, pid, now) for c, pid in self.store.load().values()]

    def report(self) -> LearningReport:
        """What the person sees: every candidate (most confident first) and the thresholds."""
        rows = sorted(self.candidates(), key=lambda r: (-r.confidence, r.key))
        return LearningReport(Thresholds(), rows)

    def candidate(self, key: str) -> CandidateRule:
        """One self-learning candidate rule by key, with its evidence."""
        loaded = self.store.load()
        if key not in loaded:
            raise NotFoundError(M_("no candidate rule {key!r}", key=key))
        return self._row(*loaded[key], self.ctx.clock())

    def dismiss_candidate(self, key: str, reason: str) -> CandidateRule:
        """The person rejects a candidate rule: confidence drops until new evidence."""
        if not isinstance(reason, str) or not reason.strip():
            raise ValidationError(M_("say why the candidate is rejected"), field="reason")
        loaded = self.store.load()
        if key not in loaded:
            raise NotFoundError(M_("no candidate rule {key!r}", key=key))
        now = self.ctx.clock()
        dismiss(loaded[key][0], now, reason.strip())
        self.store.save(loaded)
        return self._row(*loaded[key], now)

    def promote(self, key: str) -> LearnedProposal:
        """The person asks for the proposal now, below the thresholds (still only proposed).

        The quote is the newest evidence long enough to be one (evidence before a
        rejection counts: the person changed their mind).
        """
        loaded = self.store.load()
        if key not in loaded:
            raise NotFoundError(M_("no candidate rule {key!r}", key=key))
        cand, pid = loaded[key]
        if pid is not None and self.queue.proposal(pid).is_pending:
            return LearnedProposal(key, cand.rule, "already_pending", pid)
        quote = proposal_quote(cand) or proposal_quote(cand, live_only=False)
        if quote is None:
            raise ValidationError(
                M_(
                    "candidate {key!r} has no quote long enough to back a proposal (every "
                    "failing cell was too short)",
                    key=key,
                ),
                field="key",
            )
        result = self._propose(cand, quote)
        pid = result.get("id")
        loaded[key] = (cand, pid)
        self.store.save(loaded)
        return LearnedProposal(key, cand.rule, result.get("status"), pid)


def _add_gotcha_evidence(
    candidates: dict[str, tuple[LearningCandidate, str | None]],
    key: str,
    rule: str,
    evidence: Evidence,
) -> None:
    cand, pid = candidates.get(key, (None, None))
    if cand is None:
        cand = LearningCandidate(key=key, rule=rule, source="gotcha")
    # One piece of evidence per session: the spec counts sessions, not failures.
    if not any(e.session == evidence.session for e in cand.live_evidence()):
        add_evidence(cand, evidence)
    candidates[key] = (cand, pid)
