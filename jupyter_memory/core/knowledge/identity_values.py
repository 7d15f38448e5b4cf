"""One way of writing a value, whatever wording a paraphrase gives it (round eleven).

The identity decision compares numbers as values (``identity_analysis``): a number that differs
is another value, an update of the rule. A paraphrase often writes the same value another way —
"forty-five days" / "45 days", "one hundred eighty dollars" / "$180", 十小时 / 10小时, 三十分钟
/ 半小时 / 30 minutes, 两天 / 48小时, 120分钟 / 2小时, 半年 / 六个月, "a quarter more" / "25%
more", 一半 / 50%, 3/4小时 / 45分钟, 周一到周五 / 工作日, 300块 / 300元, "1 million dollars" /
"$1,000,000" — and then read as another number or another rule. These are how numbers, durations
and shares are written in either language, not vocabulary of a domain: each is turned into one
canonical form before the analyser reads its slots.

Two passes, on the normalised text (lower case, ASCII punctuation):

* :func:`spell_numbers`, before the analyser's rewrites: compound English number words ("forty
  five", "one hundred and twenty", "two hundred"), a digit before "million" / "thousand", and
  Chinese numerals with 百 / 千 or before a measure word (小时, 分钟, 倍, 元 …) become digits. A
  single English word ("one", "ten") is left to the analyser, which reads it already.
* :func:`canonical_values`, after them (every number a digit by then): a duration's number is
  its value — English durations of seconds to days as seconds ("48 hours" = "two days" = 172800
  seconds), Chinese ones below a day as seconds and whole days as days (48小时 = 两天 = 2天,
  120分钟 = 2小时 = 7200), years as months (1 year = 12 months, 一年 = 12个月) — so that 24 hours
  against 1 hour is still another number, an update; half an hour = 30 minutes, 半年 = 6个月,
  3/4小时 = 45分钟; "an hour" / "a day" is one after a duration's word ("within a day") and "per"
  after a count ("120 cars an hour"); shares (a quarter of = 25%, half of = 50%, 一半 = 50%,
  四分之一 = 25%, 三成 = 30%); Monday to Friday = business days (周一到周五 = 工作日); 块 = 元 and
  "N dollars" = "$N".

Every pattern starts where a word, a number or a numeral run starts (a lookbehind or a literal
character), so none is quadratic on a long run of letters, digits or numerals (the rule of
``tests/core/test_identity_linear_time.py``; ``tests/core/test_identity_round_eleven.py`` pins it
for these patterns). docs/knowledge.md, "Round eleven", has the figures.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction

from ..regex_gate import RuleGate

_UNITS_EN = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_TENS = frozenset({20, 30, 40, 50, 60, 70, 80, 90})
_SCALES_EN = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORD = "|".join(sorted((*_UNITS_EN, *_SCALES_EN), key=len, reverse=True))
# A run of number words: two or more joined by a space, a hyphen or "and" after a scale word
# ("one hundred and twenty"), or "a" before a scale ("a hundred"). Starts where a word starts.
_NUMBER_RUN_EN = re.compile(
    rf"(?<![a-z0-9-])(?:a (?=(?:hundred|thousand|million)\b))?(?:{_NUMBER_WORD})"
    rf"(?:(?:[- ]|(?<=d) and )(?:{_NUMBER_WORD}))*(?![a-z0-9])"
)
_SCALED_DIGITS = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?) ?(hundred|thousand|million|billion)\b")
_WORDS = re.compile(r"[a-z]+")


def _english_run(m: re.Match[str]) -> str:
    words = [w for w in _WORDS.findall(m.group(0)) if w not in ("a", "and")]
    if len(words) < 2 and not m.group(0).startswith("a "):
        return m.group(0)  # a single word: the analyser reads it (and "one" is often no number)
    total = current = 0
    last = ""
    out: list[int] = []
    for w in words:
        if w in _UNITS_EN:
            v = _UNITS_EN[w]
            # "twenty five" is one number; "five six", "twenty thirty", "ten five" are two.
            if last in _UNITS_EN and not (_UNITS_EN[last] in _TENS and v < 10):
                out.append(total + current)
                total = current = 0
            current += v
        else:
            scale = _SCALES_EN[w]
            current = (current or 1) * scale if scale == 100 else current or 1
            if scale > 100:
                total += current * scale
                current = 0
        last = w
    out.append(total + current)
    return " ".join(str(v) for v in out)


def _scaled(m: re.Match[str]) -> str:
    value = Fraction(m.group(1)) * _SCALES_EN[m.group(2)]
    return str(int(value)) if value.denominator == 1 else m.group(0)


_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}  # fmt: skip
_ZH_SCALES = {"十": 10, "百": 100, "千": 1000}
# Measure words after which a Chinese numeral is a count (the analyser already reads one before
# 个季月日号位天周次年点): durations, factors, money, items. Not 分 alone (十分 is "very").
_ZH_MEASURE = (
    "小时|钟头|分钟|秒钟|秒|倍|元|块|单|户|人|台|家|件|张|项|笔|条|份|辆|间|层|岁|公里|千米|米"
    "|公斤|千克|克|升|箱|包|本|道|场|轮|趟|遍|成|折|名"
)
_ZH_NUMERAL = "零〇一二两三四五六七八九十百千"
# A numeral run before a measure word (or 个, 多, 余, or one the analyser reads already:
# 季月日号位天周次年点), or after 百分之. Starts only where a run of numerals starts, so it is
# linear in the run's length. A lone 一 is left alone except before a duration (一小时): it is
# as often "each" or part of a word (每一笔, 统一单价, 同一台).
_ZH_RUN = re.compile(
    rf"(?<![{_ZH_NUMERAL}])(?:(?<=百分之)([{_ZH_NUMERAL}]+)"
    rf"|([{_ZH_NUMERAL}]+)(?=个?(?:{_ZH_MEASURE})|个|多|余|[季月日号位天周次年点]))"
)
_NOT_BEFORE_ONE = frozenset("统唯同每任逐单专归合之万")


def zh_numeral(word: str) -> int | None:
    """The value of a Chinese numeral (十二 = 12, 一百二十 = 120, 两千零五 = 2005, 两百五 =
    250), or None when it is no one number (三五: a range)."""
    current = 0
    pending: int | None = None
    last_scale = 0
    for ch in word:
        if ch in _ZH_DIGITS:
            if pending is not None and not (pending == 0 and ch != "零"):
                return None  # two digits in a row ("三五天"): a range, not one number
            pending = _ZH_DIGITS[ch]
        else:
            scale = _ZH_SCALES[ch]
            if last_scale and scale >= last_scale:
                return None  # 十百, 百百: no numeral
            current += (pending or 1) * scale
            pending, last_scale = None, scale
    if pending:
        # 两百五 = 250, 一千二 = 1200: a digit right after a scale counts in the unit below it.
        current += pending * (
            last_scale // 10 if last_scale >= 100 and word[-2] in _ZH_SCALES else 1
        )
    return current


def _zh_run(m: re.Match[str]) -> str:
    word = m.group(1) or m.group(2)
    after = m.string[m.end() : m.end() + 3]
    if word == "一" and (
        not after.startswith(("小时", "个小时", "钟头", "个钟头", "分钟", "秒"))
        or m.string[m.start() - 1 : m.start()] in _NOT_BEFORE_ONE
    ):
        return word
    if (
        len(word) == 1
        and m.string[max(0, m.start() - 2) : m.start()].endswith(_WEEK)
        and (after.startswith(("周", "日", "星期", "礼拜")))
    ):
        return word  # round twelve: 周六周日, 周六日 name days (the weekend), no count of them
    value = zh_numeral(word)
    return word if value is None else str(value)


_WEEK = ("周", "星期", "礼拜")


def spell_numbers(norm: str) -> str:
    """Numbers written in words as digits (before the analyser's rewrites; see the module)."""
    if _HAS_LETTERS.search(norm):
        norm = _NUMBER_RUN_EN.sub(_english_run, norm)
        norm = _SCALED_DIGITS.sub(_scaled, norm)
    if _HAS_ZH_NUMERAL.search(norm):
        norm = _ZH_RUN.sub(_zh_run, norm)
    return norm


_HAS_LETTERS = re.compile(r"hundred|thousand|million|billion|ty|teen|one|two|three|five|ten")
_HAS_ZH_NUMERAL = re.compile(f"[{_ZH_NUMERAL}]")

_NUM = r"(?<![\d.])(\d+(?:\.\d+)?)"
# A duration's number is its value: English durations as seconds (a count of days too: "7-day" /
# "24-hour" stay apart as 604800 / 86400), Chinese ones below a day as seconds and whole days as
# days (a text that says 7天 keeps its words; 48小时 = 2天), years as months. (Weeks are days to
# the analyser already.)
_EN_IN = {
    "second": 1,
    "sec": 1,
    "minute": 60,
    "min": 60,
    "hour": 3600,
    "hr": 3600,
    "h": 3600,
    "day": 86400,
}
_ZH_IN = {"秒钟": 1, "秒": 1, "分钟": 60, "小时": 3600, "钟头": 3600}
_DAY = 86400


def _seconds(amount: Fraction, unit: int) -> tuple[int, bool] | None:
    seconds = amount * unit
    if seconds.denominator != 1:
        return None
    return (int(seconds) // _DAY, True) if seconds % _DAY == 0 else (int(seconds), False)


def _en_duration(m: re.Match[str]) -> str:
    seconds = Fraction(m.group(1)) * _EN_IN[m.group(3)]
    if seconds.denominator != 1:
        return m.group(0)
    return f" {m.group(2) or ''} {int(seconds)} seconds "


def _zh_duration(m: re.Match[str]) -> str:
    got = _seconds(Fraction(m.group(1)), _ZH_IN[m.group(2)])
    if got is None:
        return m.group(0)
    return f"{got[0]}天" if got[1] else f" {got[0]} "


def _en_months(m: re.Match[str]) -> str:
    months = int(m.group(1)) * 12
    return f"{months} months"


def _zh_months(m: re.Match[str]) -> str:
    return f"{int(m.group(1)) * 12}个月"


def _fraction(m: re.Match[str]) -> str:
    value = Fraction(int(m.group(1)), int(m.group(2)))
    return str(float(value))


def _share(value: Fraction) -> str | None:
    percent = value * 100
    return f"{int(percent)}%" if percent.denominator == 1 else None


def _zh_share(m: re.Match[str]) -> str:
    whole, part = int(m.group(1)), int(m.group(2))
    got = _share(Fraction(part, whole)) if whole and part <= whole else None
    return got if got is not None else m.group(0)


def _zh_numeral_share(m: re.Match[str]) -> str:
    whole, part = zh_numeral(m.group(1)), zh_numeral(m.group(2))
    got = _share(Fraction(part, whole)) if whole and part is not None and part <= whole else None
    return got if got is not None else m.group(0)


_SHARES_EN = {"half": Fraction(1, 2), "third": Fraction(1, 3), "quarter": Fraction(1, 4),
              "fifth": Fraction(1, 5), "tenth": Fraction(1, 10)}  # fmt: skip


def _en_share(m: re.Match[str]) -> str:
    count, part = (m.group(1), m.group(2)) if m.group(2) else ("1", "half")
    n = 1 if count in ("a", "an", "one") else int(count)
    got = _share(_SHARES_EN[part] * n)
    return f" {got} " if got is not None else m.group(0)


# Words after which "a day" / "an hour" is one of it ("within a day", "for an hour"); after
# any other word it is a rate ("120 cars an hour", "twice a day", "once a month").
_DURATION_BEFORE = frozenset(
    [
        "within",
        "for",
        "than",
        "after",
        "before",
        "over",
        "under",
        "about",
        "of",
        "to",
        "least",
        "most",
        "every",
        "is",
        "are",
        "be",
        "was",
        "takes",
        "take",
        "lasts",
        "last",
        "wait",
        "waits",
        "up",
        "only",
        "just",
    ]
)
_RATE_UNITS = "second|minute|hour|day|night|week|month|quarter|year"


def _a_unit(m: re.Match[str]) -> str:
    before, unit = m.group(1), m.group(2)
    if before == "in":
        return m.group(0)  # "reply in a day" (within), "5 attempts in an hour" (per): either
    if before in _DURATION_BEFORE:
        return f"{before} 7 days" if unit == "week" else f"{before} 1 {unit}"
    return f"{before} per {unit}"


_SHARE_AFTER = (
    r"of|more|less|above|below|higher|lower|off|over|under|morethan|lessthan|atmost|atleast"
)
_CANONICAL: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    # A fraction of an hour: "3/4 hour" = 0.75 hours (then 45 minutes, below).
    (re.compile(r"(?<![\d./])([1-9])/([1-9]\d?)(?![\d/])(?=\s?(?:hours?\b|小时|个小时))"), _fraction),
    # "half an hour" = 30 minutes, 半小时 = 半个小时 = 30分钟, "an hour and a half" = 90 minutes,
    # 一个半小时 = 90分钟, 半年 = "half a year" = 6个月 = 6 months.
    (re.compile(r"(?<![a-z])(?:half an hour|half-hour|half hour)(?![a-z])"), " 30 minutes "),
    (re.compile(r"(?<![a-z])(?:an|1) hour and a half(?![a-z])"), " 90 minutes "),
    (re.compile(r"(?<![\d.])(\d+) and a half hours?(?![a-z])"),
     lambda m: f" {int(m.group(1)) * 60 + 30} minutes "),
    (re.compile(r"(?<![\d.])(\d+)个半(?:小时|钟头)"), lambda m: f"{int(m.group(1)) * 60 + 30}分钟"),
    (re.compile(r"(?<![\d个])半个?(?:小时|钟头)"), "30分钟"),
    (re.compile(r"(?<![a-z])half a year(?![a-z])"), " 6 months "),
    (re.compile(r"(?<![a-z0-9])(a|one|[1-3]) quarters? of an hour(?![a-z])"),
     lambda m: f" {900 * (int(m.group(1)) if m.group(1).isdigit() else 1)} seconds "),
    (re.compile(r"(?<![\d个上下前后])半年(?![度报])"), "6个月"),
    # "a day" / "an hour": one of it after a duration's word, "per" after any other.
    (re.compile(rf"(?<![a-z])([a-z]+) (?:a|an) ({_RATE_UNITS})(?![a-z])"), _a_unit),
    # Durations as one number of one unit (above): 两天 = 48小时 = 2880分钟; 1年 = 12个月. N日
    # after a month is a date (12月15日), N月 without 个 a month, N年 of four digits a year.
    (re.compile(rf"{_NUM}(\s+(?:atleast|atmost|morethan|lessthan)\s+|\s?\+\s?)?[- ]?(?:calendar )?(second|sec|minute|min|hour|hr|h|day)s?(?![a-z])(?!(?<=day) of (?:every|each|the|a) )"),
     _en_duration),
    (re.compile(rf"{_NUM} ?个?(秒钟|秒|分钟|小时|钟头)"), _zh_duration),
    # (Round twelve: not an age, "18 years old", "18-year-old", "16 years of age" = "under 18".)
    (re.compile(r"(?<![\d.])(\d{1,2})[- ]years?(?![a-z])(?![- ]old\b| of age\b)"), _en_months),
    (re.compile(r"(?<![\d.])(\d{1,2})年(?![度级龄化均末底初终报费卡\d])"), _zh_months),
    # Shares: "a quarter of" / "a quarter more" = 25%, "half of" = 50%; 一半 = 50%, 四分之一 =
    # 25%, 三成 = 30% (N成 is tenths).
    (re.compile(rf"(?<![a-z0-9])(?:(a|an|one|\d+) (half|third|quarter|fifth|tenth)s?|half) (?=(?:{_SHARE_AFTER})\b)"),
     _en_share),
    (re.compile(r"一半"), "50%"),
    (re.compile(r"(?<!\d)(\d{1,3})分之(\d{1,3})(?!\d)"), _zh_share),
    (re.compile(rf"(?<![{_ZH_NUMERAL}])([{_ZH_NUMERAL}]{{1,4}})分之([{_ZH_NUMERAL}]{{1,4}})(?![{_ZH_NUMERAL}])"),
     _zh_numeral_share),
    (re.compile(r"(?<![\d.])([1-9])成(?![\d本员立功交绩为])"), lambda m: f"{int(m.group(1)) * 10}%"),
    # A factor made a digit here: 十倍 = 10倍 = "10x" (the analyser reads a factor as its number).
    (re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*倍"), r"\1 "),
    # Monday to Friday are the business days (周一到周五 = 工作日).
    (re.compile(r"(?<![a-z])mondays? (?:to|through|thru|-|until) fridays?(?![a-z])"), " business days "),
    (re.compile(r"(?:周一|星期一)(?:到|至|-|~|—|－)(?:周五|星期五)"), "工作日"),
    # How often, said twice: 每月统计一次 = 按月统计 (the 一次 of 每…一次 is no count), and 一天 before
    # a cap within its clause is 每天 (一天的预约上限是8位 = 每天最多8位).
    (re.compile(r"(每个?(?:自然)?(?:日|天|周|月|季度|季|年|小时|工作日)[^,.;:，。；：\d]{0,12}?)1次"), r"\1"),
    (re.compile(r"(?<![\d.])1天(?=[^,.;:，。；：\d]{0,10}?atmost)"), "每天"),
    # UTC+8 is Beijing time (北京时间); 一刻钟 is 15分钟.
    (re.compile(r"(?<![a-z])(?:utc|gmt) ?\+ ?0?8(?::00)?(?![\d:])"), " beijing time "),
    (re.compile(r"(?<![\d.])一刻钟"), " 900 "),
    # 块 is 元 after a number (300块 = 300元); "180 dollars" = "$180".
    (re.compile(r"(?<=\d)块(?:钱)?"), "元"),
    (re.compile(r"(?<![\d.$])(\d+(?:\.\d+)?) ?dollars?(?![a-z])"), r"$\1"),
]  # fmt: skip


# Only the rules whose literals the text holds run (:mod:`..regex_gate`).
_CANONICAL_GATE = RuleGate([p for p, _ in _CANONICAL])


def canonical_values(norm: str) -> str:
    """Durations, shares and spans in one form (after the analyser's rewrites; see the module)."""
    return _CANONICAL_GATE.run(norm, lambda i, t: _CANONICAL[i][0].sub(_CANONICAL[i][1], t))


__all__ = ["canonical_values", "spell_numbers", "zh_numeral"]
