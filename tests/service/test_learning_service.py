"""Corrections in digested sessions → candidate rules → a queue proposal (never applied)."""

from __future__ import annotations

import pytest

from jupyter_memory.exceptions import NotFoundError, ValidationError


def _session(mem, clock, n: int) -> dict:
    clock.advance(hours=1)
    mem.hooks.digest_record(
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
    mem.dismiss(pid, reason="this repo uses pnpm")
    # at once, not at the next digest: the queue tells the learner
    (cand,) = mem.learning_candidates()
    assert cand["confidence"] == 0.0 and cand["status"] == "rejected"
    assert [d["reason"] for d in cand["dismissals"]] == ["this repo uses pnpm"]


def test_a_memory_whose_first_verb_is_a_dismissal_still_tells_the_learner(mem, clock):
    # The domain services are built on first use (service/hooks.py): a Memory that
    # has touched nothing of learning still has the learner hearing its queue.
    from jupyter_memory import Memory

    for n in range(5):
        report = _session(mem, clock, n)
    pid = report["proposed"][0]["proposal_id"]
    with Memory(home=mem.home, clock=clock) as fresh:
        fresh.dismiss(pid, reason="this repo uses pnpm")
        (cand,) = fresh.learning_candidates()
    assert cand["confidence"] == 0.0 and cand["status"] == "rejected"
    assert mem.proposal(pid).dismiss_reason == "this repo uses pnpm"
    clock.advance(minutes=1)
    mem.hooks.digest_record("quiet", [{"id": "q", "role": "user", "text": "thanks"}])
    mem.digest()
    (cand,) = mem.learning_candidates()
    assert len(cand["dismissals"]) == 1  # the digest does not record it twice


def test_a_queue_dismissal_without_a_reason_says_so(mem, clock):
    for n in range(5):
        report = _session(mem, clock, n)
    mem.dismiss(report["proposed"][0]["proposal_id"])
    (cand,) = mem.learning_candidates()
    assert cand["dismissals"][0]["reason"] == "dismissed in the queue (no reason given)"


def test_dismiss_candidate_records_the_reason(mem, clock):
    _session(mem, clock, 0)
    key = mem.learning_candidates()[0]["key"]
    rejected = mem.dismiss_candidate(key, "this repo uses pnpm")
    assert rejected.status == "rejected" and rejected.confidence == 0.0
    with pytest.raises(ValidationError, match="reason"):
        mem.dismiss_candidate(key, "  ")
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
    mem.hooks.digest_record(
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
    mem.hooks.digest_record(
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


# ---- what the person sees and steers (issue 14) --------------------------------------


def test_the_learning_report_shows_evidence_confidence_and_thresholds(mem, clock):
    _session(mem, clock, 0)
    _session(mem, clock, 1)
    report = mem.hooks.learning_report().to_dict()
    assert report["thresholds"] == {
        "min_confidence": 0.9,
        "min_evidence": 5,
        "half_life_days": 30.0,
        "gotcha_repeats": 3,
    }
    (cand,) = report["candidates"]
    assert cand["status"] == "collecting" and cand["evidence"] == 2
    assert [e["quote"] for e in cand["evidence_items"]] == ["no, use npm not yarn"] * 2
    assert {e["session"] for e in cand["evidence_items"]} == {"kernel-0", "kernel-1"}
    assert all(e["live"] for e in cand["evidence_items"])
    assert 0.3 < cand["confidence"] < 0.9


def test_promote_now_queues_a_proposal_below_the_thresholds(mem, clock):
    _session(mem, clock, 0)
    key = mem.learning_candidates()[0]["key"]
    promoted = mem.promote_candidate(key)
    assert promoted.status == "queued"
    proposal = mem.proposal(promoted.proposal_id)
    assert proposal.status == "pending" and proposal.source == "correction"
    assert proposal.evidence_quote == "no, use npm not yarn"
    assert mem.hooks.learning_candidate(key).status == "proposed"
    assert mem.promote_candidate(key).status == "already_pending"
    assert "npm" not in mem.knowledge("user")  # proposed, never applied
    with pytest.raises(NotFoundError):
        mem.promote_candidate("no such rule")


def test_a_chinese_correction_is_reported_and_rejected_with_a_reason(mem, clock):
    mem.hooks.digest_record(
        "kernel-zh",
        [
            {"id": "a", "role": "assistant", "text": "我用 yarn 安装依赖"},
            {"id": "u", "role": "user", "text": "不对，应该用 npm 安装依赖"},
        ],
    )
    mem.digest()
    (cand,) = mem.hooks.learning_report().candidates
    assert cand.rule.startswith("应该") and cand.evidence_items[0].quote.startswith("不对")
    mem.dismiss_candidate(cand.key, "这个项目用 pnpm")
    (cand,) = mem.hooks.learning_report().candidates
    assert cand.status == "rejected" and cand.dismissals[0][1] == "这个项目用 pnpm"
    assert not cand.evidence_items[0].live


# ---- a gotcha captured in the notebook (issue 14) -------------------------------------


def test_capture_gotcha_writes_an_unreviewed_auto_gotcha_memory_quoting_the_cell(mem, clock):
    cell = "x"
    got = mem.hooks.capture_gotcha("kernel-1", "NameError: name 'x' is not defined", "x", cell)
    memory = mem.get(got.memory_id)
    assert memory.meta.source.value == "auto-gotcha" and memory.meta.reviewed is False
    assert [e.quote for e in memory.meta.evidence] == ["x"]  # verbatim, however short
    assert got.candidate.evidence == 1 and got.candidate.status == "collecting"
    assert got.proposed == [] and "too short to quote" in got.quote_note
    assert mem.queue() == []  # no proposal before the confidence gate


def test_a_short_failing_line_quotes_the_whole_cell_and_passes_the_gate(mem, clock):
    cell = "totals = load_totals()\nx"
    sig = "NameError: name 'x' is not defined"
    for n in range(4):
        clock.advance(hours=1)
        got = mem.hooks.capture_gotcha(f"kernel-{n}", sig, "x", cell, cell_id=f"c{n}")
        assert got.proposed == []
        assert (
            got.quote_note
            == "the failing line 'x' is too short to quote: the whole cell is the quote"
        )
    # the same session again adds no evidence (one per session)
    assert mem.hooks.capture_gotcha("kernel-3", sig, "x", cell).candidate.evidence == 4
    clock.advance(hours=1)
    got = mem.hooks.capture_gotcha("kernel-4", sig, "x", cell)
    (proposed,) = got.proposed
    proposal = mem.proposal(proposed.proposal_id)
    assert proposal.source == "gotcha" and proposal.evidence_quote == cell
    assert proposal.status == "pending"


def test_a_gotcha_whose_cells_are_all_too_short_is_blocked_never_an_error(mem, clock):
    sig = "NameError: name 'x' is not defined"
    for n in range(5):
        clock.advance(hours=1)
        got = mem.hooks.capture_gotcha(f"kernel-{n}", sig, "x", "x")
    assert got.proposed == [] and got.candidate.status == "blocked"
    assert mem.queue() == []
    with pytest.raises(ValidationError, match="too short"):
        mem.promote_candidate(got.candidate.key)


def test_capture_gotcha_refuses_a_line_that_is_not_in_the_cell(mem):
    with pytest.raises(ValidationError, match="line"):
        mem.hooks.capture_gotcha("kernel-1", "KeyError: 'a'", "d['a']", "print(1)")
    assert mem.memories() == [] and mem.learning_candidates() == []


def test_one_auto_gotcha_memory_per_error_while_it_waits_for_review(mem, clock):
    sig = "KeyError: 'refund_amt'"
    cell = "df = load()\ndf['refund_amt'].sum()"
    first = mem.hooks.capture_gotcha("kernel-1", sig, "df['refund_amt'].sum()", cell)
    clock.advance(hours=1)
    again = mem.hooks.capture_gotcha("kernel-2", sig, "df['refund_amt'].sum()", cell + "  # 再试")
    assert again.memory_id == first.memory_id
    entry = mem.get(first.memory_id)
    assert [e.quote for e in entry.meta.evidence] == [cell, cell + "  # 再试"]
    assert "in 2 sessions" in entry.text and entry.meta.reviewed is False
    assert again.candidate.evidence == 2
    mem.hooks.keep_memory(first.memory_id)  # reviewed: left as the person kept it
    clock.advance(hours=1)
    third = mem.hooks.capture_gotcha("kernel-3", sig, "df['refund_amt'].sum()", cell)
    assert third.memory_id != first.memory_id
    assert "in 2 sessions" in mem.get(first.memory_id).text


def test_the_same_correction_in_other_words_is_one_candidate(mem, clock):
    words = ["don't use the legacy_orders table", "never use legacy_orders"]
    for n in range(5):
        clock.advance(hours=1)
        mem.hooks.digest_record(
            f"kernel-{n}",
            [
                {"id": "a", "role": "assistant", "text": "SELECT * FROM legacy_orders"},
                {"id": "u", "role": "user", "text": words[n % 2]},
            ],
        )
        report = mem.digest()
    (cand,) = mem.learning_candidates()
    assert cand["evidence"] == 5
    (proposed,) = report["proposed"]
    assert proposed["status"] == "queued"
