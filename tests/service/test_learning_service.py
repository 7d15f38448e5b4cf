"""Corrections in digested sessions → candidate rules → a queue proposal (never applied)."""

from __future__ import annotations

import pytest

from jupyter_memory.exceptions import NotFoundError


def _session(mem, clock, n: int) -> dict:
    clock.advance(hours=1)
    mem.digest_record(
        f"kernel-{n}",
        [
            {
                "id": "a",
                "role": "assistant",
                "text": "I'll install it with yarn add pandas-profiling",
            },
            {"id": "u", "role": "user", "text": "no, use npm not yarn"},
        ],
    )
    return mem.digest()


def test_five_corrections_become_one_proposal_and_nothing_is_applied(mem, clock):
    for n in range(4):
        assert _session(mem, clock, n)["proposed"] == []
    (cand,) = mem.learning_candidates()
    # 0.90 with four pieces: past neither threshold (> 0.9 and at least five)
    assert cand["evidence"] == 4 and cand["confidence"] <= 0.91
    report = _session(mem, clock, 4)
    (proposed,) = report["proposed"]
    assert proposed["status"] == "queued" and proposed["rule"] == "Use npm, not yarn."
    proposal = mem.proposal(proposed["proposal_id"])
    assert proposal.source == "correction" and proposal.status == "pending"
    assert proposal.evidence_quote == "no, use npm not yarn"
    assert "npm" not in mem.knowledge("user")  # a proposal is not knowledge
    assert _session(mem, clock, 5)["proposed"] == []  # still pending: not proposed twice


def test_a_queue_dismissal_drops_confidence_until_new_evidence(mem, clock):
    for n in range(5):
        report = _session(mem, clock, n)
    pid = report["proposed"][0]["proposal_id"]
    mem.dismiss(pid)
    clock.advance(minutes=1)
    mem.digest_record("quiet", [{"id": "q", "role": "user", "text": "thanks"}])
    mem.digest()
    (cand,) = mem.learning_candidates()
    assert cand["confidence"] == 0.0 and cand["dismissals"][0]["reason"] == "dismissed in the queue"


def test_dismiss_candidate_records_the_reason(mem, clock):
    _session(mem, clock, 0)
    key = mem.learning_candidates()[0]["key"]
    mem.dismiss_candidate(key, "this repo uses pnpm")
    (cand,) = mem.learning_candidates()
    assert cand["confidence"] == 0.0 and cand["dismissals"][0]["reason"] == "this repo uses pnpm"
    with pytest.raises(NotFoundError):
        mem.dismiss_candidate("nope", "x")
    clock.advance(days=1)
    _session(mem, clock, 1)
    assert mem.learning_candidates()[0]["evidence"] == 1  # only evidence after the dismissal


# ---- repeated gotchas across sessions ------------------------------------------------

SIG = "KeyError: 'refund_amt'"
LINE = "df['refund_amt'].sum()"


def _gotcha_session(mem, clock, n: int, *, repeats: int = 3, line: str = LINE) -> dict:
    clock.advance(hours=1)
    cell = f"df = load()\n{line}"
    mem.digest_record(
        f"kernel-g{n}",
        [
            {
                "id": f"In[{i}]",
                "role": "user",
                "kind": "code",
                "text": cell,
                "error": SIG,
                "error_line": line,
                "error_repeats": i,
            }
            for i in range(1, repeats + 1)
        ],
    )
    return mem.digest()


def test_a_gotcha_in_five_sessions_becomes_one_gotcha_proposal(mem, clock):
    for n in range(4):
        assert _gotcha_session(mem, clock, n)["proposed"] == []
    (cand,) = mem.learning_candidates()
    assert cand["source"] == "gotcha" and cand["evidence"] == 4  # one per session, not per failure
    (proposed,) = _gotcha_session(mem, clock, 4)["proposed"]
    proposal = mem.proposal(proposed["proposal_id"])
    assert proposal.source == "gotcha" and proposal.status == "pending"
    assert proposal.evidence_quote == LINE
    assert "refund_amt" in proposal.text and SIG in proposal.text
    assert "refund_amt" not in mem.knowledge("user")  # never applied


def test_fewer_than_three_failures_in_a_session_is_no_gotcha(mem, clock):
    for n in range(6):
        _gotcha_session(mem, clock, n, repeats=2)
    assert mem.learning_candidates() == []


def test_a_gotcha_line_that_is_not_in_the_cell_is_not_evidence(mem, clock):
    clock.advance(hours=1)
    mem.digest_record(
        "kernel-x",
        [
            {
                "id": "In[3]",
                "role": "user",
                "text": "print(1)",
                "error": SIG,
                "error_line": "something the person never wrote",
                "error_repeats": 3,
            }
        ],
    )
    mem.digest()
    assert mem.learning_candidates() == []


def test_a_gotcha_whose_line_is_refused_is_proposed_as_the_plain_warning(mem, clock):
    line = "pd.read_csv('/home/ana/data/refunds_2026.csv')"
    for n in range(5):
        report = _gotcha_session(mem, clock, n, line=line)
    (proposed,) = report["proposed"]
    proposal = mem.proposal(proposed["proposal_id"])
    assert proposal.text == f"Watch out: a step fails with {SIG}."
    assert proposal.evidence_quote == line
