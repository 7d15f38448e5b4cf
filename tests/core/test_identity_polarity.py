"""Round six of the identity decision: polarity a paraphrase or a contradiction hides.

A classification ("X 算作 Y", "X is treated as Y") against its denial or an exclusion is the
opposite, not the same words; two negations in one clause cancel ("does not mean no …").
"""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.identity import Relation, relate


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("退货订单算作有效订单。", "退货订单不算有效订单。"),
        ("预售订单视为当期销售。", "预售订单不计入当期销售。"),
        (
            "Pilot accounts are treated as paying customers.",
            "Pilot accounts are not paying customers.",
        ),
        ("Resubmitted claims count as new claims.", "New claims exclude resubmitted claims."),
    ],
)
def test_a_classification_against_its_denial_is_a_contradiction(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.CONTRADICTS, relate(new, known)


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("超时工单视为未解决工单。", "超时工单记为未解决工单。"),
        ("漫游流量不视为套餐内流量。", "套餐内流量不含漫游流量。"),
        (
            "Roaming data is treated as out-of-plan usage.",
            "Roaming data counts as out-of-plan usage.",
        ),
    ],
)
def test_classifications_in_other_words_are_the_same_entry(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.SAME, relate(new, known)


@pytest.mark.parametrize(
    ("new", "known"),
    [
        (
            "A blank dose field does not mean no dose was given.",
            "A blank dose field means no dose was given.",
        ),
        ("未签字的同意书不能不审核。", "未签字的同意书不能审核。"),
        ("不合格的电表可以安装。", "不合格的电表禁止安装。"),
    ],
)
def test_two_negations_in_one_clause_cancel(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.CONTRADICTS, relate(new, known)


@pytest.mark.parametrize(
    ("new", "known"),
    [
        (
            "Report peak and off-peak usage separately; do not combine them.",
            "Peak and off-peak usage are reported separately.",
        ),
        ("高峰与低谷用电分开统计，不要合并。", "高峰和低谷用电分开统计。"),
    ],
)
def test_a_negation_repeated_in_another_clause_still_says_no(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.SAME, relate(new, known)


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("Load factor includes staff travellers.", "Load factor counts paying passengers only."),
        ("准点率包含包机航班。", "准点率只统计定期航班。"),
    ],
)
def test_a_restriction_against_an_inclusion_of_something_else_is_a_contradiction(
    new: str, known: str
) -> None:
    assert relate(new, known).kind is Relation.CONTRADICTS, relate(new, known)


def test_a_restriction_restated_is_not_a_contradiction() -> None:
    found = relate(
        "Only scheduled flights count toward the on-time rate.",
        "The on-time rate includes scheduled flights only.",
    )
    assert found.kind is not Relation.CONTRADICTS, found


def test_not_only_and_as_long_as_are_no_restriction_nor_negation() -> None:
    # "not only X but also Y" adds Y (an update), 只要 is "as long as": neither says no.
    wider = relate(
        "Revenue includes not only paid orders but also refunds.", "Revenue includes paid orders."
    )
    assert wider.kind is Relation.UPDATE, wider
    assert relate("只要订单已付款就计入收入。", "收入包含已付款订单。").same
    assert relate("收入不仅包含已付款订单。", "收入包含已付款订单。").same
