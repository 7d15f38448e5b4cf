"""Round six of the identity decision: a number, numeral or letter after a naming noun names
another subject ("Tier 1" / "Tier 2", "Phase II" / "Phase III", "Plan A" / "Plan B", 一级 /
二级, 5G / 4G) and is never an update of it; a count ("40 subjects") or a bound ("grade 3 or
above", 3级以上) stays a value. Examples written for these tests, not from the benchmark."""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.identity import Relation, relate


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("Tier 1 customers get a 10% discount.", "Tier 2 customers get a 10% discount."),
        (
            "Phase II trials report adverse events weekly.",
            "Phase III trials report adverse events weekly.",
        ),
        (
            "Grade 3 students sit the reading test in May.",
            "Grade 4 students sit the reading test in May.",
        ),
        (
            "Terminal 2 departures are counted at the gate.",
            "Terminal 5 departures are counted at the gate.",
        ),
        ("Plan A subscribers are billed on the 1st.", "Plan B subscribers are billed on the 1st."),
        ("Arm A patients are dosed twice daily.", "Arm B patients are dosed twice daily."),
        ("The 5G network KPIs exclude test cells.", "The 4G network KPIs exclude test cells."),
        ("一级客户享受九折。", "二级客户享受九折。"),
        ("二期临床试验每周上报不良事件。", "三期临床试验每周上报不良事件。"),
        ("三年级学生在五月参加阅读测试。", "四年级学生在五月参加阅读测试。"),
        ("2号航站楼的出港航班在登机口统计。", "3号航站楼的出港航班在登机口统计。"),
        ("A套餐用户每月1日扣费。", "B套餐用户每月1日扣费。"),
        ("第一档电价适用于每月200度以内。", "第二档电价适用于每月200度以内。"),
    ],
)
def test_a_named_unit_is_another_subject(new: str, known: str) -> None:
    for a, b in ((new, known), (known, new)):
        found = relate(a, b)
        assert found.kept_apart and found.slot == "unit", found


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("The Tier 1 discount is 12%.", "The Tier 1 discount is 10%."),
        ("Faults of grade 3 or above are escalated.", "Faults of grade 4 or above are escalated."),
        ("Phase 2 sites enrol at most 50 subjects.", "Phase 2 sites enrol at most 40 subjects."),
        ("大额订单可分6期付款。", "大额订单可分3期付款。"),
        ("3级以上故障须在1小时内上报。", "4级以上故障须在1小时内上报。"),
        # A measure after the number, or a verb before it, makes it a value too.
        ("The service level target is 95%.", "The service level target is 90%."),
        ("Track 5 KPIs on the board.", "Track 3 KPIs on the board."),
        (
            "Doses above 2g are reviewed by the safety board.",
            "Doses above 3g are reviewed by the safety board.",
        ),
    ],
)
def test_a_count_or_a_bound_is_still_a_value(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.UPDATE, relate(new, known)


def test_a_named_unit_written_another_way_is_the_same_entry() -> None:
    assert relate(
        "Plan A subscribers are billed on the 1st.", "Subscribers on Plan A are billed on the 1st."
    ).same


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("Flight BA117 departs from terminal 5.", "Flight BA119 departs from terminal 5."),
        ("CS101 final exams are worth 40%.", "CS102 final exams are worth 40%."),
    ],
)
def test_a_code_of_letters_and_digits_is_a_name_not_a_number(new: str, known: str) -> None:
    # "BA117" is not "ba1" and the number 17: another flight is another subject, no update.
    assert relate(new, known).kept_apart, relate(new, known)
