"""Round eleven of the identity decision: one way of writing a value (``identity_values``).

A paraphrase writes a number, a duration or a share another way; read as another number it
was an update or another rule. What is tested is that the forms meet, and that a value that
really changed is still an update (24 hours against 1 hour), in English and Chinese.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.knowledge import identity_values as iv
from jupyter_memory.core.knowledge.identity import Relation, relate
from jupyter_memory.core.knowledge.identity_analysis import analyse
from jupyter_memory.core.knowledge.identity_values import spell_numbers, zh_numeral

SAME = [
    ("Once rent is forty-five days overdue, the unit goes into lien status.",
     "A unit is moved to lien status when rent is 45 days past due."),
    ("We charge one hundred eighty dollars for a basic individual return.",
     "The fee for a basic individual return is 180 dollars."),
    ("Route 9's tunnel can handle one hundred twenty cars an hour.",
     "The tunnel at the Route 9 site is rated for 120 cars per hour."),
    ("Missed pickups reported more than two days later aren't counted.",
     "Missed pickups reported after 48 hours are not counted."),
    ("On hammer prices up to $1,000,000, the buyer pays a premium of a quarter of the hammer.",
     "Buyer's premium is 25% of the hammer price up to 1 million dollars."),
    ("Sample wait times at the base lifts each half hour.",
     "Lift wait time is sampled at the base lifts every 30 minutes."),
    ("计算东区诊所牙椅利用率时，以每天十小时营业时间为基准。", "东区诊所的牙椅利用率按每天10小时营业时间计算。"),
    ("干洗时衣物损坏，最多赔偿洗涤费的10倍。", "干洗衣物损坏的赔偿上限为洗涤费的十倍。"),
    ("客户投诉须在两天内给出首次响应。", "客户投诉在48小时内必须首次响应。"),
    ("索道停运超过两小时需记录为运营事故。", "运营事故记录：索道停运时长超过120分钟。"),
    ("爆破延误超过半小时的，才记为生产延误。", "爆破延误时间超过30分钟才记为生产延误。"),
    ("每户收取三百元的个税汇算代办费。", "个税汇算代办费按单户收取，每户300元。"),
    ("洗牙复诊提醒要提前两周发出，以上次洁治满半年为准。", "洗牙复诊提醒在上次洁治满六个月前两周发出。"),
    # How often, said twice: 每月…一次 = 按月; 一天 before a cap = 每天.
    ("华南审核中心每月统计一次误判率，分母是质检样本数。", "华南审核中心的误判率按月统计，以质检样本为分母。"),
    ("杭州分公司技师一天的上门服务上限为6单。", "杭州分公司的技师每天最多安排6个上门服务。"),
    # 另行统计 = 单独统计: "separately", not a negation against the other text's.
    ("普通箱量不包括危险品箱，危险品箱另行统计。", "危险品箱单独统计，不计入普通箱量。"),
]  # fmt: skip

UPDATED = [
    ("Reports on the same post within 24 hours are merged into a single review ticket.",
     "Reports on the same post within one hour are merged into a single review ticket."),
    ("A patient counts as active if they had a visit in the last 24 months.",
     "A patient counts as active if they had a visit in the last 18 months."),
    ("干洗衣物损坏的赔偿上限为洗涤费的二十倍。", "干洗衣物损坏的赔偿上限为洗涤费的十倍。"),
    ("餐饮客户的鼠患投诉须在12小时内上门处理。", "餐饮客户的鼠患投诉须在24小时内上门处理。"),
    ("取车前12小时内取消的订单计为临时取消。", "取车前一天之内取消的订单计为临时取消。"),
]  # fmt: skip

APART = [
    # Another subject stays another subject when the values meet.
    ("下半年预算在12月15日之后冻结。", "上半年预算在6月15日之后冻结。"),
    ("上半年的调薪使用新的职级体系。", "下半年的调薪使用新的职级体系。"),
    ("A rental week is any 7-day period or part of one.",
     "A rental day is any 24-hour period or part of one."),
    ("临期商品在保质期到期前7天开始打折。", "临期商品在保质期到期前7天下架。"),
]  # fmt: skip


@pytest.mark.parametrize(("new", "known"), SAME)
def test_a_value_written_another_way_is_the_same_rule(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.SAME
    assert relate(known, new).kind is Relation.SAME


@pytest.mark.parametrize(("new", "known"), UPDATED)
def test_a_value_that_changed_is_still_an_update(new: str, known: str) -> None:
    assert relate(new, known).kind is Relation.UPDATE


@pytest.mark.parametrize(("new", "known"), APART)
def test_other_subjects_stay_apart(new: str, known: str) -> None:
    assert relate(new, known).kind not in (Relation.SAME, Relation.UPDATE)


def test_the_forms_of_one_value() -> None:
    def numbers(text: str) -> frozenset[str]:
        return analyse(text).slot("number")

    assert numbers("forty-five days") == numbers("45 days")
    assert numbers("one hundred and twenty cars") == numbers("120 cars") == {"120"}
    assert numbers("two thousand five hundred dollars") == {"2500"}
    assert numbers("within 48 hours") == numbers("within two days")
    assert numbers("within 2 hours") == numbers("within 120 minutes")
    assert numbers("1.5 hours") == numbers("90 minutes")
    assert numbers("12 months") == numbers("1 year")
    assert numbers("3/4小时") == numbers("45分钟")
    assert numbers("一个半小时") == numbers("90分钟")
    assert numbers("两天") == numbers("48小时")
    assert numbers("三成") == numbers("30%")
    assert numbers("四分之一") == numbers("25%") == numbers("a quarter of")
    assert numbers("一半") == numbers("50%")
    assert numbers("百分之三十") == numbers("30%")
    assert analyse("周一到周五").key == analyse("工作日").key
    assert analyse("sent at 8am (UTC+8)").slot("zone") == analyse("sent at 8am Beijing time").slot(
        "zone"
    )
    assert numbers("每一刻钟公布一次") == numbers("每15分钟公布一次")


def test_words_that_are_no_number_are_left_alone() -> None:
    # A single "one" is the analyser's (often no number: "the one used"); 十分 is "very"; 一
    # inside a word or as "each" is no count; 上半年 is a period, 12月 a month, 2024年 a year.
    for text in ("the one used", "十分重要", "统一单价", "每一笔订单", "上半年", "下半年度"):
        assert spell_numbers(text) == text
    assert analyse("12月15日之后").slot("number") == frozenset()
    assert "2024" in analyse("2024年的预算").slot("period")
    assert zh_numeral("三五") is None  # a range, not one number


def _zh(n: int) -> str:
    """The usual Chinese spelling of 1 … 9999 (两千零五, 一百二十, 十二)."""
    digits = "零一二三四五六七八九"
    if n < 10:
        return digits[n]
    if n < 20:
        return "十" + (digits[n - 10] if n > 10 else "")
    out, zero = "", False
    for scale, name in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        d = n // scale % 10
        if d:
            out += ("零" if zero and out else "") + digits[d] + name
            zero = False
        elif out:
            zero = True
    return out


_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = [
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _en(n: int) -> str:
    """English words for 1 … 999 ("one hundred and forty-two")."""
    words = []
    if n >= 100:
        words.append(f"{_ONES[n // 100]} hundred")
        n %= 100
        if n:
            words.append("and")
    if n >= 20:
        words.append(_TENS[n // 10] + (f"-{_ONES[n % 10]}" if n % 10 else ""))
    elif n >= 10:
        words.append(_TEENS[n - 10])
    elif n:
        words.append(_ONES[n])
    return " ".join(words)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=9999))
def test_a_chinese_numeral_is_its_number(n: int) -> None:
    assert zh_numeral(_zh(n)) == n
    if n == 1:
        return  # a lone 一 is left alone before a count (每一笔, 一户 = 每户)
    assert spell_numbers(f"每单{_zh(n)}元") == f"每单{n}元"


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=21, max_value=999).filter(lambda n: n % 10 or n > 99))
def test_english_number_words_are_their_number(n: int) -> None:
    # (A single word, "eleven", is the analyser's, which reads it already.)
    assert spell_numbers(f"at most {_en(n)} items") == f"at most {n} items"


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=200), st.sampled_from(["en", "zh"]))
def test_a_duration_in_hours_is_the_same_in_minutes_and_another_in_other_hours(
    hours: int, lang: str
) -> None:
    if lang == "en":
        rule = "Tickets must be answered within {} of being opened."
        a, b, c = (rule.format(f"{hours} hours"), rule.format(f"{hours * 60} minutes"),
                   rule.format(f"{hours + 1} hours"))  # fmt: skip
    else:
        rule = "工单须在创建后{}内响应。"
        a, b, c = (rule.format(f"{hours}小时"), rule.format(f"{hours * 60}分钟"),
                   rule.format(f"{hours + 1}小时"))  # fmt: skip
    assert relate(a, b).kind is Relation.SAME
    assert relate(a, c).kind is Relation.UPDATE


def test_every_pattern_starts_where_a_word_or_number_starts() -> None:
    """Linear time (tests/core/test_identity_linear_time.py): no pattern may start a match
    inside a run of letters, digits or numerals, where it would scan the run again."""
    patterns = [iv._NUMBER_RUN_EN, iv._SCALED_DIGITS, iv._ZH_RUN] + [p for p, _ in iv._CANONICAL]
    for pattern in patterns:
        source = pattern.pattern
        # A lookbehind, or a literal character that is no letter or digit.
        assert source.startswith(("(?<", "一半", "(?:周一", "(每")), source


def test_a_long_run_is_read_like_a_short_one() -> None:
    for run in ("a" * 3000, "1" * 3000, "三" * 3000, "one " * 800, "1/" * 1500, "百分之" * 900):
        short = analyse(f"orders keep {run[:30]} rows within 2 hours")
        long = analyse(f"orders keep {run} rows within 2 hours")
        assert "7200" in long.slot("number") and "7200" in short.slot("number")
        assert long.tokens >= {"order", "row"} and short.tokens >= {"order", "row"}


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("The tunnel at the Harbor Road site is rated for 120 cars per hour.",
         "The tunnel at the Route 9 site is rated for 120 cars per hour."),
        ("Refunds at Elm Street are approved by the store manager.",
         "Refunds at Store 12 are approved by the store manager."),
    ],
)  # fmt: skip
def test_a_name_against_a_named_unit_is_another_subject(new: str, known: str) -> None:
    # A capitalised name on one side, a naming noun with its number on the other, none shared.
    found = relate(new, known, lambda a, b: 0.99)
    assert found.kind is Relation.RELATED and found.slot == "entity"
