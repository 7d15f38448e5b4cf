"""The identity analysis reads a long text in time linear in its length, with the same result.

Five of its patterns were quadratic in the length of one run of letters, digits or commas
(a hash, a base64 blob, a long number: 0.6 s for one 4,000-letter word, 1.3 s for 4,000
digits; ``benchmarks/long_text_bench.py`` has the figures). Each now starts a
match only where a word or a number starts, or counts a sentence at a time. These tests
pin that they find exactly what the patterns they replace found.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.knowledge import identity_analysis as ia
from jupyter_memory.core.regex_gate import required_literals

# The patterns as they were (the reference); the new ones are read from the module.
_IDENT = ia._IDENT
OLD_TABLE = re.compile(rf"({_IDENT}|[a-z][a-z0-9_]*)\s*表(?!示)")
OLD_TIMES = re.compile(r"(\d+(?:\.\d+)?)\s*(?:x\b|times\b|倍)")
OLD_SCALED = re.compile(r"(\d+(?:\.\d+)?)?(百万|万|千)(?=[次个人件元条笔单份])")
OLD_NUMBERED = re.compile(
    r"(\d+)\s?号(产线|生产线|线|仓库|仓|库|机台|机|航站楼|楼|门店|店|车间|工位|班组|站台|登机口)"
)
OLD_SEPARATORS = re.compile(r"、|\band\b|\bplus\b|和|以及|及|与|[,，](?=[^.。;；]*(?:\band\b|和))")

# Texts made of what the patterns look at: letters, digits, separators and the Chinese
# words they need, so that the random texts hit every branch.
_PIECES = [
    *"ab1_. ,，;；。",
    "x",
    "times",
    "倍",
    "万",
    "百万",
    "次",
    "表",
    "表示",
    "号",
    "线",
    "仓库",
    "and",
    " and ",
    "和",
    "以及",
    "plus",
    "、",
    "orders",
    "a.b",
]
texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


def _pattern(fragment: str, rules: list[re.Pattern[str]]) -> re.Pattern[str]:
    (found,) = [p for p in rules if fragment in p.pattern]
    return found


def _all_patterns() -> list[re.Pattern[str]]:
    slot = [rule[2] for rule in ia._SLOT_RULES]
    rewrites = [p for p, _ in ia._REWRITES] + [p for p, _ in ia._AFTER_NUMBERS]
    return slot + rewrites


def _spans(
    pattern: re.Pattern[str], text: str
) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


@settings(max_examples=300, deadline=None)
@given(texts)
def test_the_table_before_biao_pattern_finds_what_it_found(text: str) -> None:
    (rule,) = [r for r in ia._SLOT_RULES if r[2].pattern.endswith(r"\s*表(?!示)")]
    _, _, new = rule
    assert required_literals(new) == {"表"}  # a text without 表 is not searched
    assert _spans(new, text) == _spans(OLD_TABLE, text)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_the_number_patterns_find_what_they_found(text: str) -> None:
    patterns = _all_patterns()
    for old, fragment in [
        (OLD_TIMES, r"\s*(?:x\b|times\b|倍)"),
        (OLD_SCALED, "(百万|万|千)"),
        (OLD_NUMBERED, r"\s?号(产线"),
    ]:
        new = _pattern(fragment, patterns)
        assert new.pattern != old.pattern  # the linear one is in use
        assert _spans(new, text) == _spans(old, text), (old.pattern, text)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_separators_are_counted_as_before(text: str) -> None:
    assert ia._separator_count(text) == len(OLD_SEPARATORS.findall(text))


def test_a_long_token_is_analysed_like_a_short_one() -> None:
    """What a long run means to the analysis does not depend on how long it is."""
    for run in ("a" * 3000, "1" * 3000, "a_" * 1500, "1," * 1500):
        short = ia.analyse(f"orders 表 keeps {run[:30]} rows")
        long = ia.analyse(f"orders 表 keeps {run} rows")
        assert long.slots.get("table") == short.slots.get("table")
        assert long.separators == short.separators


OLD_SCOPE_CLAUSES = re.compile(r"[;:；：。.!?]|[,，](?![^.。;；]*(?:\band\b|和))|\bbut\b|但|而")
_CLAUSE_PIECES = [*_PIECES, "but", " but ", "但", "而", ":", "：", "!", "?", "band", "and."]
clause_texts = st.lists(st.sampled_from(_CLAUSE_PIECES), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(clause_texts)
def test_scope_clauses_are_cut_where_they_were(text: str) -> None:
    assert ia._scope_clauses(text) == OLD_SCOPE_CLAUSES.split(text)


_ZH_ORDER_PIECES = ["收入", "佣金", "扣除", "前", "后", "之前", "以后", "的", "，", "。", "a"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ZH_ORDER_PIECES), max_size=30).map("".join))
def test_before_and_after_in_chinese_are_read_as_before(text: str) -> None:
    """Only a text with 前 or 后 is searched now: nothing the pattern finds is missed."""
    found = {
        ("before" if m.group(2) else "after", m.group(1)[-2:]) for m in ia._ORDER_ZH.finditer(text)
    }
    assert ia._order(text) == found
