"""Round eight of the identity decision: a swap the embedder vouches for, and "&" acronyms.

The cosine is given as a constant (as in test_identity_thresholds.py): what is tested is how
the decision weighs it against the frame the two texts share, not the embedder.
"""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.identity import Relation, relate


def _cosine(value: float):  # type: ignore[no-untyped-def]
    return lambda a, b: value


@pytest.mark.parametrize(
    ("new", "known", "cosine"),
    [
        # triggers / incurs: one verb for another, and the words moved at three more places.
        (
            "Grain moisture above 14% triggers a drying charge at intake.",
            "At intake, grain with more than 14% moisture incurs a drying charge.",
            0.987,
        ),
        (
            "Late fees charged after the due date go under other income; "
            "they are not reported as interest.",
            "Late fees after the due date are reported in the other income line, not as interest.",
            0.97,
        ),
    ],
)
def test_a_swap_among_other_rewordings_is_vouched_for_by_the_cosine(
    new: str, known: str, cosine: float
) -> None:
    assert relate(new, known).kind is Relation.RELATED  # without the extra: the swap vetoes
    assert relate(new, known, _cosine(cosine)).kind is Relation.SAME
    assert relate(known, new, _cosine(cosine)).kind is Relation.SAME


@pytest.mark.parametrize(
    ("new", "known"),
    [
        # One word for another in one shared frame: another object however close the cosine.
        ("Revenue excludes taxes.", "Revenue excludes refunds."),
        # A swap before the first shared word: another subject.
        (
            "Desktop sessions shorter than 5 seconds are treated as bounces.",
            "Mobile sessions shorter than 5 seconds are treated as bounces.",
        ),
    ],
)
def test_one_swap_in_one_frame_stays_another_rule_at_any_cosine(new: str, known: str) -> None:
    assert relate(new, known, _cosine(0.995)).kind is Relation.RELATED
    assert relate(known, new, _cosine(0.995)).kind is Relation.RELATED


def test_a_swap_with_a_middling_cosine_is_not_vouched_for() -> None:
    new = "Harvested grain above 14% moisture triggers a drying charge at intake."
    known = "At intake, grain with more than 14% moisture incurs a cleaning charge."
    assert relate(new, known, _cosine(0.95)).kind is Relation.RELATED


@pytest.mark.parametrize(
    ("new", "known"),
    [
        (
            "F&I income is part of gross profit per vehicle.",
            "Gross profit per vehicle includes finance and insurance income.",
        ),
        ("P&L reviews happen monthly.", "Profit and loss reviews happen monthly."),
    ],
)
def test_letters_joined_by_an_ampersand_abbreviate_words_joined_by_and(
    new: str, known: str
) -> None:
    assert relate(new, known).kind is Relation.SAME
    assert relate(known, new).kind is Relation.SAME


@pytest.mark.parametrize(
    ("new", "known"),
    [
        (
            "Expected goals include penalties but exclude own goals.",
            "Expected goals exclude penalties and own goals.",
        ),
        (
            "Handle time includes talk and hold but excludes after-call work.",
            "Handle time includes talk, hold and after-call work.",
        ),
        (
            "饲料成本按到场价统计，含运费，政府补贴也计入。",
            "饲料成本按到场价统计，含运费，不含政府补贴。",
        ),
    ],
)
def test_a_word_one_text_keeps_in_and_the_other_keeps_out_is_a_contradiction(
    new: str, known: str
) -> None:
    # The embedder puts these at 0.98–0.99: the same frame, one item on the other side.
    assert relate(new, known).kind is Relation.CONTRADICTS
    assert relate(known, new, _cosine(0.99)).kind is Relation.CONTRADICTS


@pytest.mark.parametrize(
    ("new", "known"),
    [
        # The item before "are excluded from" / "not part of" is what is kept out.
        (
            "Demo cars are excluded from retail sales even when sold to a customer.",
            "Retail sales leave out demo cars, including demos sold to a customer.",
        ),
        (
            "Off-site doses are not part of vaccination counts, which do include walk-ins.",
            "Vaccination counts include walk-ins but exclude off-site doses.",
        ),
        (
            "Support response time counts business days only.",
            "Exclude weekends from support response time.",
        ),
    ],
)
def test_what_a_passive_exclusion_keeps_out_is_read_before_it(new: str, known: str) -> None:
    assert relate(new, known).kind is not Relation.CONTRADICTS
    assert relate(known, new).kind is not Relation.CONTRADICTS


@pytest.mark.parametrize(
    ("new", "known"),
    [
        (
            "Card fees are netted against payouts after tax.",
            "Card fees are netted against payouts before tax.",
        ),
        (
            "Refunds are matched after the settlement run.",
            "Refunds are matched before the settlement run.",
        ),
        ("平台收入按扣除补贴后的金额入账。", "平台收入按扣除补贴前的金额入账。"),
    ],
)
def test_before_against_after_the_same_word_is_a_contradiction(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.CONTRADICTS
    assert relate(known, new, _cosine(0.99)).kind is Relation.CONTRADICTS


def test_before_and_after_of_other_words_is_a_rewording() -> None:
    new = "Fees are applied after payouts have been netted."
    known = "Payouts are netted before fees are applied."
    assert relate(new, known, _cosine(0.97)).kind is not Relation.CONTRADICTS


@pytest.mark.parametrize(
    ("new", "known"),
    [
        (
            "Any refund over $20k needs the controller's approval.",
            "Refunds above $20,000 need the controller's approval.",
        ),
        # "≥1" is the existence quantifier "at least one", no number.
        (
            "Active sessions are sessions with ≥1 event.",
            "Active sessions are sessions with at least one event.",
        ),
    ],
)
def test_numbers_written_another_way_are_one_value(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.SAME
    assert relate(known, new).kind is Relation.SAME
