"""One decision per proposal after git merges a shared-queue file (issue 17), pure."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import assume, given
from hypothesis import strategies as st

from jupyter_memory.core.knowledge.proposal_merge import merge_proposal
from jupyter_memory.core.knowledge.proposals import build_proposal, parse_proposal, render_proposal

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
BASE = build_proposal(
    id="p-01", text="收入不含退款", kind="rule", evidence_quote="收入不含退款",
    source="manual", suggested_layer="project", project="sales", created=T0,
)  # fmt: skip

DECISIONS = st.sampled_from(["pending", "applied", "dismissed"])


def decided(status: str, who: str, minutes: int) -> str:
    if status == "pending":
        return render_proposal(BASE)
    update: dict[str, object] = {
        "status": status,
        "decided_at": T0 + timedelta(minutes=minutes),
        "decided_by": who,
    }
    if status == "applied":
        update |= {"applied_to": "project", "applied_project": "sales"}
    return render_proposal(BASE.model_copy(update=update))


@given(DECISIONS, DECISIONS, st.integers(1, 50), st.integers(1, 50))
def test_exactly_one_decision_holds_and_a_difference_is_kept(
    ours: str, theirs: str, t_ours: int, t_theirs: int
) -> None:
    merged = merge_proposal(
        render_proposal(BASE), decided(ours, "Ana", t_ours), decided(theirs, "Bo", t_theirs)
    )
    assert merged is not None
    text, contested = merged
    p = parse_proposal(text)
    decisions = {ours, theirs} - {"pending"}
    if not decisions:
        assert p.status == "pending" and not contested
    elif len(decisions) == 1:
        assert p.status in decisions and not contested
    else:
        assert contested and p.status in decisions
        other = p.contested  # type: ignore[attr-defined]
        assert {p.status, other["status"]} == {"applied", "dismissed"}
        earlier = ours if t_ours <= t_theirs else theirs
        assert p.status == earlier  # the earlier decision holds


def test_an_unreadable_side_is_left_to_git() -> None:
    theirs = decided("dismissed", "Bo", 3)
    assert merge_proposal(render_proposal(BASE), "not a proposal", theirs) is None
    # A side the other left as it was is taken whole, as git would.
    assert merge_proposal(render_proposal(BASE), theirs, render_proposal(BASE)) == (theirs, False)


@given(st.sampled_from(["pending", "applied", "dismissed"]), st.booleans())
def test_a_decision_dated_before_its_proposal_never_holds(ours: str, forged_is_ours: bool) -> None:
    """Issue 29: ``decided_at: 2000-01-01`` used to win as "the earlier decision"."""
    forged = render_proposal(BASE.model_copy(update={
        "status": "applied", "decided_at": datetime(2000, 1, 1, tzinfo=timezone.utc),
        "decided_by": "Ana", "applied_to": "project", "applied_project": "sales",
    }))  # fmt: skip
    # (Forged here and untouched there is no merge at all: the queue's read-time
    # check reports it, tests/team/test_team_bypass.py.)
    assume(not (forged_is_ours and ours == "pending"))
    real = decided(ours, "Ana <ana@example.org>", 5)
    sides = (forged, real) if forged_is_ours else (real, forged)
    merged = merge_proposal(render_proposal(BASE), *sides)
    assert merged is not None
    text, contested = merged
    p = parse_proposal(text.encode())
    assert contested and p.status == ours
    assert p.contested["invalid"] == "dated before the proposal was created"
    assert p.contested["decided_by"] == "Ana"
