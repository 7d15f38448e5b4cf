"""Round seven of the identity decision: what generalises to domains no pair set had.

The examples are written for these tests (school grades, ESG, app retention, stock tables),
not taken from the benchmark's pairs.
"""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.identity import Relation, relate


@pytest.mark.parametrize(
    ("new", "known"),
    [
        # 平时成绩 is read as 平 (时 ends a word): a lone character, still another modifier.
        ("季度成绩中平时成绩占三成。", "季度成绩中考试成绩占三成。"),
        ("工厂的用水数据按月披露。", "工厂的能耗数据按月披露。"),
        ("流失用户的召回率按周统计。", "新用户的召回率按周统计。"),
    ],
)
def test_a_lone_character_before_a_shared_word_is_another_subject(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.RELATED
    assert relate(known, new).kind is Relation.RELATED


@pytest.mark.parametrize(
    ("new", "known"),
    [
        # 保留 writes 留: not a character the other text lacks.
        ("图表中百分比只留两位小数。", "图表里的百分比保留两位小数。"),
        # 时间 is read as 间, but 刷新 moved: a rewording, not one word for another.
        ("订单表的刷新时间是每天早上6点", "订单表每天早上6点刷新。"),
    ],
)
def test_a_lone_character_of_a_rewording_is_no_swap(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.SAME


def test_changed_to_marks_an_update_not_a_word() -> None:
    assert relate("库存表改为每天早上7点刷新。", "库存表每天早上6点刷新。").kind is Relation.UPDATE


@pytest.mark.parametrize(
    ("new", "known"),
    [
        (
            "MTTR leaves out planned maintenance windows.",
            "Mean time to repair excludes planned maintenance windows.",
        ),
        ("Average handle time (AHT) excludes hold time.", "AHT does not include hold time."),
        ("NRR 口径：不含新签客户的收入。", "净收入留存（NRR）不包括新签客户的收入。"),
    ],
)
def test_an_acronym_and_the_words_it_abbreviates_are_one_name(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.SAME
    assert relate(known, new).kind is Relation.SAME


@pytest.mark.parametrize(
    ("new", "known"),
    [
        # "UK store" spells "US" only as letters: an acronym is spelled by words.
        (
            "The battle pass price in the UK store is 8.99.",
            "The battle pass price in the US store is 8.99.",
        ),
        # Beside its acronym, words with its initials say something else.
        (
            "ROAS equals attributed revenue over ad spend.",
            "ROAS equals attributed revenue over total spend.",
        ),
        ("CAC excludes brand campaigns.", "Customer acquisition cost excludes partner fees."),
    ],
)
def test_an_acronym_never_merges_other_subjects(new: str, known: str) -> None:
    assert relate(new, known).kept_apart


def test_two_lone_characters_before_one_word_are_two_subjects() -> None:
    new, known = "谷时电价时段为每天 22:00 至次日 8:00。", "峰时电价时段为每天 8:00 至 22:00。"
    assert relate(new, known, lambda a, b: 0.97).kept_apart


def test_every_day_is_one_word() -> None:
    assert relate("门店的库存每日 9:00 更新。", "门店库存每天上午九点刷新。").kind is Relation.SAME
    assert relate("会员积分每日凌晨结算。", "会员积分每天凌晨结算。").kind is Relation.SAME


def test_two_forms_of_one_word_are_one_word() -> None:
    new = "Claims are closed once the adjuster withdrew the reserve."
    known = "Claims are closed once the adjuster withdraws the reserve."
    assert relate(new, known).kind is Relation.SAME
    new = "Service time for a parcel ends at the first attempt to deliver it."
    assert relate(new, "Service time for a parcel ends at the first delivery attempt.").same


@pytest.mark.parametrize(
    ("new", "known"),
    [
        (
            "Employer contributions are excluded from net pay.",
            "Employee contributions are excluded from net pay.",
        ),
        ("Contractor costs are excluded from opex.", "Contract costs are excluded from opex."),
        ("Premium plans are billed yearly.", "Premier plans are billed yearly."),
    ],
)
def test_a_person_or_an_agent_is_not_another_form(new: str, known: str) -> None:
    assert relate(new, known).kept_apart


def test_a_chinese_table_word_before_an_identifier_describes_it() -> None:
    assert relate("销售表 sales_daily 每天早上7点刷新。", "sales_daily 每天上午7点刷新。").same
    assert relate("销售表每天早上7点刷新。", "库存表每天早上7点刷新。").kept_apart


def test_a_lone_character_before_one_slot_noun_is_another_subject() -> None:
    # 结算报表 is read as 结 (算 ends a word) and 报表 as the report slot: the end of the frame,
    # where the texts still go on alike.
    assert relate("内部员工的订单不计入结算报表。", "内部员工的订单不计入财务报表。").kept_apart
    # Where they do not, a lone character at the end is one function word for another.
    assert relate("周报按周一至周日统计。", "周报的统计周期是周一到周日。").same
