"""Round six: the identity decision's cosine thresholds are per language.

e5's cosines of Chinese pairs run higher than of English ones, paraphrase or not, so each
language has its own (chosen by leave-one-set-out, ``identity_bench.py --calibrate``). The
cosine is given here as a constant: what is tested is which threshold a pair meets.
"""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.identity import (
    SEMANTIC_REWORDING_AT,
    SEMANTIC_SAME_AT,
    Relation,
    language,
    relate,
)
from jupyter_memory.core.knowledge.identity_analysis import analyse


def test_a_pair_is_chinese_when_either_text_holds_chinese() -> None:
    assert language("Crew hours are logged.", "Crew hours are logged per duty.") == "en"
    assert language("电表读数每月抄录一次。", "Meter reads are taken monthly.") == "zh"
    assert language("Report in USD", "以美元报告") == "zh"


def test_the_thresholds_differ_by_language() -> None:
    assert SEMANTIC_SAME_AT["en"] < SEMANTIC_SAME_AT["zh"]
    assert SEMANTIC_REWORDING_AT["en"] < SEMANTIC_REWORDING_AT["zh"]


@pytest.mark.parametrize(
    ("new", "known", "below", "at"),
    [
        # A paraphrase whose words half meet: the "same" threshold of its language.
        ("Crew hours are logged.", "Crew hours are logged per duty period on board.", 0.915, 0.93),
        ("电表读数每月抄录一次。", "每个月抄一次电表的读数。", 0.93, 0.96),
        # Words on both sides, moved around the frame: the rewording threshold.
        (
            "Fuel uplift is entered per flight leg.",
            "Per flight leg, the crew writes down the fuel uplift.",
            0.93,
            0.96,
        ),
        ("行李索赔在21天内处理完毕。", "行李索赔须由航空公司在航班后21天内处理。", 0.96, 0.975),
    ],
)
def test_each_language_meets_its_own_threshold(
    new: str, known: str, below: float, at: float
) -> None:
    assert relate(new, known, lambda a, b: below).kind is Relation.RELATED
    assert relate(new, known, lambda a, b: at).kind is Relation.SAME


def test_a_chinese_meter_is_not_a_table() -> None:
    # 电表 / 抄表 are a meter and its reading, not a table named by the word before 表.
    assert analyse("每一条抄表数据在计费前校验。").slot("table") == frozenset()
    assert analyse("居民电表的读数在月底前上报。").slot("table") == frozenset()
    assert analyse("订单表每天刷新。").slot("table") == frozenset({"订单"})
