"""The identity gate (core/knowledge/identity_gate.py) never rules out a pair relate would relate.

Reorganize asks whether every pair of a file's rules is one entry; the gate
answers most of them with two cached sets. It may let through pairs relate then
calls unrelated, never the reverse: checked over the committed labelled pairs,
every cross pair of their texts, and generated rules in both languages.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.knowledge.identity import SAME_AT, Relation, relate, same_entry
from jupyter_memory.core.knowledge.identity_gate import may_be_same, may_relate

SAMPLE = Path(__file__).parents[1] / "data" / "identity_pairs_sample.json"


def _texts() -> list[str]:
    pairs = json.loads(SAMPLE.read_text(encoding="utf-8"))["pairs"]
    return sorted({t for p in pairs for t in (p["a"], p["b"])})


def _check(a: str, b: str) -> None:
    found = relate(a, b)
    if not may_relate(a, b):
        assert found.kind is Relation.UNRELATED, (a, b, found)
    if not may_be_same(a, b, SAME_AT):
        assert found.kind is not Relation.SAME, (a, b, found)
        assert not same_entry(a, b)


def test_no_pair_of_the_labelled_texts_is_ruled_out_wrongly():
    texts = _texts()
    ruled_out = 0
    for a, b in itertools.permutations(texts, 2):
        _check(a, b)
        ruled_out += not may_be_same(a, b, SAME_AT)
    # The gate has work to do here: most cross pairs are other rules.
    assert ruled_out > len(texts) ** 2 // 2


SUBJECTS = ["Revenue", "Net revenue", "GMV", "Refunds", "The orders table", "North region sales",
            "South region sales", "收入", "净收入", "退款", "华北区销售额", "订单表"]  # fmt: skip
VERBS = ["excludes", "includes", "must exclude", "is refreshed at", "is not counted in",
         "不含", "包含", "不计入", "每天刷新于"]  # fmt: skip
OBJECTS = ["refunds", "test accounts", "6am", "7am", "taxes", "Q3", "退款", "测试账户", "早上6点",
           "the orders table", "GMV"]  # fmt: skip
RULE = st.builds(
    lambda s, v, o, tail: f"{s} {v} {o}{tail}",
    st.sampled_from(SUBJECTS),
    st.sampled_from(VERBS),
    st.sampled_from(OBJECTS),
    st.sampled_from(["", ".", " always.", " (GMV)", "。", " in the weekly report"]),
)


@settings(max_examples=300, deadline=None)
@given(RULE, RULE)
def test_generated_rules_are_never_ruled_out_wrongly(a: str, b: str):
    _check(a, b)


def test_rules_about_other_tables_are_ruled_out_and_paraphrases_are_not():
    assert not may_be_same(
        "Note that rule 0 holds for table t0", "Note that rule 1 holds for table t1", SAME_AT
    )
    assert may_be_same("Revenue excludes refunds.", "Refunds are not part of revenue.", SAME_AT)
    assert may_be_same("收入不含退款", "退款不计入收入", SAME_AT)
    assert may_relate("GMV excludes refunds", "Gross merchandise value excludes refunds")
    assert not may_relate("Weeks start on Monday", "收入不含退款")
