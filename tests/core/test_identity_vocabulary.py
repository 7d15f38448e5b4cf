"""Round six of the identity decision: general vocabulary and fixed phrases across domains.

Spellings (British / American), fixed phrases whose "no" is no negation ("no later than",
"no-show"), "except" / 除…外 as exclusions, and general words for one thing (passengers /
travellers, consumption / usage, 病人 / 患者). The examples are written for these tests
(energy, airlines, telecom, education, healthcare), not taken from the benchmark's pairs.
"""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.identity import Relation, relate


@pytest.mark.parametrize(
    ("new", "known"),
    [
        (
            "Normalised feeder load is reported hourly.",
            "Normalized feeder load is reported hourly.",
        ),
        (
            "Meter readings must be submitted no later than the 5th.",
            "Submit meter readings by the 5th.",
        ),
        ("Energy consumption is reported in kilowatt-hours.", "Energy usage is reported in kWh."),
        (
            "No-show passengers are left out of the load factor.",
            "The load factor excludes no-show travellers.",
        ),
        (
            "Course completion counts learners who finished every module.",
            "Course completion counts students who finished every module.",
        ),
        (
            "Prior to the cutover, freeze all tariff changes.",
            "Freeze all tariff changes before the cutover.",
        ),
        (
            "A ticket without any reply is not a resolved ticket.",
            "Tickets that never got a reply are not resolved.",
        ),
        (
            "Roaming minutes year over year are compared in the monthly pack.",
            "Roaming minutes YoY are compared in the monthly pack.",
        ),
        ("All calls except test calls count toward traffic.", "Traffic excludes test calls."),
        ("旅客投诉按航班统计。", "乘客投诉按航班统计。"),
        ("病人满意度取自出院问卷。", "患者满意度来自出院问卷。"),
        ("除测试号码外，所有通话都计入话务量。", "话务量剔除测试号码。"),
    ],
)
def test_general_vocabulary_is_one_word(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.SAME, relate(new, known)


@pytest.mark.parametrize(
    ("new", "known"),
    [
        (
            "Peak consumption is billed at the peak tariff.",
            "Off-peak consumption is billed at the off-peak tariff.",
        ),
        ("Doctor visits are capped at 10 per year.", "Nurse visits are capped at 10 per year."),
        (
            "Domestic passengers are counted per segment.",
            "International passengers are counted per segment.",
        ),
        ("旅客延误赔偿按航段计算。", "货物延误赔偿按航段计算。"),
    ],
)
def test_the_vocabulary_never_merges_other_subjects(new: str, known: str) -> None:
    assert relate(new, known).kept_apart, relate(new, known)


def test_a_fixed_phrase_with_no_is_not_a_negation() -> None:
    # "no later than" is a deadline and "no-show" a name: neither says no to the rule.
    assert relate(
        "Refund no-show fares no later than day 30.", "Refund no-show fares by day 30."
    ).same
    assert (
        relate("No-show fares are refunded.", "No-show fares are not refunded.").kind
        is Relation.CONTRADICTS
    )


@pytest.mark.parametrize(
    ("new", "known"),
    [
        # A rule's own verb ends its subject: "Voice ARPU" is not "Data ARPU".
        ("Voice ARPU excludes roaming revenue.", "Data ARPU excludes roaming revenue."),
        (
            "Gate hold time excludes weather delays at the gate.",
            "Taxi hold time excludes weather delays at the gate.",
        ),
        # A word holding a function character (国内, 后付费) is not split into pieces.
        ("国内航班延误超过15分钟算作不准点。", "国际航班延误超过15分钟算作不准点。"),
        ("预付费用户的流失率剔除换卡用户。", "后付费用户的流失率剔除换卡用户。"),
        ("Pre-paid churn excludes SIM swaps.", "Post-paid churn excludes SIM swaps."),
    ],
)
def test_other_subjects_named_by_a_modifier_stay_apart(new: str, known: str) -> None:
    assert relate(new, known).kept_apart, relate(new, known)
    assert relate(known, new).kept_apart, relate(known, new)


def test_first_in_an_order_of_steps_is_no_number() -> None:
    steps = relate(
        "Validate meter reads first, then bill the account.",
        "The account is billed after meter reads are validated.",
    )
    assert steps.same, steps
    # An ordinal before a noun is still one: the first reading is not the second one.
    assert not relate(
        "Bill on the first reading of the month.", "Bill on the second reading of the month."
    ).same


def test_us_dollars_is_a_currency_not_a_place() -> None:
    found = relate(
        "Report roaming revenue in US dollars at the daily rate.",
        "Roaming revenue is reported in USD at the daily rate.",
    )
    assert found.same, found


@pytest.mark.parametrize(
    ("new", "known"),
    [
        (
            "Customers are informed of tariff changes 30 days ahead.",
            "Customers are notified of tariff changes 30 days ahead.",
        ),
        ("Gate readers upload scans every minute.", "Gate readers send scans every minute."),
        (
            "Claims received after the deadline are flagged.",
            "Claims obtained after the deadline get marked.",
        ),
        ("方案偏离在5天内登记。", "方案偏离在5天内记录。"),
        ("延误旅客在柜台得到补偿。", "延误乘客在柜台获得赔偿。"),
        ("出勤率低于80%的学生标为预警。", "出勤率低于80%的学生列为预警。"),
    ],
)
def test_general_verbs_are_one_word(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.SAME, relate(new, known)


def test_incurred_losses_are_not_paid_losses() -> None:
    assert relate(
        "Paid losses exclude legal expenses.", "Incurred losses exclude legal expenses."
    ).kept_apart


def test_an_exception_in_chinese_leaves_other_words_with_chu_alone() -> None:
    # 除…外 is an exclusion; 剔除海外… and 除以海外… hold 除 and 外 but are no exception.
    assert relate("收入剔除海外退款。", "收入剔除退款。").kept_apart
    assert relate("客单价等于GMV除以海外订单数。", "客单价等于GMV剔除订单数。").kept_apart


def test_logged_is_recorded_and_logged_in_is_a_login() -> None:
    assert relate(
        "Protocol deviations are logged in the site file.",
        "Protocol deviations are recorded in the site file.",
    ).same
    assert relate(
        "Students who logged in this week are active.",
        "Students with a login this week are active.",
    ).same
