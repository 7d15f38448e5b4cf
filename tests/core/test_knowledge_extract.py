"""Deterministic extraction, dedup/supersede and the execution-state check."""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.dedup import decide_duplicate
from jupyter_memory.core.knowledge.evidence import find_evidence, to_sources
from jupyter_memory.core.knowledge.extract import (
    classify,
    execution_state_reason,
    extract_candidates,
)
from jupyter_memory.core.knowledge.keys import dedup_hash
from jupyter_memory.core.knowledge.known import Known
from jupyter_memory.core.knowledge.word_overlap import DUPLICATE_AT, REWORDING_AT, similarity


def test_only_marked_notes_are_extracted_in_english_and_chinese() -> None:
    src = to_sources(
        [
            "Hello there. Revenue must always exclude refunds. Is DAU daily?",
            "rule: revenue always excludes refunds",
            {
                "cell_type": "code",
                "id": "c1",
                "source": "x = 1\n# note: GMV is defined as gross sales\n# must re-run this\n",
            },
            {
                "cell_type": "markdown",
                "id": "c2",
                "source": "## 口径\n- 收入口径不含退款。我们必须使用北京时间。\n- 口径：收入不含退款",
            },
        ]
    )
    cands = extract_candidates(src)
    assert [(c.kind, c.text) for c in cands] == [
        ("rule", "Revenue always excludes refunds"),
        ("info", "GMV is defined as gross sales"),
        ("info", "收入不含退款"),
    ]
    for c in cands:  # the marked line is the quote: it always passes the evidence check
        assert find_evidence(c.quote, src) is not None


def test_agent_and_instruction_messages_are_not_read() -> None:
    src = to_sources(
        [
            {"role": "assistant", "text": "You must always use UTC."},
            {"role": "system", "text": "Never reveal secrets."},
            "Execute Plan: you should always run step 2.",
            {"role": "assistant", "text": "note: always use UTC."},
        ]
    )
    assert extract_candidates(src) == []


def test_only_the_last_n_person_messages() -> None:
    msgs = [f"rule: you must check table{i} daily" for i in range(12)]
    cands = extract_candidates(to_sources(msgs))
    assert [c.text for c in cands][0] == "You must check table4 daily"
    assert len(extract_candidates(to_sources(msgs), max_messages=2)) == 2


def test_classify() -> None:
    assert classify("Never use gross revenue") == "rule"
    assert classify("DAU refers to daily active users") == "info"
    assert classify("不要用测试账号") == "rule"
    assert classify("GMV 定义为含税成交额") == "info"
    assert classify("Nice chart") is None


@pytest.mark.parametrize(
    "text",
    [
        "Always run SELECT id FROM orders WHERE x first",
        "Results are cached in tmp_orders_2024",
        "Use the temp table for joins",
        "结果存在临时表里",
        "Read /tmp/out/summary.parquet before plotting",
        "Load ./data/intermediate.csv",
        "CREATE TEMP TABLE foo AS select 1",
        "join with #staging first",
    ],
)
def test_execution_state_is_refused(text: str) -> None:
    assert execution_state_reason(text)


@pytest.mark.parametrize(
    "text",
    [
        "Revenue always excludes refunds",
        "收入不含退款",
        "Select the right region before you compare",
    ],
)
def test_knowledge_is_not_execution_state(text: str) -> None:
    assert execution_state_reason(text) is None


def test_similarity_documented_pairs() -> None:
    assert similarity("Revenue excludes refunds.", "revenue  excludes refunds") == 1.0
    assert (
        REWORDING_AT
        <= similarity("Revenue excludes refunds", "Revenue should exclude refunds")
        < DUPLICATE_AT
    )
    assert similarity("Revenue excludes refunds", "Revenue excludes taxes") < REWORDING_AT
    assert REWORDING_AT <= similarity("收入不含退款", "收入口径不含退款") < DUPLICATE_AT
    assert similarity("收入不含退款", "收入不含税费") < REWORDING_AT
    assert (
        similarity(
            "Orders before 2020 are excluded from cohorts",
            "Orders before 2021 are excluded from cohorts",
        )
        < DUPLICATE_AT
    )


def test_decide_skip_supersede_new_and_dismissed() -> None:
    known = [
        Known("Revenue excludes refunds", "knowledge", "user"),
        Known("收入不含退款", "pending", "p-1"),
    ]
    assert decide_duplicate("revenue excludes refunds!", known).action == "skip"
    assert decide_duplicate("收入 不含 退款", known).reason == "already pending as p-1"
    assert decide_duplicate("收入口径不含退款", known).reason == "already pending as p-1"
    sup = decide_duplicate("收入不含退款和拒付", known)
    assert (sup.action, sup.supersedes, sup.supersedes_text) == ("supersede", "p-1", "收入不含退款")
    assert decide_duplicate("Revenue excludes taxes", known).action == "new"
    assert decide_duplicate("DAU is daily", [], [dedup_hash("dau is daily.")]).action == "skip"
