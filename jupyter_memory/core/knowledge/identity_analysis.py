"""What the identity decision reads in a rule: its words, its slots, its polarity.

:func:`analyse` turns one text into an :class:`Analysed`, pure and cached:

* **slots** — the parts that tell one rule's *subject* from another's and are
  compared as values, never as similar words (issue 32: North/South, 华北/西南,
  GMV/net revenue, Q1/Q2 never merge). Subject slots: ``region``, ``metric``,
  ``table``, ``period`` (quarters, halves, years, fiscal years), ``grain``
  (daily / weekly / monthly; since round ten a value slot that names the subject only before
  a noun, "the weekly report", 月报), ``medium`` (report, dashboard), ``chart`` (bar,
  line …), ``place`` (states, provinces) and ``entity`` (a capitalised name
  inside a sentence); a table is an identifier, "the X table" or a Chinese word
  before 表 (订单表, not 报表 or 图表). Value slots, whose change makes an *update* of the same
  subject: ``number``, ``time``, ``date``, ``weekday``, ``column``, ``colour``,
  ``currency``, ``style`` (dashed, solid …), ``zone`` (UTC, local time),
  ``stat`` (median, mean). A currency, month or weekday that modifies the noun
  of the rule's first noun phrase ("GBP amounts", "June inventory counts",
  日元金额, 6月的盘点) is also kept as ``<slot>@mod``: it names the subject.
* **subject head** — the head noun of a leading subject phrase and its
  modifiers ("return time" → time ← return), compared by position, not by
  the words' presence anywhere in the other text.
* **polarity** — a normative synonym table maps "excludes / is not part of /
  must not count / 不含 / 剔除 / 不计入 …" to one marker ``excl``, "includes /
  counts / 包含 / 计入 …" to ``incl``, and records a remaining negation
  ("not", "never", "rather than", 不, 别 …), so a paraphrase that says the same
  thing with a negation meets its positive wording, and "includes" against
  "excludes" is a contradiction rather than a rewording.
* **constructions** — before anything is read, general constructions are
  rewritten to one wording (``_REWRITES``): determiners are never a name ("the
  table"), "one" after a determiner and "at least one" / "one or more" are no
  number, time windows ("within the past" = "in the last" = 最近/近), particle
  verbs ("leave X out"), a definition by membership ("a user counts as
  active" = "active users") and comparisons with their direction ("exceeds" =
  "above" = 超过 = 以上; "below" is another word). The tables are general
  vocabulary; round two was measured on pairs written before it was tuned.
* **canonical forms** (round five) — a slot written another way is one value:
  "Fiscal year 2024" = "FY2024" = "FY24" = 2024财年, "first-half" = H1, "third
  quarter" = Q3, "20 percent" = 20%, "5th" = 5, "1,000" = "thousand" = 1000 =
  千, "two weeks" = 14 days = 两周, 晚上11点 = 23点 = 11pm, "9 in the morning" =
  9am, "1 April" = "April 1" = 2025-04-01, month-, quarter- and year-end (月末,
  "the last day of each month") a value slot ``boundary``, "capped at" = "cannot
  exceed" = "up to" = 上限 = 最高不超过, 1.5x = 1.5 times = 1.5倍. An antonym is
  the negation of its positive: "hidden" = "not shown" (隐藏 = 不显示),
  "separately" / "apart" = "not combined" (分开 = 不合并), "prohibited" / "not
  allowed" = "not" (禁止 = 不). A contrast ("…, not the mean", "rather than",
  而不是, "，不用…") is taken out of the text and kept as ``alternative``.
* **tokens** — the content words: the recall analyser's English stems
  (:func:`jupyter_memory.core.text.search_word`, Snowball, stopwords dropped),
  Chinese split at function characters and cut into bigrams, fillers that
  carry no rule ("must", "always", "make sure", 必须, 一律, 统一 …) and frame words
  that say how, not what ("measure", "compute", "define", 计算, 视为, 记为 …) dropped,
  numbers written as digits ("third" → 3, 三 → 3), slots out of the text. Kept
  in reading order too (``sequence``, with named entities, and ``cjk_runs``, the
  Chinese words before their bigrams): the swap check aligns two texts by them.
* **round six** — British and American spellings, fixed phrases whose "no" is no
  negation ("no later than", "no-show"), "except" / 除…外 as exclusions, general words for
  one thing across domains (``_WORD_SYNONYMS``, ``_ZH_SYNONYMS``), a rule's own verb ending
  its subject ("Voice ARPU excludes …"), 国内 / 预付费 kept whole, 电表 not a table, and any
  naming noun before a number, numeral or capital letter a ``unit`` ("Tier 1", "Phase II",
  "Plan A", 一级, 三年级, 5G).
* **round eight** — what each clause includes and excludes (``included`` / ``excluded``: from
  the verb to the next one, or back to the one before when nothing follows or the verb names
  the whole after it, "X are excluded from Y"), and each "before" / "after" with the word it
  orders against (``order``): polarity read by position, not by more words.
* **round twelve** — ``stream``, the content words in reading order with each Chinese
  character apart, from which ``identity._one_word_apart`` reads two texts one word apart; and
  values and polarity read where they were misread: HH:MM beside Chinese characters, 北京时间 a
  zone, "a.m." / "U.S." words, 12am midnight, 早7点, 两名, an age no duration, 周六周日 day names,
  别 inside a word (告别, 识别) and "banned" before a noun no negation, "costs $20" no cost
  metric, "，X不作为依据" a contrast.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache

from ..regex_gate import RuleGate
from ..text import normalize, search_word
from .identity_values import canonical_values, spell_numbers

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_IDENT = r"[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+"

SUBJECT_SLOTS = ("region", "metric", "table", "period", "medium", "chart", "place", "entity",
                 "unit")  # fmt: skip
VALUE_SLOTS = ("number", "time", "date", "weekday", "column", "colour", "currency", "style",
               "zone", "stat", "boundary", "grain")  # fmt: skip
# Value slots whose value names the subject when it modifies the subject's noun ("GBP amounts",
# "June inventory counts", "日元金额", "6月的盘点") rather than completing the verb ("report
# amounts in GBP", "counted in June", "以人民币报告"): read as modifiers into ``<slot>@mod``.
# Round ten: a grain too, before any noun ("the weekly report", "monthly email", 月报, 年度收入
# name what is reported), not after its verb ("calculated weekly", "billed monthly", "each day":
# how often, a value whose change is an update).
MODIFIER_SLOTS = ("currency", "date", "weekday", "grain")
# Subject slots whose presence on one side only makes another subject ("South region
# revenue …" is narrower than "Revenue …"); the others only count when both name one.
ONE_SIDED_SLOTS = frozenset({"region", "metric", "table", "period"})


def _alts(words: str) -> str:
    return "|".join(sorted((re.escape(w) for w in words.split("|")), key=len, reverse=True))


# -- the tables -------------------------------------------------------------------------------

# Round twelve: "banned" / "prohibited" / "forbidden" before a noun names what was banned
# ("Banned profiles are removed …"), as "allowed amounts" does: no prohibition there.
_BEFORE_NOUN = (
    r"(?! (?!(?:from|in|on|at|for|to|by|during|under|unless|when|if|and|or|until|without"
    r"|within|after|before)\b)[a-z])"
)

# Verb roots spelled -ise in British and -ize in American English (round six).
_ISE_ROOTS = (
    "normal|annual|random|util|recogn|summar|categor|priorit|standard|final|capital|amort|item"
    "|optim|minim|maxim|organ|author|custom|real|visual|monet|central|special|stabil|synchron"
    "|digit|anonym|emphas|character|harmon|initial|memor|personal|regular|equal|subsid|penal"
)
# Words that point at a thing without naming it: never a table's name ("the table is
# partitioned by it"), never a number ("the one used", "free ones").
_DETERMINERS = (
    r"(?:the|a|an|this|that|these|those|each|every|any|some|no|our|your|its|their|his|her|"
    r"same|other|another|which|whichever|what|whole|entire|one|such|said|given|new|old)"
)
_ORDINAL_QUARTER = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
}
_MONTHS_LONG = ("january", "february", "march", "april", "may", "june", "july", "august",
                "september", "october", "november", "december")  # fmt: skip
_RECENT = "last|past|previous|prior|trailing|rolling|most recent"
_MEMBERS = (
    "user|customer|seller|buyer|account|lead|visitor|member|subscriber|merchant|driver|employee"
)
_COUNTS_AS = _alts(
    "count as|counts as|is counted as|is considered|is considered to be|is treated as"
    "|is regarded as|qualifies as|is classed as|is classified as|is defined as|is deemed"
)
_PARTICLE_VERBS = _alts(
    "leave|leaves|leaving|left|take|takes|taking|took|filter|filters|filtered|filtering"
    "|strip|strips|stripped|weed|weeds|weeded|throw|throws|threw|thrown|keep|keeps|kept"
)
_AT_LEAST_EN = _alts(
    "at least|or more|or higher|or above|or greater|or over|no less than|not less than"
    "|a minimum of|minimum of|no fewer than|not fewer than"
)
_AT_LEAST_ZH = _alts("不低于|不少于|不小于|至少|达到|及以上|或以上")
_MORE_EN = _alts(
    "above|exceed|exceeds|exceeded|exceeding|more than|greater than|higher than|larger than"
    "|longer than|in excess of|upwards of"
)
_MORE_ZH = _alts("超过|超出|大于|高于|多于|以上")
_LESS_EN = _alts("below|less than|fewer than|lower than|shorter than|smaller than|beneath|short of")
_LESS_ZH = _alts("少于|低于|小于|不足|不到|未满|以下")
# Rewrites that make one wording of a general construction out of its variants, applied to the
# normalised text before anything is read from it (order matters).
_REWRITES: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    # Round twelve: an abbreviation of single letters with dots is one word ("12 a.m." = "12am",
    # "U.S." = "US", "e.g."), not an identifier (a table "a.m").
    (re.compile(r"(?<![a-z0-9_.])([a-z])\.([a-z])\.(?![a-z0-9_])"), r"\1\2"),
    # Round six: British and American spellings are one word ("normalised" = "normalized",
    # "colour" = "color", "modelling" = "modeling"); the stemmer keeps them apart.
    (re.compile(rf"\b({_ISE_ROOTS})is(e|ed|es|ing|ation|ations|er|ers)\b"), r"\1iz\2"),
    (re.compile(r"\b(col|behavi|fav|lab|neighb|hon|harb|flav)our(s|ed|ing|ite|ites)?\b"), r"\1or\2"),
    (re.compile(r"\b(cent|met|lit|fib|theat)re(s)?\b"), r"\1er\2"),
    (re.compile(r"\b(model|label|travel|total|fuel|signal|channel|level|counsel)l(ed|ing|er|ers)\b"), r"\1\2"),
    # Round six: general constructions whose "no" / "not" is no negation, and fixed phrases
    # with one meaning: "no later than" = "on or before" = "by", "prior to" = "before",
    # "no-show", "past due" = "overdue", "year over year" = YoY, "sign-up" = "signup".
    (re.compile(r"\b(?:no later than|not later than|on or before)\b"), " by "),
    (re.compile(r"\b(?:no earlier than|not earlier than|on or after)\b"), " from "),
    (re.compile(r"\bwithout (?:any|a single)\b"), " no "),
    # "not only X but also Y" adds Y: no negation (不仅 / 不只 / 不光 … 也 likewise).
    (re.compile(r"\bnot only\b"), " "),
    (re.compile(r"\bbut also\b"), " and "),
    (re.compile(r"不仅|不只|不光"), " "),
    # An order of steps is no number: "Apply discounts first, then add tax" = "tax is added
    # after discounts are applied" ("first" before "then" or a clause's end is no 1).
    (re.compile(r"\bfirst(?=\s*(?:[,;.]|(?:and )?then\b|$))"), " "),
    (re.compile(r"\b(?:prior to|ahead of)\b"), " before "),
    (re.compile(r"\bsubsequent to\b"), " after "),
    (re.compile(r"\bno[- ]shows?\b"), " noshow "),
    (re.compile(r"\bpast[- ]due\b"), " overdue "),
    (re.compile(r"\b(?:year[- ](?:over|on)[- ]year|yoy)\b"), " yoy "),
    (re.compile(r"\b(?:month[- ](?:over|on)[- ]month|mom)\b"), " mom "),
    (re.compile(r"\b(?:week[- ](?:over|on)[- ]week|wow)\b"), " wow "),
    (re.compile(r"\b(?:quarter[- ](?:over|on)[- ]quarter|qoq)\b"), " qoq "),
    (re.compile(r"\be-?mail address(?:es)?\b"), " email "),
    (re.compile(r"\bsign(?:s|ed|ing)?[- ]?ups?\b|\bregistrations?\b"), " signup "),
    (re.compile(r"\bsign[- ]ins?\b|\blog(?:s|ged|ging)?[- ]?(?:in|on)s?\b"), " login "),
    (re.compile(r"\b(?:times? out|timed out|timeouts?)\b"), " timeout "),
    (re.compile(r"\bon[- ]time\b|\bpunctual(?:ity)?\b"), " ontime "),
    (re.compile(r"\bkilowatt[- ]hours?\b"), " kwh "),
    # "US dollars" is a currency, not the place "us" and a currency.
    (re.compile(r"\b(?:us|u\.s\.) dollars?\b"), " usd "),
    (re.compile(r"\bpre-paid\b"), " prepaid "),
    (re.compile(r"\bpost-paid\b"), " postpaid "),
    (re.compile(r"\bmegawatt[- ]hours?\b"), " mwh "),
    # "All orders except test orders" excludes them (除测试订单外 = 剔除测试订单).
    (re.compile(r"\b(?:except(?: for)?|other than|with the exception of|aside from)\b"), " excluding "),
    (re.compile(r"(?<![剔排去扣刨])除(?![以去])(?:了)?([^，。；,;]{1,20}?)(?:以外|之外|外)"), r" 剔除\1 "),
    # Round eight, numbers written another way: "$50k" = "$50,000", "≥ 50%" = "at least 50%".
    (re.compile(r"(?<![\w.])(\d+)k\b"), r"\g<1>000"),
    (re.compile(r"≥\s*"), " at least "),
    (re.compile(r"≤\s*"), " at most "),
    # An existence quantifier is not the number 1: "at least one session" = "one or more".
    (re.compile(r"\b(?:at least (?:one|1)|(?:one|1) or more)\b"), " "),
    (re.compile(r"至少(?:有|要有)?(?:一|1)[次个条笔位]?"), " "),
    # "one" after a determiner, and "ones", stand for a noun: "the one used", "free ones".
    (re.compile(rf"\b({_DETERMINERS}) (?:one|ones)\b"), r"\1 "),
    (re.compile(r"\bones\b"), " "),
    (re.compile(r"(?<=\d),(?=\d{3}(?!\d))"), ""),  # 1,000 = 1000
    # A particle verb split around its object: "leave contractors out" = "leave out contractors".
    (re.compile(rf"\b({_PARTICLE_VERBS}) ((?:[a-z0-9_]+ ){{1,3}}?)out\b"), r"\1 out \2"),
    # A time window: "within the past 28 days" = "in the last 28 days" = "over the previous …".
    (re.compile(rf"\b(?:(?:with)?in|during|over|for|across) (?:the )?(?:{_RECENT})\b"), " last "),
    (re.compile(rf"\b(?:the )?(?:{_RECENT})\b"), " last "),
    (re.compile(r"(?:最近|过去|近)(?=\d|[一二两三四五六七八九十])"), " "),
    # Round five: an upper bound in any of its words, negated comparisons included ("capped at
    # 20%" = "cannot exceed 20%" = "at most 20%" = 最高不超过20% = 上限是20%).
    (re.compile(r"\b(?:cannot|can't|must not|may not|should not|does not|do not|never|not)"
                r" (?:be )?(?:exceed|exceeds|go above|be above|be more than|be greater than|be higher than|more than)\b"
                r"|\b(?:at most|no more than|not more than|capped at|a maximum of|maximum of|max(?:imum)?|up to(?= ?[$€£¥]?\d))\b"
                r"|(?:最高|最多)?(?:不得|不能|不可|不应|不)(?:超过|高于|大于|多于)|最高|最多|上限(?:是|为)?|封顶"),
     " atmost "),
    # "1.5x" = "1.5 times" = 1.5倍: the factor is the number. (A number starts where its
    # digits do: a start inside a run of digits would scan it again, quadratic in its length.)
    (re.compile(r"(?<!\d)(\d+(?:\.\d+)?)\s*(?:x\b|times\b|倍)"), r"\1 "),
    # Saturday and Sunday are the weekend (周六日 = 周末).
    (re.compile(r"\bsaturdays? and sundays?\b|\bsundays? and saturdays?\b|周六(?:和|、|与)?周日|周六日|双休日|周末"),
     " weekend "),
    # "Business days only" excludes the weekend (只算工作日 = 不计周末); "every morning" is daily.
    (re.compile(r"\b(?:only (?:business|working) days|(?:business|working) days only)\b"),
     " exclude weekend "),
    (re.compile(r"(?:只|仅)(?:算|计|统计|计算)工作日"), " 不计 weekend "),
    (re.compile(r"\b(?:every|each) morning\b"), " every day "),
    # Employees are internal: "internal employees" = "company staff" = 内部员工 = 公司员工.
    (re.compile(r"\b(?:internal|company|in-house) (?=employees?\b|staff\b)"), " "),
    (re.compile(r"(?:内部|公司)(?=员工)"), ""),
    # A span in any wording: "starting at X and ending at Y" = "between X and Y" = "from X to Y"
    # (its "and" is no list: not a wider rule).
    (re.compile(r"\bstarting (?:at|from|with) ((?:\S+ ){1,6}?)and ending (?:at|with) "), r" from \1to "),
    (re.compile(r"\bbetween ((?:the )?\S+(?: \S+){0,4}?) and (?=(?:the )?\S)"), r" from \1 to "),
    # "We measure delivery time from …" = "Delivery time is measured from …": the subject leads,
    # so that its head noun is compared ("return time" is not "delivery time").
    (re.compile(r"^(?:we|you|i) (?:measure|compute|calculate|report|track|define|count)\s+"
                r"((?:[a-z][a-z-]*\s+){1,3}?)(?=(?:from|as|by|on|over|per|in)\b)"),
     lambda m: " ".join(m.group(1).split()) + " is measured "),
    # ISO dates: 2025-04-01 = April 1 2025.
    (re.compile(r"\b((?:19|20)\d\d)-(\d{1,2})-(\d{1,2})\b"),
     lambda m: f" {_MONTHS_LONG[int(m.group(2)) - 1]} {int(m.group(3))} {m.group(1)} " if 1 <= int(m.group(2)) <= 12 else m.group(0)),
    # A comparison in any of its words is one word, whose direction counts: "exceeds $5,000"
    # = "above $5,000" = "over $5,000" = "超过5000" = "5000以上" (but "below" is another rule).
    (re.compile(rf"\b(?:{_AT_LEAST_EN})\b|{_AT_LEAST_ZH}"), " atleast "),
    (re.compile(rf"\b(?:{_MORE_EN})\b|\b(?:over|beyond) (?=[$€£¥]?\d)|{_MORE_ZH}"), " morethan "),
    (re.compile(rf"\b(?:{_LESS_EN})\b|\bunder (?=[$€£¥]?\d)|{_LESS_ZH}"), " lessthan "),
    # A definition by membership names the metric: "a user counts as active" = "active users".
    (re.compile(rf"\b(?:{_DETERMINERS} )?({_MEMBERS})s? (?:{_COUNTS_AS}) (?:an? )?([a-z]+)\b"),
     r" \2 \1s "),
    # Round five: a slot written another way is one value ("Fiscal year 2024" = "FY2024" = "FY24"
    # = 2024财年, "first-half" = H1 = 上半年, "third quarter" = Q3, "20 percent" = 20%, "5th" = 5).
    (re.compile(r"\bfiscal (?:year )?((?:19|20)\d\d)\b|\bfy ?((?:19|20)\d\d)\b"),
     lambda m: f" fy{m.group(1) or m.group(2)} "),
    (re.compile(r"\bfy ?(\d\d)(?![\d%])"), r" fy20\1 "),
    (re.compile(r"((?:19|20)\d\d)\s*年?的?(?:财年|财政年度|会计年度)"), r" fy\1 "),
    (re.compile(r"\b(?:the )?(?:first|1st)[- ]half\b"), " h1 "),
    (re.compile(r"\b(?:the )?(?:second|2nd)[- ]half\b"), " h2 "),
    (re.compile(r"\b(?:the )?(first|second|third|fourth|1st|2nd|3rd|4th)[- ]quarter\b"),
     lambda m: f" q{_ORDINAL_QUARTER[m.group(1)]} "),
    (re.compile(r"\b(?:per ?cent|pct)\b"), "%"),
    (re.compile(r"百分之\s*(\d+(?:\.\d+)?)"), r"\1%"),
    (re.compile(r"\b(\d+)(?:st|nd|rd|th)\b"), r"\1"),
    # Round five: an antonym is the negation of its positive, so that the wordings meet and the
    # opposite reads as a contradiction: "hidden" = "not shown" (隐藏 = 不显示), "separately" /
    # "apart" = "not combined" (分开 = 不合并), "prohibited" / "not allowed" = "not" (禁止 = 不).
    (re.compile(r"\b(?:hidden|hide|hides|suppress(?:es|ed)?|masked|mask)\b"), " not shown "),
    (re.compile(r"隐藏|屏蔽"), " 不显示 "),
    (re.compile(r"\b(?:separately|separated|separate|apart|individually)\b"), " not combined "),
    (re.compile(r"\b(?:combine[sd]?|combining|merge[sd]?|merging|together|pool(?:ed|s)?|lump(?:ed|s)?)\b"),
     " combined "),
    (re.compile(r"(?:不要|不能|不得|别|勿|不)?合并"), lambda m: " 不合并 " if m.group(0) != "合并" else " 合并 "),
    # Round eleven: 另行 / 另外 before a verb of counting is "separately" (另行统计 = 单独统计).
    (re.compile(r"分开|分别|单独|(?:另行|另外)(?=统计|计算|核算|列示|上报|记录|处理|计)"), " 不合并 "),
    # (Round twelve: "banned" before a noun names what was banned, see _BEFORE_NOUN.)
    (re.compile(r"\b(?:(?:is|are|be) )?not (?:allowed|permitted)\b|\b(?:is|are) (?:prohibited|forbidden|banned)\b"
                rf"|\b(?:prohibited|forbidden|banned)\b{_BEFORE_NOUN}"),
     " not "),
    # A permission says yes; "allowed" before a noun is a name ("allowed amounts").
    (re.compile(r"\b(?:is|are|be) (?:allowed|permitted|fine|acceptable|ok)\b|\b(?:allowed|permitted) to\b"), " "),
    (re.compile(r"不允许|不准|禁止|严禁"), " 不 "),
    (re.compile(r"允许"), " "),
]  # fmt: skip

_ZH_MULTIPLIERS = {"百万": 1_000_000, "万": 10_000, "千": 1_000}


def _zh_scaled(m: re.Match[str]) -> str:
    value = float(m.group(1) or 1) * _ZH_MULTIPLIERS[m.group(2)]
    return f"{value:g}" if value != int(value) else str(int(value))


def _evening(m: re.Match[str]) -> str:
    hour = int(m.group(1))
    return f"{hour + 12 if hour < 12 else hour}点"


# Round five: canonical forms read once numbers are digits: a duration in weeks is days ("two
# weeks" = "14 days" = 两周 = 14天), 千/万/百万 are numbers (每千次 = per 1000), an hour of the
# evening is on the 24-hour clock (晚上11点 = 23点 = 11pm), "9 in the morning" = 9am, the end of
# a month, quarter or year is one word (月末 = "the last day of each month" = "month-end"),
# and chart axes and log scales have one name.
_AFTER_NUMBERS: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (re.compile(r"(?<![\d.])(\d+)[- ]weeks?\b"), lambda m: f"{7 * int(m.group(1))} days"),
    (re.compile(r"(?<![\d.])(\d+)个?(?:周|星期)(?![一二三四五六日天\d])"),
     lambda m: f"{7 * int(m.group(1))}天"),
    (re.compile(r"(?:(?<!\d)(\d+(?:\.\d+)?))?(百万|万|千)(?=[次个人件元条笔单份])"), _zh_scaled),
    (re.compile(r"(?:下午|晚上|傍晚|夜里|夜间)(\d{1,2})点"), _evening),
    (re.compile(r"\b(\d{1,2}) in the morning\b"), r"\1am"),
    (re.compile(r"\b(\d{1,2}) (?:in the (?:afternoon|evening)|at night)\b"), r"\1pm"),
    (re.compile(r"\bnoon\b|\bmidday\b|中午12点"), " 12:00 "),
    (re.compile(r"\bmidnight\b|午夜|半夜12点"), " 0:00 "),
    (re.compile(r"\b(?:(?:the\s+)?(?:last|end)\s+(?:day\s+)?of\s+(?:(?:the|each|every|a)\s+)?month|month[- ]?end)s?\b|月末|月底"),
     " monthend "),
    (re.compile(r"\b(?:(?:the\s+)?(?:last|end)\s+(?:day\s+)?of\s+(?:(?:the|each|every|a)\s+)?quarter|quarter[- ]?end)s?\b|季末|季度末"),
     " quarterend "),
    (re.compile(r"\b(?:(?:the\s+)?(?:last|end)\s+(?:day\s+)?of\s+(?:(?:the|each|every|a)\s+)?year|year[- ]?end)s?\b|年末|年底"),
     " yearend "),
    (re.compile(r"\by[- ]?ax[ie]s\b|\b(?:vertical|value) ax[ie]s\b|纵轴|y轴|纵坐标"), " yaxis "),
    (re.compile(r"\bx[- ]?ax[ie]s\b|\bhorizontal ax[ie]s\b|横轴|x轴|横坐标"), " xaxis "),
    (re.compile(r"\blogarithmic(?: scale| axis)?\b|\blog[- ](?:scale|axis)\b|对数(?:坐标|刻度|轴)?"),
     " logscale "),
    # Removing duplicates is deduplicating, not an exclusion ("drop duplicate rows" = "dedupe").
    (re.compile(r"\b(?:remov|drop|eliminat|delet|discard)\w* (?:the |any |all )?duplicates?\b"),
     " deduplicate "),
    (re.compile(r"(?:去除|删除|剔除|去掉)重复(?:的)?(?:记录|数据|行|值|项)|(?:去除|删除|剔除|去掉)重复(?=[，。；,.;]|$)"),
     " 去重 "),
]  # fmt: skip

# (canonical value, English pattern or Chinese words). English patterns match whole words of
# the normalised text; Chinese words match anywhere (no spaces to find).
_METRICS_EN = {
    "net_revenue": r"net revenue|net sales",
    "gross_revenue": r"gross revenue|gross sales",
    "gross_margin": r"gross margins?",
    "revenue": r"revenues?|turnover",
    "gmv": r"gmv|gross merchandise value",
    "aov": r"aov|average order values?|average basket values?",
    "basket_size": r"average basket sizes?|basket sizes?",
    "dau": r"dau|daily active users?",
    "mau": r"mau|monthly active users?",
    "wau": r"wau|weekly active users?",
    "active_users": r"active users?",
    "churn": r"churn(?: rate)?",
    "retention": r"retention(?: rate)?",
    "conversion": r"conversion(?: rate)?|cvr",
    "bounce": r"bounce rate",
    "upgrade": r"upgrades?|upgrade rate",
    # (Round twelve: "costs $20", "costs nothing", "cost 30% more" price something: a verb.)
    "cost": r"costs?(?! (?:\$|\d|nothing|an? |the |them\b|us\b|you\b|twice|double|usd|eur|gbp|cny|jpy))"
    r"|cogs|cost of goods sold",
    "profit": r"profits?|net income",
    "margin": r"margins?",
    "arpu": r"arpu",
    "ltv": r"ltv|lifetime value",
    "cac": r"cac",
    "nps": r"nps",
    "ctr": r"ctr|click[- ]through rate",
    "attrition": r"attrition(?: rate)?",
    "headcount": r"headcount|head count",
}
_METRICS_ZH = {
    "net_revenue": "净收入|净营收|净销售额",
    "gross_revenue": "总收入|总营收|毛收入",
    "gross_margin": "毛利率|毛利",
    "revenue": "收入|营收|营业额",
    "gmv": "成交额|交易额",
    "aov": "客单价|平均订单金额",
    "item_price": "件单价",
    "dau": "日活跃用户数|日活跃用户|日活",
    "mau": "月活跃用户数|月活跃用户|月活",
    "active_users": "活跃用户",
    "churn": "流失率",
    "retention": "留存率",
    "conversion": "转化率",
    "bounce": "跳出率",
    "upgrade": "升级率",
    "cost": "成本",
    "profit": "净利润|利润",
    "attrition": "离职率",
    "headcount": "员工人数|在职人数",
}
_REGIONS_EN = (
    r"north|south|east|west|central|north[- ]?east|north[- ]?west|south[- ]?east|"
    r"south[- ]?west|midwest|emea|apac|latam|amer|americas|europe|asia|nordics|dach"
)
_REGIONS_ZH = "华北|华南|华东|华西|华中|西南|西北|东北|东南|大中华区|亚太|欧洲|北美"
_PLACES_EN = (
    r"texas|florida|georgia|california|oregon|washington|minnesota|michigan|ohio|new york|"
    r"china|japan|india|germany|france|spain|italy|brazil|canada|mexico|uk|us|usa"
)
_PLACES_ZH = (
    "北京|上海|天津|重庆|广东|广西|海南|江苏|浙江|山东|河北|河南|四川|云南|贵州|湖北|湖南|"
    "福建|深圳|广州|杭州|成都|日本|美国|英国|德国"
)
_CHARTS_EN = {"bar": r"bar charts?|bar graphs?", "line": r"line charts?|line graphs?",
              "pie": r"pie charts?", "scatter": r"scatter plots?|scatter charts?",
              "histogram": r"histograms?", "heatmap": r"heatmaps?", "area": r"area charts?"}  # fmt: skip
_CHARTS_ZH = {"bar": "柱状图|条形图", "line": "折线图", "pie": "饼图", "scatter": "散点图",
              "histogram": "直方图", "heatmap": "热力图"}  # fmt: skip
_MEDIUM_EN = {"report": r"reports?|reporting", "dashboard": r"dashboards?"}
_MEDIUM_ZH = {"report": "报告|报表", "dashboard": "看板|仪表盘"}
_GRAIN_EN = {"daily": r"daily", "weekly": r"weekly", "monthly": r"monthly",
             "quarterly": r"quarterly", "yearly": r"yearly|annual|annually"}  # fmt: skip
_GRAIN_ZH = {"daily": "日报|日表", "weekly": "周报", "monthly": "月报|月度", "quarterly": "季报",
             "yearly": "年报|年度"}  # fmt: skip
_COLOURS_EN = r"blue|red|green|dark green|grey|gray|black|orange|yellow|purple"
_COLOURS_ZH = {"blue": "蓝色", "red": "红色", "dark green": "深绿色", "green": "绿色",
               "grey": "灰色", "black": "黑色", "orange": "橙色"}  # fmt: skip
_CURRENCIES_EN = {"usd": r"usd|us dollars?|dollars?", "eur": r"eur|euros?",
                  "cny": r"cny|rmb|yuan", "jpy": r"jpy|yen", "gbp": r"gbp"}  # fmt: skip
_CURRENCIES_ZH = {"usd": "美元", "eur": "欧元", "cny": "人民币", "jpy": "日元"}
_STYLES_EN = {"dashed": r"dashed", "dotted": r"dotted", "solid": r"solid"}
_STYLES_ZH = {"dashed": "虚线", "dotted": "点线", "solid": "实线"}
_ZONES_EN = {"utc": r"utc|gmt", "local": r"local time", "beijing": r"beijing time|cst"}
_ZONES_ZH = {"utc": "UTC", "beijing": "北京时间", "local": "当地时间|本地时间"}
_STATS_EN = {"median": r"medians?", "mean": r"means?|averages?", "p95": r"p95"}
_STATS_ZH = {"median": "中位数", "mean": "平均数|平均值|均值"}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_ZH = {"monday": "周一|星期一", "tuesday": "周二|星期二", "wednesday": "周三|星期三",
                "thursday": "周四|星期四", "friday": "周五|星期五", "saturday": "周六|星期六",
                "sunday": "周日|星期日|星期天"}  # fmt: skip
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")  # fmt: skip
_MONTH_RE = "|".join(_MONTHS) + "|" + "|".join(m[:3] for m in _MONTHS if m != "may")

# Normative synonyms (polarity markers), longest first within each list.
_EXCL_EN = (
    r"(?:(?:do|does|did|must|should|will|can)(?: not|n't)|not|never|no longer)"
    r" (?:be )?(?:include[sd]?|including|count(?:s|ed)?|counted|contain(?:s|ed)?|part of)"
    r"|(?:is|are|be|being)(?: not|n't) (?:part of|counted|included|in)"
    r"|exclud\w*|keep(?:s|ing)? out|kept out|leav(?:e|es|ing) out|left out|omit\w*|filter(?:s|ed|ing)? out|strip(?:s|ped)? out"
    r"|remov(?:e|es|ed|ing)|net of|without|drop(?:s|ped|ping)?|tak(?:e|es|en|ing) out|took out"
    r"|discard\w*|disregard\w*|ignor(?:e|es|ed|ing)|set aside|weed(?:s|ed)? out|throw(?:s|n)? out"
)
_INCL_EN = (
    r"includ\w*|contain\w*|count(?:s|ed)? (?:in|toward|towards|as)|counted|counts?"
    r"|part of|belong(?:s)? to|made up of|cover(?:s|ed)?|consists? of|keep(?:s|ing)?(?! in mind)|kept"
    r"|retain\w*|factor(?:s|ed)? in"
)
_NEG_EN = (
    r"not|never|no|rather than|instead of|cannot|can't|don't|doesn't|won't|isn't|aren't"
    r"|stop(?:s|ped)?(?: using)?|avoid\w*|refrain(?:s)? from"
    rf"|prohibit(?!ed\b)\w*|forbid(?!den\b)\w*|(?:is|are) (?:prohibited|forbidden|banned)"
    rf"|(?:prohibited|forbidden|banned){_BEFORE_NOUN}"
    r"|no need to|need not|needn't|non(?=-)"
)
_EXCL_ZH = (
    "不包含|不包括|不计入|不算入|不算在|不算|不含|不计|不纳入|不列入|剔除|剔掉|排除|去除|去掉|刨除|除去"
    "|扣掉|过滤掉|滤掉|不统计|"
    # A modal negation before an inclusion verb is an exclusion: 不应包含 = 不得计入 = 不包含.
    + "|".join(
        neg + verb
        for neg in ("不应该", "不应", "不要", "不能", "不得", "不可", "不用", "别", "勿")
        for verb in ("包含", "包括", "计入", "算入", "算在", "纳入", "列入", "含")
    )
)
_INCL_ZH = "包含|包括|计入|算入|算在|纳入|列入|并入|属于|含有|含|组成"
_NEG_ZH = "而不是|而非|不要|不能|不必|不用|不是|没有|无须|无需|禁止|严禁|不得|不可|避免|切勿|停用|别|勿|不|非|未"
# Round twelve: 别 says "don't" on its own (别用均值), not inside a word — 告别 (farewell), 识别
# (recognise), 类别 / 级别 / 性别 / 届别 (a kind, a level), 区别 / 差别, 特别, 个别, 分别, 别名,
# 别的 / 别处 / 别人 (other): 告别厅 is a hall, 车牌识别失败率 a failure rate, no negation.
_NEG_ZH_RE = re.compile(
    _alts(_NEG_ZH.replace("|别", "")) + "|(?<![告识类级性届区差特个分辨鉴派])别(?![名的处人])"
)
_MINUS_EN = r"minus|subtract\w*|less|(?<= )-(?= )"
_MINUS_ZH = "减去|扣除|减"
# Round six: a classification ("X 算作 Y", "X is treated as Y") puts X in Y. Its own marker
# ``cls``, not a content word (算作 = 视为 = 记为 = "counts as"): against an exclusion on the
# other side it is the opposite (算作 / 不算), and denied (不算作, "is not treated as") it is
# a plain negation (so a denied one is no classification: 不视为 is 不 and a frame word).
_CLS_ZH = "算作|算为|算是|计为|记为|记作|视为|视作|当作|当成|归为|归入|列为|标为"
_CLS_ZH_RE = re.compile(
    "".join(
        f"(?<!{neg})"
        for neg in ("不", "别", "勿", "未", "非", "不应", "不能", "不得", "不可", "不要")
    )
    + f"(?:{_alts(_CLS_ZH)})"
)
_CLS_EN = (
    r"(?:is|are|be|being|was|were|gets?) (?:treated|regarded|considered|classed|classified|deemed)"
    r"(?: to be)?(?: as)?|counts? as|(?:is|are|be) counted as"
)
_DIV_EN = r"divided by|over|per"
_DIV_ZH = "除以"

# Words that carry no rule: modality and emphasis.
_FILLER_EN = (
    r"must|should|always|need(?:s)? to|have to|has to|make sure(?: that)?|ensure(?: that)?"
    r"|please|every time|all|any|only|also|too|just|each|every|one or more|at least|our|we"
    r"|note|rule|info|gotcha|remember|keep in mind|the one|thing|now|once|to get|get|gets|getting|got|equals?"
    r"|is equal to|used|use|using|uses|can|may|column|field|anything|run|runs|go|goes|span"
    r"|spans|through|from|shall|ought to|required to|requires?|required|mandatory|needed|needs?"
    r"|is to be|are to be"
)
_FILLER_ZH = (
    "必须|务必|一定要|一定|需要|应该|应当|一律|统一|始终|总是|记得|注意|备注|规则|口径|"
    "都|要|请|就|也|只|仅|所有|全部|就是|等于|使用|用|可以|字段|第|须要|必需|应予|须"
)
# Light words: the frame of a rule (how it is computed, defined, treated, where it comes from),
# never the thing it is about. Two rules that differ only in these say one thing ("we measure
# delivery time from …" / "delivery time is counted from …"). English as stems.
_LIGHT_STEMS = frozenset({
    "measur", "comput", "calcul", "definit", "defin", "treat", "consid", "regard", "deem",
    "happen", "take", "taken", "took", "base", "basi", "valu", "figur", "number", "data",
    "analysi", "analys", "analyz", "one", "done", "appli", "given", "way", "tabl", "record",
    "determin", "evalu", "assess", "quantifi", "track", "work", "handl", "process",
})  # fmt: skip
_LIGHT_ZH = (
    "定义为|定义|视为|视作|算作|算为|计为|记为|记作|作为|当作|当成|处理|为准|进行|采用|按照|衡量|"
    "情况|分析|计算|来看|来算|口径|方式|方法|数据|number|"
    # "changed to": what marks an update, never what it is about (改为每天7点 / 每天6点).
    "改为|改成|改由|改用|改按"
)
# Function characters that end a Chinese "word" (bigrams never cross them).
_CJK_BREAK = set(
    "的了是在里中把按将被以为和与及或并且而之其这那该此个时后前内上下到于从用对向由"
    "有过算指看近最每再还已让给"
)
CJK_BREAK = "".join(sorted(_CJK_BREAK))  # for relate(): the characters that split a word
_ZH_NUM = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
           "八": 8, "九": 9, "十": 10}  # fmt: skip
_EN_NUM = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10, "first": 1, "second": 2, "third": 3,
           "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
           "tenth": 10, "single": 1, "eleven": 11, "twelve": 12, "thirteen": 13,
           "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
           "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
           "ninety": 90, "hundred": 100, "thousand": 1000, "million": 1000000, "twelfth": 12, "fifteenth": 15, "twentieth": 20}  # fmt: skip
# Spellings that are one word to the analyser.
_WORD_SYNONYMS = {
    "dedupe": "deduplic", "dedup": "deduplic", "deduplicate": "deduplic",
    "reload": "refresh", "reloaded": "refresh", "refreshed": "refresh", "refreshes": "refresh",
    "begin": "start", "begins": "start", "began": "start", "starts": "start",
    "canceled": "cancel", "cancelled": "cancel", "cancellations": "cancel",
    "fully": "full", "books": "book", "booked": "book",
    # Ways of putting a number or a series in front of a reader.
    "summarised": "present", "summarized": "present", "show": "present", "shows": "present",
    "display": "present", "displayed": "present", "round": "present", "rounded": "present",
    "draw": "present", "drawn": "present", "plot": "present", "plotted": "present",
    "mark": "present", "marked": "present", "shown": "present", "presented": "present",
    "reported": "present",
    # General words for one thing: a count of unique ones, an account's start, a login.
    "unique": "distinct", "opened": "creat", "created": "creat", "logged": "record",
    "logins": "login", "duplicate": "deduplic", "duplicates": "deduplic",
    # A figure or a number is how a rule speaks, an amount (money) is what it is about.
    "figures": "number", "numbers": "number", "amounts": "amount",
    "frozen": "freez", "freeze": "freez", "lock": "freez", "locked": "freez",
    "axes": "axis", "values": "value", "decimals": "decimal", "places": "decimal",
    "place": "decimal", "seats": "seat", "accounts": "account",
    # Round five: general analyst words for one thing (inventory, a web session, a fee).
    "stock": "inventory", "visit": "session", "visits": "session", "charge": "fee",
    "charges": "fee", "fees": "fee",
    "staff": "employee", "personnel": "employee", "working": "business", "final": "last",
    "dispatch": "ship", "dispatched": "ship", "dispatches": "ship", "shipped": "ship",
    # Round six: general words for one thing across domains, written from analyst vocabulary
    # (retail, energy, airlines, insurance, telecom, education, healthcare), not from pairs.
    "client": "customer", "clients": "customers", "purchases": "purchase", "purchased": "purchase",
    "buy": "purchase", "buys": "purchase", "bought": "purchase", "buying": "purchase",
    "inactive": "idle", "inactivity": "idle", "idleness": "idle",
    "traveller": "passenger", "travellers": "passenger", "traveler": "passenger",
    "travelers": "passenger", "pax": "passenger", "learner": "student", "learners": "student",
    "pupil": "student", "pupils": "student", "instructor": "teacher", "instructors": "teacher",
    "doctor": "physician", "doctors": "physician", "clinician": "physician",
    "clinicians": "physician", "identifier": "id", "identifiers": "id", "ids": "id",
    "blackout": "outage", "blackouts": "outage", "consumption": "usage", "consume": "usage",
    "consumes": "usage", "consumed": "usage", "consuming": "usage", "commence": "start",
    "commences": "start", "commenced": "start", "assign": "allocate", "assigns": "allocate",
    "assigned": "allocate", "assigning": "allocate", "allocates": "allocate",
    "allocated": "allocate", "allocation": "allocate", "apportion": "allocate",
    "apportioned": "allocate", "recognize": "book", "recognized": "book", "recognizes": "book",
    "recognition": "book", "signature": "sign", "signatures": "sign",
    # General verbs of how a rule is carried out: telling someone, sending data, a flag (like
    # "marked"), receiving (like "gets"). Not "incurred" (an insurer's "incurred losses" are
    # not "paid losses"), nor "occur" (a month "they occur" is a value).
    "notification": "notify", "notifications": "notify", "inform": "notify", "informed": "notify",
    "informs": "notify", "announce": "notify", "announced": "notify", "announces": "notify",
    "upload": "send", "uploads": "send", "uploaded": "send", "transmit": "send",
    "transmits": "send", "transmitted": "send",
    "flag": "mark", "flags": "mark", "flagged": "mark", "flagging": "mark",
    "receive": "get", "receives": "get", "received": "get", "obtain": "get", "obtains": "get",
    "obtained": "get",
}  # fmt: skip
_ZH_SYNONYMS = {
    "去重": "dedup", "来自": "cause", "导致": "cause", "造成": "cause", "由于": "cause",
    "因为": "cause", "更新": "刷新", "起始": "开始", "开始于": "开始", "起": "开始",
    "结账": "关账", "汇报": "报告", "统计": "计算", "画成": "present", "表示": "present",
    "画": "present", "显示": "present", "保留": "present", "四舍五入到": "present",
    "四舍五入": "present", "数字": "number", "金额": "amount", "数据": "number", "零": "0",
    # General words for one thing: the month in question, sending, converting, noting.
    "该月": "当月", "本月": "当月", "发出": "发送", "早上": "上午", "换算": "折算",
    "注明": "标注",
    "重新加载": "刷新", "收费": "价格", "售价": "价格", "访问": "会话", "展示": "present",
    "呈现": "present",
    # Round six: general words for one thing across domains (see _WORD_SYNONYMS).
    "顾客": "客户", "旅客": "乘客", "学员": "学生", "病人": "患者", "医师": "医生",
    "耗电量": "用电量", "耗电": "用电", "断电": "停电", "保险单": "保单", "准时": "准点",
    "正点": "准点", "晚点": "延误", "截至": "截止", "取自": "cause", "来源于": "cause",
    "源自": "cause", "出自": "cause", "发放": "支付", "超期": "逾期", "空闲": "闲置",
    "均摊": "分摊", "平摊": "分摊", "标记": "标注",
    # Words holding a function character (内, 后) that would split them: a scope or a plan
    # type, read as the English word so that 国内 / 国际 and 预付费 / 后付费 stay apart.
    "国内": "domestic", "境内": "domestic", "国际": "international", "境外": "international",
    "国外": "international", "预付费": "prepaid", "后付费": "postpaid",
    # General verbs (see _WORD_SYNONYMS): recording, telling, getting, compensating, sharing.
    "登记": "记录", "录入": "记录", "告知": "通知", "通告": "通知", "得到": "获得", "拿到": "获得",
    "补偿": "赔偿", "分担": "分摊", "回传": "上传", "出现": "发生",
    # Round seven: every day is one word whichever character says "day".
    "每日": "每天",
}  # fmt: skip


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9_])(?:{pattern})(?![a-z0-9_])")


def _zh(words: str) -> re.Pattern[str]:
    return re.compile(_alts(words))


# (slot, value or "", pattern)
_SLOT_RULES: list[tuple[str, str, re.Pattern[str]]] = []


def _add(slot: str, value: str, pattern: re.Pattern[str]) -> None:
    _SLOT_RULES.append((slot, value, pattern))


# Order matters: an identifier or a table name is taken before its words are read, a longer
# metric before the shorter one inside it ("net revenue" before "revenue").
_add("table", "", re.compile(rf"(?:the )?\b(?!{_DETERMINERS}\b)({_IDENT}|[a-z][a-z0-9]*) table\b"))
_add("table", "", re.compile(rf"\btable ({_IDENT})\b"))
# Linear time: a match starts only where a word does (a start inside a run of letters
# would scan the rest of the run again: quadratic on a long token, a hash or base64), and
# a text without 表 is not searched at all (the rule gate reads 表 as its literal).
_add("table", "", re.compile(rf"(?<![a-z])({_IDENT}|[a-z][a-z0-9_]*)\s*表(?!示)"))
# Round seven: a Chinese table word right before an identifier describes it (库存表 inv_daily):
# one table, the identifier's.
_add("table", "", re.compile(rf"[{_CJK}]{{2}}表\s*({_IDENT}|[a-z][a-z0-9]*_[a-z0-9_]+)\b"))
# A Chinese table named by a word before 表 (订单表, 库存表), not a report, chart or list.
_add(
    "table",
    "",
    re.compile(
        rf"([{_CJK}]{{2}})(?<![报图列代日周月年时课发仪统电水气抄填制钟手外])表(?![示达格现明扬])"
    ),
)
# A numbered unit is a name, not a value (round five): "Line 4" is not an update of "Line 3",
# nor 4号产线 of 3号产线, nor "hub 2" of "hub 1".
_add(
    "unit",
    "",
    re.compile(
        r"\b(line|plant|site|hub|warehouse|store|dc|building|dock|gate|machine|station|cell|shift"
        r"|team|workshop|depot)\s?#?\s?(\d+)\b"
    ),
)
_add(
    "unit",
    "",
    re.compile(
        r"(?<!\d)(\d+)\s?号(产线|生产线|线|仓库|仓|库|机台|机|航站楼|楼|门店|店|车间|工位|班组|站台|登机口)"
    ),
)
_add("unit", "", re.compile(r"第(\d+)(产线|生产线|车间|班组|工位|仓)"))
# Round six: any naming noun before its number, roman numeral or capital letter is a name too
# ("Tier 1" / "Tier 2", "Phase II" / "Phase III", "Plan A" / "Plan B", "Grade 3", 一级 / 二级,
# 三年级, 第二档, A套餐, 5G / 4G): another subject, never an update of it. A number after
# its noun names it; one before a noun counts it ("40 subjects"), and a bound ("grade 3 or
# above", 3级以上) is a value.
_NAMING_NOUNS = (
    "tier|phase|grade|zone|terminal|band|level|stage|version|release|wave|batch|lot|arm|class"
    "|type|category|option|step|tranche|route|platform|pier|concourse|runway|bay|ward"
    "|room|floor|sector|district|lane|channel|section|article|form|part|chapter"
    "|module|semester|term|trimester|cycle|dose|feeder|substation|circuit|generator|turbine"
    "|reactor|segment|group|plan|schedule|tariff|region|cohort|site|line|gate"
)  # not verbs that take a count ("round 2 decimals", "track 3 KPIs", "block 2 hours")
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6}
_BOUND_AFTER = r"(?!\s*(?:atleast|morethan|lessthan|atmost|or (?:above|below|higher|lower)))"
# A number with a measure after it is a value ("service level 95%", "stage 2 days"), not a name.
_MEASURE_AFTER = (
    r"(?!\s*(?:%|percent|days?|hours?|minutes?|seconds?|weeks?|months?|years?|decimals?|times)"
    r"(?![a-z]))(?![.,]\d)"
)
_add(
    "unit",
    "",
    re.compile(
        rf"\b({_NAMING_NOUNS})\s?#?\s?(\d{{1,3}}|i{{1,3}}|iv|vi?|@[a-h])\b{_MEASURE_AFTER}{_BOUND_AFTER}"
    ),
)
# A network generation (5G / 4G), not grams ("doses above 2g"): before a network word only.
_add(
    "unit",
    "",
    re.compile(
        r"(?<![a-z0-9])([2-6])(g)(?=\s?(?:networks?|coverage|sites?|cells?|signal|traffic|users?"
        r"|subscribers?|plans?|kpis?|网络|基站|小区|信号|流量|用户|套餐|覆盖))"
    ),
)
_add(
    "unit",
    "",
    re.compile(
        r"(?<!分)第?([一二两三四五六七八九十]+|\d{1,3})(年级|级|期|类|档|代|阶段|批次|批|轮|型|航站楼)"
        + _BOUND_AFTER
    ),
)
_add("unit", "", re.compile(r"(?<![a-z0-9])([a-h])(套餐|类|级|组|区|型|档|卡|舱|航站楼)"))
_add("grain", "daily", _en(r"every day|each day|per day"))
# Round ten: "each week" is "weekly" (how often, a value; see _grain_names).
_EACH_EN = {"weekly": "week", "monthly": "month", "quarterly": "quarter", "yearly": "year"}
for _v, _w in _EACH_EN.items():
    _add("grain", _v, _en(rf"(?:every|each|per) {_w}"))
_add("ident", "", re.compile(rf"(?<![a-z0-9_])({_IDENT})(?![a-z0-9_])"))
_add("time", "", re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b"))
# (Round twelve: digits, not word boundaries, end it — "每日08:00" and "6:00上门" follow and
# precede Chinese characters, which are word characters to \b.)
_add("time", "", re.compile(r"(?<![\d:.])(\d{1,2}):(\d{2})(?![\d:])"))
_add("time", "", re.compile(r"(?:早上|上午|下午|晚上|凌晨|早)?(\d{1,2})点(半|\d{1,2}分)?"))
for _v, _p in {**_METRICS_EN}.items():
    _add("metric", _v, _en(_p))
for _v, _w in _METRICS_ZH.items():
    _add("metric", _v, _zh(_w))
_add("metric", "gmv", re.compile(r"gmv"))
_add("period", "", re.compile(r"(?<![a-z0-9])(q[1-4]|h[12]|fy\s?\d{2,4})(?![a-z0-9])"))
_add("period", "", re.compile(r"第?([一二三四1-4])季度"))
_add("period", "h1", re.compile(r"上半年|first half"))
_add("period", "h2", re.compile(r"下半年|second half"))
_add("date", "", re.compile(rf"\b({_MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b"))
# "1 April" = "April 1" = "the first of April" (round five).
_add("date", "", re.compile(rf"\b(\d{{1,2}})\s+({_MONTH_RE})\b"))
# The end of a month, quarter or year (canonical words from _AFTER_NUMBERS): a cut-off whose
# change is an update ("counted at month-end" → "at quarter-end").
_add("boundary", "", re.compile(r"\b(monthend|quarterend|yearend)\b"))
_add(
    "date",
    "",
    re.compile(rf"\b(?:the\s+)?(\d{{1,2}}|first)(?:st|nd|rd|th)?\s+of\s+({_MONTH_RE})\b"),
)
_add("date", "", re.compile(r"(\d{1,2})月(\d{1,2})[日号]"))
_add("period", "", re.compile(r"(?<!\d)((?:19|20)\d\d)(?:年)?(?!\d)"))
# "may" alone is the modal verb ("data may only be queried"); the month after a preposition.
_add("date", "", re.compile(rf"\b(?!may\b)({_MONTH_RE})\b"))
_add("date", "", re.compile(r"\b(?:in|of|since|until|by|from|before|after|during) (may)\b"))
_add("date", "", re.compile(r"(?<!\d)(\d{1,2})月(?!份?\d)"))
for _v, _w in _CHARTS_ZH.items():
    _add("chart", _v, _zh(_w))
for _v, _p in _CHARTS_EN.items():
    _add("chart", _v, _en(_p))
for _v, _p in _MEDIUM_EN.items():
    _add("medium", _v, _en(_p))
for _v, _w in _MEDIUM_ZH.items():
    _add("medium", _v, _zh(_w))
for _v, _p in _GRAIN_EN.items():
    _add("grain", _v, _en(_p))
for _v, _w in _GRAIN_ZH.items():
    _add("grain", _v, _zh(_w))
_add("region", "", _en(_REGIONS_EN))
_add("region", "", _zh(_REGIONS_ZH))
_add("place", "", _en(_PLACES_EN))
# (Round twelve: 北京时间 is a time zone, read as one below, not the place 北京 and a time.)
_add("place", "", re.compile(f"(?:{_alts(_PLACES_ZH)})(?!时间)"))
_add("colour", "", _en(_COLOURS_EN))
for _v, _w in _COLOURS_ZH.items():
    _add("colour", _v, _zh(_w))
for _v, _p in _CURRENCIES_EN.items():
    _add("currency", _v, _en(_p))
for _v, _w in _CURRENCIES_ZH.items():
    _add("currency", _v, _zh(_w))
for _v, _p in _STYLES_EN.items():
    _add("style", _v, _en(_p))
for _v, _w in _STYLES_ZH.items():
    _add("style", _v, _zh(_w))
for _v, _p in _ZONES_EN.items():
    _add("zone", _v, _en(_p))
for _v, _w in _ZONES_ZH.items():
    _add("zone", _v, _zh(_w.casefold()))
for _v, _p in _STATS_EN.items():
    _add("stat", _v, _en(_p))
for _v, _w in _STATS_ZH.items():
    _add("stat", _v, _zh(_w))
for _d in _WEEKDAYS:
    _add("weekday", _d, _en(_d + "s?"))
for _v, _w in _WEEKDAYS_ZH.items():
    _add("weekday", _v, _zh(_w))

_MARKERS: list[tuple[str, re.Pattern[str]]] = [
    ("excl", _en(_EXCL_EN)),
    ("excl", _zh(_EXCL_ZH)),
    ("minus", _en(_MINUS_EN)),
    ("minus", _zh(_MINUS_ZH)),
    ("div", _en(_DIV_EN)),
    ("div", _zh(_DIV_ZH)),
    # Round six: a restriction ("only paying subscribers", 只统计付费会员) keeps out what it does
    # not name: against an inclusion of something else, the opposite (see identity._restricts).
    # ("not only" adds, 只要 is "as long as", 不只 / 不仅 "not only": no restriction.)
    ("only", _en(r"(?<!not )only")),
    ("only", re.compile(r"(?<![不])(?:只有|仅限|只(?!要)|仅(?!供))")),
    ("cls", _en(_CLS_EN)),
    ("cls", _CLS_ZH_RE),
    ("incl", _en(_INCL_EN)),
    ("incl", _zh(_INCL_ZH)),
    ("neg", _en(_NEG_EN)),
    ("neg", _NEG_ZH_RE),
]
# Phrases that say one thing (a cause, …), as one word.
_PHRASES_EN: list[tuple[re.Pattern[str], str]] = [
    (_en(r"comes? from|caused by|due to|because of|stems? from|results? from|caus(?:e|es|ed|ing)"),
     " cause "),
]  # fmt: skip
_FILLER_EN_RE = _en(_FILLER_EN)
_FILLER_ZH_RE = _zh(_FILLER_ZH)
_LIGHT_ZH_RE = _zh(_LIGHT_ZH)
_ZH_SYN_RE = _zh("|".join(_ZH_SYNONYMS))
_EN_NUM_RE = _en("|".join(_EN_NUM))
_ZH_NUM_RE = re.compile(r"(?:第)?([零一二两三四五六七八九十]+)(?=[个季月日号位天周次年点])")
_ENTITY_RE = re.compile(r"(?<=[a-z0-9,;] )([A-Z][A-Za-z0-9]+|[A-Z]{2,})\b")
_NUMBER_RE = re.compile(r"(?<![a-z0-9_])\d+(?:\.\d+)?")  # "ba117", "cs101": a code, no number
# List separators: "and" and its kin; a comma counts only before a later "and" (a list, not a clause).
_LIST_WORDS = re.compile(r"、|\band\b|\bplus\b|和|以及|及|与")
_SENTENCE_ENDS = re.compile(r"[.。;；]")
_AND = re.compile(r"\band\b|和")


def _list_commas(text: str) -> set[int]:
    """Where ``text`` has a comma of a list: one with a later "and" / 和 in its sentence.
    (Found from sorted positions: a lookahead from each comma to the sentence's end was
    quadratic in the commas of a long text.)"""
    ands = [m.start() for m in _AND.finditer(text)]
    ends = [m.start() for m in _SENTENCE_ENDS.finditer(text)]
    out: set[int] = set()
    for i, ch in enumerate(text):
        if ch in ",，":
            next_and = bisect.bisect_right(ands, i)
            next_end = bisect.bisect_right(ends, i)
            end = ends[next_end] if next_end < len(ends) else len(text)
            if next_and < len(ands) and ands[next_and] < end:
                out.add(i)
    return out


def _separator_count(text: str) -> int:
    """List separators: "and" and its kin, and each comma of a list (not of a clause)."""
    return len(_LIST_WORDS.findall(text)) + len(_list_commas(text))


_LETTER_UNIT_RE = re.compile(rf"\b((?i:{_NAMING_NOUNS}))\s([A-H])\b(?![a-z'’])")
_CLAUSES = re.compile(r"[,;:，；：。.!?]")
_TOKEN_RE = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+)")


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# A value after one of these words completes the verb: "in GBP", "at the end of June", "every Monday".
_ARG_BEFORE_EN = _set(
    "in into to at on by from per as of for until till before after than with using via every each"
    " last next this within during since through between and or"
)
# A value before one of these ends a phrase: it names nothing after it ("… in GBP and EUR").
_NOT_NOUN_EN = _set(
    "is are was were be been being am must should will would can could may might shall has have"
    " had do does did to at on in by for from of with and or as than then the a an not never"
    " only also always"
)
_LEAD_EN = _set("the a an all any every each our their its this these those")
_AUX_EN = _set("is are was were must should will would can may shall has have gets get")
# A sentence that opens with a short noun phrase and its verb: "Return time is measured …".
_SUBJECT_EN = re.compile(
    r"((?:[a-z][a-z0-9-]* ){1,4}?)(?:is|are|was|were|must|should|will|gets?|has|have|can|needs?"
    # Round six: a rule's own verbs end its subject too ("Voice ARPU excludes …").
    r"|excludes|includes|counts|uses|covers|means|starts|ends|requires|contains|omits)\b"
)
_SUBJECT_ZH = re.compile(rf"([{_CJK}]{{4,6}}?)(?=从|在|按|以|由|每)")
_ARG_BEFORE_ZH = frozenset("以按用成为到于至每逢个是在从截止到换折算计")
_WORD_RE = re.compile(r"[a-z][a-z0-9']*")
_CONTRAST_RE = re.compile(
    r"(?:\brather than\b|\binstead of\b|[,;]\s*(?:but )?(?:not|never)\b(?! only)|而不是|而非|"
    r"[,，;；]\s*(?:不用|不是|不按|不以|而不用|不要用|不要|别用|勿用|而不))\s*([^,.;:，。；：]{1,40})"
)
# Round twelve: the alternative named before its refusal, "，售票数不作为依据" (= "，不以售票数为准"):
# what a rule is not based on.
_CONTRAST_AFTER_ZH = re.compile(
    r"[,，;；]\s*([^,.;:，。；：]{1,40}?)不(?:作为|作|当作|当成)(?:依据|标准|准)"
)
_PLAIN_STOP = _set("the a an by on in at of to for with its their his her our")


def _plain_words(text: str) -> frozenset[str]:
    """Words as written (English) and Chinese bigrams: a contrast's alternative is looked up
    in the other text's words, before slots and synonyms take them apart."""
    out = {w for w in re.findall(r"[a-z][a-z0-9_]+", text) if w not in _PLAIN_STOP}
    for run in re.findall(rf"[{_CJK}]+", text):
        out.update(run[i : i + 2] for i in range(len(run) - 1))
    return frozenset(out)


def _modifies_noun(text: str, start: int, end: int) -> bool:
    """Whether the value at ``text[start:end]`` modifies the noun after it (see MODIFIER_SLOTS)."""
    before, after = text[:start].rstrip(), text[end:].lstrip()
    if before and re.match(rf"[{_CJK}]", before[-1]) or after and re.match(rf"[{_CJK}]", after[0]):
        if before and before[-1] in _ARG_BEFORE_ZH:
            return False
        # At the head of a clause ("日元金额…", "6月库存盘点…") or before 的 ("6月的盘点").
        return not before or not re.match(rf"[{_CJK}a-z0-9]", before[-1]) or after[:1] == "的"
    prev = _WORD_RE.findall(before[-20:])
    nxt = _WORD_RE.match(after)
    if prev and prev[-1] in ("for", "of") and nxt and nxt.group(0) in _AUX_EN:
        # "Inventory for December is counted …": the end of the subject before its verb.
        return len(_WORD_RE.findall(before)) <= 3
    if prev and prev[-1] in _ARG_BEFORE_EN:
        return False
    # Only in the rule's first noun phrase, after at most an imperative verb ("Convert all GBP
    # amounts …"): a value modifying a later noun names the value ("Q1 targets use the February
    # price list").
    lead = [w for w in _WORD_RE.findall(before) if w not in _LEAD_EN]
    return len(lead) <= 1 and nxt is not None and nxt.group(0) not in _NOT_NOUN_EN


def _grain_names(text: str, start: int, end: int) -> bool:
    """Whether the grain at ``text[start:end]`` names what is reported (round ten): a Chinese
    grain is a noun or a noun's modifier (周报, 月度收入), an English one an adjective before a
    noun ("the weekly report", "monthly email"); after its verb ("reported weekly", "billed
    monthly in arrears") or as "each day" / "annually" it says how often, a value."""
    if re.match(rf"[{_CJK}]", text[start:end]):
        before = text[:start].rstrip()
        return not before or before[-1] not in _ARG_BEFORE_ZH  # 按年度核算: how often
    word = text[start:end].strip()
    if " " in word or word == "annually":  # "every day", "per day": how often
        return False
    nxt = _WORD_RE.match(text[end:].lstrip())
    return nxt is not None and nxt.group(0) not in _NOT_NOUN_EN | _ARG_BEFORE_EN


def _zh_number(word: str) -> int:
    if word == "十":
        return 10
    if word.startswith("十"):
        return 10 + _ZH_NUM.get(word[1:], 0)
    if "十" in word:
        tens, _, ones = word.partition("十")
        return _ZH_NUM.get(tens, 1) * 10 + _ZH_NUM.get(ones, 0)
    return _ZH_NUM.get(word, 0)


@dataclass(frozen=True)
class Analysed:
    """One text as the identity decision reads it (see the module docstring)."""

    key: str  # the text normalised, slots and markers still in it
    tokens: frozenset[str]
    slots: dict[str, frozenset[str]]
    markers: frozenset[str]  # excl, incl, minus, div
    negated: bool
    separators: int  # list separators: "A and B" names more than "A"
    sequence: tuple[str, ...] = ()  # the tokens in the order of the text (alignment)
    cjk_runs: tuple[str, ...] = ()  # the Chinese words before their bigrams (modifier swaps)
    # The words of an alternative the text turns down ("…, not the mean"), and the plain words
    # of the rest: a contrast is a negation only against a text that asserts the alternative.
    alternative: frozenset[str] = frozenset()
    main_words: frozenset[str] = frozenset()
    # Round eight: the words each clause includes and excludes ("include penalties but exclude
    # own goals", 含运费，不含政府补贴): what one text keeps in, the other may keep out.
    included: frozenset[str] = frozenset()
    excluded: frozenset[str] = frozenset()
    # Round eight: "before" / "after" and the word it orders against ("after tax" → after,
    # tax; 扣除佣金后 → after, 佣金), each once.
    order: frozenset[tuple[str, str]] = frozenset()
    # Round twelve: the content words in reading order with each Chinese character apart (no
    # bigrams, no function characters): what tells "two texts one word apart"
    # (identity._one_word_apart) from a rewording.
    stream: tuple[str, ...] = ()

    @cached_property
    def subject_head(self) -> tuple[str, frozenset[str]] | None:
        """The head noun of the leading subject noun phrase and its modifiers, when it has both.

        "Return time is measured …" → ("time", {"return"}); "退货时长从…" → ("时长", {"退货"}).
        A word elsewhere in the other text is not its subject ("… to delivery scan").
        """
        if m := _SUBJECT_EN.match(self.key):
            stems = [
                _WORD_SYNONYMS.get(st, st)
                for w in m.group(1).split()
                if w not in _LEAD_EN and (st := search_word(_WORD_SYNONYMS.get(w, w))) is not None
            ]
            if len(stems) >= 2:
                return stems[-1], frozenset(stems[:-1])
        elif m := _SUBJECT_ZH.match(self.key):
            run = m.group(1).replace("的", "")  # 的 marks the modifier: 华北区的周报 = 华北区周报
            # One word for one thing here too (旅客投诉 = 乘客投诉), as in the tokens.
            run = _ZH_SYN_RE.sub(lambda w: _ZH_SYNONYMS[w.group(0)], run)
            return run[-2:], frozenset({run[:-2]})
        return None

    def slot(self, name: str) -> frozenset[str]:
        return self.slots.get(name, frozenset())

    # Derived sets, made once per text (analyse() is cached): relate() runs per pair, and a
    # queue listing compares every pending proposal with every known entry.
    @cached_property
    def subject_tokens(self) -> frozenset[str]:
        # A grain is a value since round ten, but what a rule is about as much as before.
        return self._slot_tokens((*SUBJECT_SLOTS, "grain"))

    @cached_property
    def value_tokens(self) -> frozenset[str]:
        return self._slot_tokens(VALUE_SLOTS)

    @cached_property
    def marker_tokens(self) -> frozenset[str]:
        # A classification is how a rule is worded ("算作" = "视为" = "is treated as"), not
        # what it says: opposed to an exclusion, never counted as a word.
        return frozenset(f"<{m}>" for m in self.markers if m not in ("cls", "only"))

    @cached_property
    def words(self) -> frozenset[str]:
        """Content words and named entities: what a substitution is read from."""
        return self.tokens | self.slot("entity")

    @cached_property
    def cjk_chars(self) -> frozenset[str]:
        return frozenset(ch for t in self.tokens if not t.isascii() for ch in t)

    def _slot_tokens(self, names: tuple[str, ...]) -> frozenset[str]:
        return frozenset(f"{s}:{v}" for s in names for v in self.slot(s))


# One name per kind of unit in both languages: 3号产线 = 3号线 = "line 3".
_UNIT_NOUN = {"产线": "line", "生产线": "line", "线": "line", "仓库": "warehouse", "仓": "warehouse",
              "库": "warehouse", "机台": "machine", "机": "machine", "楼": "building",
              "门店": "store", "店": "store", "车间": "workshop", "工位": "station", "班组": "team"}  # fmt: skip


def _slot_value(slot: str, value: str, match: re.Match[str]) -> str:
    if value:
        return value
    groups = [g for g in match.groups() if g] or [match.group(0)]
    if slot == "time":
        return _time_value(match)
    if slot == "date":
        return _date_value(groups)
    if slot == "unit":
        first, second = groups[0], groups[1]
        name_first = not (first.isdigit() or _is_unit_name(first))
        noun, num = (first, second) if name_first else (second, first)
        return f"{_UNIT_NOUN.get(noun, noun)}{_unit_number(num)}"
    if slot == "period":
        g = groups[0].replace(" ", "")
        if g in "一二三四" or g in "1234":
            return f"q{_ZH_NUM.get(g, 0) or int(g)}"
        return g
    return groups[0].replace(" ", "").replace("-", "")


def _is_unit_name(word: str) -> bool:
    """A number, numeral or letter that names a unit (see the round-six unit rules)."""
    return (
        word.isdigit()
        or word in _ROMAN
        or word.startswith("@")
        or (len(word) == 1 and "a" <= word <= "h")
        or all(ch in _ZH_NUM for ch in word)
    )


def _unit_number(word: str) -> str:
    if word.isdigit():
        return str(int(word))
    if word in _ROMAN:
        return str(_ROMAN[word])
    if all(ch in _ZH_NUM for ch in word):
        return str(_zh_number(word))
    return word.lstrip("@")  # a letter: "plan a", a类


def _time_value(match: re.Match[str]) -> str:
    g = match.groups()
    hour = int(g[0])
    minute = 0
    if len(g) >= 2 and g[1]:
        minute = 30 if g[1] == "半" else int(re.sub(r"\D", "", g[1]) or 0)
    if len(g) >= 3 and g[2] == "pm" and hour < 12:
        hour += 12
    if len(g) >= 3 and g[2] == "am" and hour == 12:
        hour = 0  # 12am is midnight (round twelve)
    return f"{hour:02d}:{minute:02d}"


def _month(word: str) -> int:
    if word.isdigit():
        return int(word)
    for i, name in enumerate(_MONTHS, 1):
        if name.startswith(word[:3]):
            return i
    return 0


def _date_value(groups: list[str]) -> str:
    if len(groups) == 1:
        return f"m{_month(groups[0])}"
    first, second = groups[0], groups[1]
    if first.isdigit() and not second.isdigit():  # "1 of april"
        return f"m{_month(second)}d{int(first)}"
    if first == "first":
        return f"m{_month(second)}d1"
    return f"m{_month(first)}d{int(second)}"


# Only the rules that can match a text run (one scan for their literals, :mod:`..regex_gate`):
# a typical text can be matched by about 7 of these 270, and each sub costs a scan.
_REWRITES_GATE = RuleGate([p for p, _ in _REWRITES])
_AFTER_GATE = RuleGate([p for p, _ in _AFTER_NUMBERS])
_SLOT_GATE = RuleGate([rule[2] for rule in _SLOT_RULES])
_MARKER_GATE = RuleGate([p for _, p in _MARKERS])


# Large enough for a queue of thousands of pending proposals plus the approved entries:
# every listing and every new proposal compares against all of them.
@lru_cache(maxsize=32768)
def analyse(text: str) -> Analysed:
    raw = " ".join(text.split())
    entities = {m.group(1).casefold() for m in _ENTITY_RE.finditer(raw)}
    # A capital letter after a naming noun names a unit ("Plan A", "Arm B"): marked before the
    # text is lower-cased, where it would read as the article "a".
    raw = _LETTER_UNIT_RE.sub(lambda m: f"{m.group(1)} @{m.group(2).casefold()}", raw)
    # Round eleven: numbers in words are digits before anything reads them ("forty-five",
    # 一百二十, 十小时), and durations and shares one form once they are (identity_values).
    norm = spell_numbers(normalize(raw))
    norm = _REWRITES_GATE.run(norm, lambda i, t: _REWRITES[i][0].sub(_REWRITES[i][1], t))
    norm = _EN_NUM_RE.sub(lambda m: str(_EN_NUM[m.group(0)]), norm)
    norm = _ZH_NUM_RE.sub(lambda m: str(_zh_number(m.group(1))), norm)
    norm = _AFTER_GATE.run(norm, lambda i, t: _AFTER_NUMBERS[i][0].sub(_AFTER_NUMBERS[i][1], t))
    norm = canonical_values(norm)
    key = norm
    # A contrast names the alternative a rule turns down ("use the median, not the mean", "in
    # UTC rather than local time", 以UTC为准，不用当地时间): not a negation of the rule itself.
    # Its words are kept aside, compared by relate() with what the other text asserts.
    alternative: set[str] = set()
    for m in _CONTRAST_RE.finditer(norm):
        alternative |= _plain_words(m.group(1))
    for m in _CONTRAST_AFTER_ZH.finditer(norm):
        alternative |= _plain_words(m.group(1))
    if alternative:
        norm = _CONTRAST_AFTER_ZH.sub(" ", _CONTRAST_RE.sub(" ", norm))
        alternative -= _plain_words(norm)
    norm_main = norm
    separators = _separator_count(norm)
    slots: dict[str, set[str]] = {}

    def slot_step(i: int, norm: str) -> str:
        slot, value, pattern = _SLOT_RULES[i]

        def take(m: re.Match[str], slot: str = slot, value: str = value) -> str:
            name = slot
            got = _slot_value(slot, value, m)
            if slot == "ident":  # an identifier is a column by its suffix, else a table
                name = (
                    "column"
                    if re.search(r"_(?:id|date|hour|day|at|ts|time|no|key)$", got)
                    else "table"
                )
            slots.setdefault(name, set()).add(got)
            if slot == "grain":
                if _grain_names(m.string, m.start(), m.end()):
                    slots.setdefault("grain@mod", set()).add(got)
            elif (
                slot in MODIFIER_SLOTS
                and not (slot == "date" and "d" in got)  # a day is a deadline, not a subject
                and m.group(0).split()[0] not in _ARG_BEFORE_EN  # "in may"
                and _modifies_noun(m.string, m.start(), m.end())
            ):
                slots.setdefault(f"{slot}@mod", set()).add(got)
            return " "

        return pattern.sub(take, norm)

    norm = _SLOT_GATE.run(norm, slot_step)
    included, excluded = _scoped(norm)
    markers: set[str] = set()
    negated = False

    def marker_step(i: int, norm: str) -> str:
        nonlocal negated
        marker, pattern = _MARKERS[i]
        if not pattern.search(norm):
            return norm
        if marker == "neg":
            # Round six: two negations in one clause cancel ("does not mean no discount",
            # 不合格的产品禁止出货 against 不合格的产品可以出货); one repeated in another clause
            # still says no ("… separately; do not combine them").
            negated = any(len(pattern.findall(clause)) % 2 == 1 for clause in _CLAUSES.split(norm))
        else:
            markers.add(marker)
        return pattern.sub(" ", norm)

    norm = _MARKER_GATE.run(norm, marker_step)
    for pattern, word in _PHRASES_EN:
        norm = pattern.sub(word, norm)
    norm = _FILLER_EN_RE.sub(" ", norm)
    norm = _ZH_SYN_RE.sub(lambda m: " " + _ZH_SYNONYMS[m.group(0)] + " ", norm)
    norm = _FILLER_ZH_RE.sub(" ", norm)
    norm = _LIGHT_ZH_RE.sub(" ", norm)
    numbers = set(_NUMBER_RE.findall(norm))
    if numbers:
        slots.setdefault("number", set()).update(numbers)
        norm = _NUMBER_RE.sub(" ", norm)
    left = set(re.findall(r"[a-z0-9]+", norm))
    entities = {w for w in entities if w in left and search_word(w) is not None}
    if entities:
        slots["entity"] = entities
    tokens: set[str] = set()
    sequence: list[str] = []  # tokens and named entities in the order of the text
    stream: list[str] = []  # the same, a Chinese word as its characters
    runs: list[str] = []
    for cjk, word in _TOKEN_RE.findall(norm):
        if cjk:
            here = _cjk_runs(cjk)
            runs.extend(here)
            stream.extend(ch for run in here for ch in run if ch not in _STREAM_SKIP)
            words = _cjk_words(cjk)
            tokens.update(words)
            sequence.extend(words)
            continue
        stem = search_word(_WORD_SYNONYMS.get(word, word))
        if stem is None:
            continue
        if stem in entities or word in entities:
            sequence.append(word if word in entities else stem)
            stream.append(sequence[-1])
            # Also a word: a name capitalised in one text ("Join CRM data") and first in the
            # other ("CRM data joins") is one word of both.
            tokens.add(stem)
            continue
        stem = _WORD_SYNONYMS.get(stem, stem)
        if stem.endswith("ison") and len(stem) > 7:  # "comparison" is "compare"
            stem = stem[:-4]
        if stem not in _LIGHT_STEMS:
            tokens.add(stem)
            sequence.append(stem)
            stream.append(stem)
    return Analysed(
        key=key,
        tokens=frozenset(tokens),
        slots={k: frozenset(v) for k, v in slots.items()},
        markers=frozenset(markers),
        negated=negated,
        separators=separators,
        sequence=tuple(sequence),
        cjk_runs=tuple(runs),
        alternative=frozenset(alternative),
        main_words=_plain_words(norm_main),
        included=included,
        excluded=excluded,
        order=_order(key),
        stream=tuple(stream),
    )


# 至 is 到 ("to", 7点至9点 = 七点到九点), a function character _CJK_BREAK leaves in words only
# because 至少 / 甚至 are read as words elsewhere.
_STREAM_SKIP = frozenset("至")


def _cjk_runs(run: str) -> list[str]:
    """The Chinese words of a run: its characters between function characters."""
    out: list[str] = []
    word = ""
    for ch in run + "的":
        if ch in _CJK_BREAK:
            if word:
                out.append(word)
            word = ""
        else:
            word += ch
    return out


# Clauses for the scope of an inclusion or exclusion: a comma of a list ("talk, hold and
# after-call work") does not end one; "but" / 但 does.
_SCOPE_BREAKS = re.compile(r"[;:；：。.!?]|\bbut\b|但|而")


def _scope_clauses(text: str) -> list[str]:
    """``text`` cut at each clause break, and at each comma that is not a list's."""
    listed = _list_commas(text)
    cuts = [m.span() for m in _SCOPE_BREAKS.finditer(text)]
    cuts += [(i, i + 1) for i, ch in enumerate(text) if ch in ",，" and i not in listed]
    cuts.sort()
    out, at = [], 0
    for start, stop in cuts:
        out.append(text[at:start])
        at = stop
    out.append(text[at:])
    return out


_SCOPE_MARKERS = (
    ("excl", (_en(_EXCL_EN), _zh(_EXCL_ZH))),
    ("incl", (_en(_INCL_EN), _zh(_INCL_ZH))),
)


def _scoped(norm: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words included and excluded by the clauses of ``norm``: each inclusion's or
    exclusion's scope runs from it to the next one ("include X", 不含X), or back to the one
    before when nothing follows (政府补贴也计入) or it names the whole after it ("X are excluded
    from Y", "X is not part of Y"). An exclusion holds its inclusion ("does not include")."""
    found: dict[str, set[str]] = {"incl": set(), "excl": set()}
    for clause in _scope_clauses(norm):
        spans: list[tuple[int, int, str]] = []
        for marker, patterns in _SCOPE_MARKERS:
            for pattern in patterns:
                for m in pattern.finditer(clause):
                    if not any(a < m.end() and m.start() < b for a, b, _ in spans):
                        spans.append((m.start(), m.end(), marker))
        spans.sort()
        for k, (start, end, marker) in enumerate(spans):
            before = clause[spans[k - 1][1] if k else 0 : start]
            after = clause[end : spans[k + 1][0] if k + 1 < len(spans) else len(clause)]
            whole = _WHOLE_AFTER.match(after) or clause[start:end].endswith((" of", " in"))
            # "exclude weekends from the metric": the scope ends at the whole it is taken from.
            words = set() if whole else _plain_stems(_WHOLE_AFTER.split(after, 1)[0])
            if not words and (whole or k + 1 == len(spans)):
                words = _plain_stems(before)
            found[marker].update(words)
    return frozenset(found["incl"]), frozenset(found["excl"])


_WHOLE_AFTER = re.compile(r"\s*\b(?:from|in|of|into)\b")


_ORDER_EN = re.compile(r"\b(?:(before|prior to|ahead of)|(after|following))\s+(.*)")
_ORDER_ZH = re.compile(rf"([{_CJK}]{{2,}})(?:(之前|以前|前)|(之后|以后|后))(?=的|[，。,;；]|$)")


def _order(key: str) -> frozenset[tuple[str, str]]:
    """Each "before" / "after" of ``key`` and the first word it orders against: after it in
    English ("before any contract" → contract), before it in Chinese (扣除佣金后 → 佣金)."""
    out: set[tuple[str, str]] = set()
    for m in _ORDER_EN.finditer(key):
        words = [w for _, w in _TOKEN_RE.findall(m.group(3))[:4] if w]
        stem = next((st for w in words if (st := search_word(w)) is not None), None)
        if stem is not None:
            out.add(("before" if m.group(1) else "after", stem))
    # (Only a text with 前 or 后 is searched: the pattern scans a run of Chinese from each
    # of its characters, quadratic in the run's length.)
    for m in _ORDER_ZH.finditer(key) if "前" in key or "后" in key else ():
        out.add(("before" if m.group(2) else "after", m.group(1)[-2:]))
    return frozenset(out)


def _plain_stems(text: str) -> set[str]:
    out: set[str] = set()
    for cjk, word in _TOKEN_RE.findall(text):
        if cjk:
            out.update(_cjk_words(cjk))
        elif (stem := search_word(_WORD_SYNONYMS.get(word, word))) is not None:
            out.add(_WORD_SYNONYMS.get(stem, stem))
    return out


def _cjk_words(run: str) -> list[str]:
    out: list[str] = []
    word = ""
    for ch in run + "的":
        if ch in _CJK_BREAK:
            if len(word) == 1:
                out.append(word)
            else:
                out.extend(word[i : i + 2] for i in range(len(word) - 1))
            word = ""
        else:
            word += ch
    return out


__all__ = [
    "MODIFIER_SLOTS",
    "ONE_SIDED_SLOTS",
    "SUBJECT_SLOTS",
    "VALUE_SLOTS",
    "Analysed",
    "analyse",
]
