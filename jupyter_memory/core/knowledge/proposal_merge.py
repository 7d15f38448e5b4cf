"""Three-way merge of one proposal file of a shared review queue (issue 17).

A shared queue keeps one file per proposal in the project folder, so two
clones only meet in the same file when both decided the same proposal. Git
then calls ``jupyter-memory merge-proposal %O %A %B %P``; exactly one decision
holds afterwards:

* one side decided, the other did not: that decision;
* both decided alike: the earlier one (its time and person);
* both decided differently: the earlier decision holds and the other one is
  kept in the file as ``contested`` (status, who, when), so the queue, the
  panel and ``doctor`` report it instead of one silently overwriting the other.

A decision dated before its proposal was created cannot have been made (a
hand-edited or forged file, issue 29): it never holds over the other side, even
over a pending one; it is kept as ``contested`` with ``invalid`` saying why.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .proposals import Proposal, parse_proposal, render_proposal

DECISION_FIELDS = ("status", "decided_at", "decided_by", "applied_to", "applied_project",
                   "superseded_by")  # fmt: skip


def decision_of(p: Proposal) -> dict[str, Any]:
    data = p.model_dump(mode="json")
    return {k: data.get(k) for k in DECISION_FIELDS if data.get(k) is not None}


def _same_decision(a: Proposal, b: Proposal) -> bool:
    return (a.status, a.applied_to, a.applied_project) == (
        b.status,
        b.applied_to,
        b.applied_project,
    )


def _when(p: Proposal) -> datetime:
    return p.decided_at or p.created


def dated_before_creation(p: Proposal) -> bool:
    """A decision whose time is before the proposal's own creation: not a real decision."""
    return p.decided_at is not None and p.decided_at < p.created


INVALID_EARLY = "dated before the proposal was created"


def reopened(p: Proposal) -> Proposal:
    """A decision dated before its proposal was created is no decision: the proposal
    reads as pending again, so the queue lists it and the person's Apply or Dismiss
    settles it."""
    if not dated_before_creation(p):
        return p
    cleared = dict.fromkeys(("decided_at", "decided_by", "applied_to", "applied_project"))
    return p.model_copy(update={**cleared, "status": "pending"})


def _set_aside(holds: Proposal, invalid: Proposal) -> str:
    kept = {**decision_of(invalid), "invalid": INVALID_EARLY}
    return render_proposal(holds.model_copy(update={"contested": kept}))


def merge_proposal(base: str, ours: str, theirs: str) -> tuple[str, bool] | None:
    """The merged file and whether two decisions contest it; ``None`` if a side is unreadable."""
    if ours == theirs or theirs == base:
        return ours, False
    try:
        o, t = parse_proposal(ours), parse_proposal(theirs)
        b = parse_proposal(base) if base.strip() else None
    except Exception:  # noqa: BLE001 - any unreadable side: git's own conflict
        return None if ours != base else (theirs, False)
    o_bad, t_bad = dated_before_creation(o), dated_before_creation(t)
    if t_bad and not o_bad:
        return _set_aside(o, t), True
    if o_bad and not t_bad:
        return _set_aside(t, o), True
    if ours == base:
        return theirs, False
    o_changed = b is None or decision_of(o) != decision_of(b)
    t_changed = b is None or decision_of(t) != decision_of(b)
    if not t_changed or t.is_pending:
        return ours, False
    if not o_changed or o.is_pending:
        return theirs, False
    first, second = (o, t) if _when(o) <= _when(t) else (t, o)
    if _same_decision(o, t):
        return render_proposal(first), False
    merged = first.model_copy(update={"contested": decision_of(second)})
    return render_proposal(merged), True


__all__ = [
    "DECISION_FIELDS",
    "INVALID_EARLY",
    "dated_before_creation",
    "decision_of",
    "merge_proposal",
    "reopened",
]
