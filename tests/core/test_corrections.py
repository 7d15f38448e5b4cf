"""Corrections → candidate rules: detection, confidence, thresholds, dismissal."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_memory.core.learning.corrections import (
    Evidence,
    LearningCandidate,
    add_evidence,
    confidence,
    detect_correction,
    dismiss,
    evidence_factor,
    ready,
)

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("reply", "rule"),
    [
        ("no, use npm not yarn", "Use npm, not yarn."),
        (
            "No. Use the booking date instead of the invoice date.",
            "Use the booking date, not the invoice date.",
        ),
        ("don't drop the March partition, it is only late", "Don't drop the March partition."),
        ("不对，应该用下单日统计收入", "应该用下单日统计收入。"),
        ("用下单日，不用付款日", "用下单日，不用付款日。"),
        ("不要把运费算进退款。", "不要把运费算进退款。"),
    ],
)
def test_explicit_corrections_are_detected(reply: str, rule: str):
    found = detect_correction(reply)
    assert found is not None and found.rule == rule
    assert found.quote in reply  # the evidence quote is the person's own words


@pytest.mark.parametrize(
    "reply",
    ["thanks, looks good", "should we use npm?", "好的", "不对吗？", "I used yarn yesterday", ""],
)
def test_other_replies_are_not_corrections(reply: str):
    assert detect_correction(reply) is None


def test_confidence_matches_the_specs_example():
    assert evidence_factor(1) == pytest.approx(0.30, abs=0.005)
    assert evidence_factor(5) == pytest.approx(0.95, abs=0.005)


def _candidate(n: int, *, days_ago: float = 0) -> LearningCandidate:
    c = LearningCandidate(key="use npm, not yarn", rule="Use npm, not yarn.", source="correction")
    for i in range(n):
        add_evidence(
            c, Evidence(f"s{i}", "no, use npm not yarn", NOW - timedelta(days=days_ago, hours=i))
        )
    return c


def test_thresholds_need_both_confidence_and_five_pieces_of_evidence():
    assert not ready(_candidate(4), NOW)
    assert ready(_candidate(5), NOW)
    assert not ready(_candidate(5, days_ago=10), NOW)  # recency pulls it under 0.9
    assert ready(_candidate(3), NOW, min_confidence=0.8, min_evidence=3)


def test_dismissal_lowers_confidence_until_new_evidence_arrives():
    c = _candidate(6)
    dismiss(c, NOW, "we use pnpm in this repo")
    assert confidence(c, NOW) == 0.0 and not ready(c, NOW)
    assert c.dismissals[0][1] == "we use pnpm in this repo"
    later = NOW + timedelta(days=1)
    for i in range(5):
        add_evidence(c, Evidence(f"t{i}", "no, use npm not yarn", later + timedelta(minutes=i)))
    assert ready(c, later + timedelta(minutes=5))


def test_same_evidence_is_not_counted_twice():
    c = _candidate(1)
    assert not add_evidence(c, c.evidence[0])
    assert len(c.evidence) == 1


@given(st.integers(min_value=1, max_value=50))
def test_more_evidence_never_lowers_confidence(n: int):
    assert evidence_factor(n + 1) >= evidence_factor(n)
    assert 0.0 < evidence_factor(n) < 1.0


@given(st.text(max_size=300))
def test_detection_never_crashes_and_quotes_verbatim(text: str):
    found = detect_correction(text)
    assert found is None or found.quote in text
