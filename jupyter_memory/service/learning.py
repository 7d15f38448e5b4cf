"""The self-learner (spec 003, 自学习): corrections become candidate rules with a
confidence, and a candidate past the thresholds becomes a queue *proposal*
(source ``correction``) — never applied, never injected until a person applies it.

A dismissal of that proposal in the queue, or :func:`dismiss_candidate` with a
reason, lowers the candidate's confidence to zero; it needs new evidence to
come back.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..core.corrections import (
    Candidate,
    Evidence,
    add_evidence,
    confidence,
    detect_correction,
    dismiss,
    ready,
)
from ..core.work_memory import Batch
from ..exceptions import NotFoundError
from ..store.learning_store import LearningStore


def _corrections(batch: Batch, now: datetime) -> list[tuple[Any, Evidence]]:
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


def learn(mem: Any, batch: Batch) -> list[dict[str, Any]]:
    """Add this batch's corrections as evidence; propose the candidates that are ready."""
    store = LearningStore(mem.home)
    now = mem.clock()
    candidates = store.load()
    for correction, evidence in _corrections(batch, now):
        cand, pid = candidates.get(correction.key, (None, None))
        if cand is None:
            cand = Candidate(key=correction.key, rule=correction.rule, source="correction")
        add_evidence(cand, evidence)
        candidates[correction.key] = (cand, pid)
    proposed = []
    for key, (cand, pid) in list(candidates.items()):
        if pid is not None:
            proposal = mem.proposal(pid)
            if proposal.status == "dismissed" and not any(
                at == proposal.decided_at for at, _ in cand.dismissals
            ):
                dismiss(cand, proposal.decided_at or now, "dismissed in the queue")
            if proposal.is_pending or proposal.status == "applied":
                continue
            pid = None
        if ready(cand, now):
            quote = cand.live_evidence()[-1].quote
            result = mem.propose(
                cand.rule,
                "rule",
                quote,
                source=cand.source,
                messages=[{"role": "user", "text": quote}],
            )
            pid = result.get("id")
            proposed.append(
                {"key": key, "rule": cand.rule, "status": result.get("status"), "proposal_id": pid}
            )
        candidates[key] = (cand, pid)
    store.save(candidates)
    return proposed


def candidates(mem: Any) -> list[dict[str, Any]]:
    now = mem.clock()
    return [
        {
            "key": c.key,
            "rule": c.rule,
            "source": c.source,
            "evidence": len(c.live_evidence()),
            "confidence": round(confidence(c, now), 4),
            "proposal_id": pid,
            "dismissals": [{"at": at.isoformat(), "reason": why} for at, why in c.dismissals],
        }
        for c, pid in LearningStore(mem.home).load().values()
    ]


def dismiss_candidate(mem: Any, key: str, reason: str) -> None:
    store = LearningStore(mem.home)
    loaded = store.load()
    if key not in loaded:
        raise NotFoundError(f"no candidate rule {key!r}")
    dismiss(loaded[key][0], mem.clock(), reason)
    store.save(loaded)
