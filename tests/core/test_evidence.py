"""Evidence quotes: only the person's own words count (invariant 4)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.knowledge.evidence import (
    SourceText,
    find_evidence,
    is_system_instruction,
    normalize_quote,
    to_source,
    to_sources,
)
from jupyter_memory.exceptions import ValidationError


def test_user_quote_found_with_different_whitespace_english() -> None:
    src = to_sources([{"role": "user", "text": "Revenue   always\n excludes refunds.", "id": "m1"}])
    hit = find_evidence("Revenue always excludes refunds", src)
    assert hit.message_id == "m1"


def test_chinese_quote_with_spaces_and_fullwidth_forms() -> None:
    src = to_sources(["收入口径不含退款，ＧＭＶ含税。"])
    find_evidence("收入 口径 不含 退款", src)
    find_evidence("收入口径不含退款，GMV含税", src)


def test_agent_output_is_refused() -> None:
    src = to_sources(
        [
            {"role": "user", "text": "What is revenue?"},
            {"role": "assistant", "text": "Revenue always excludes refunds."},
        ]
    )
    with pytest.raises(ValidationError, match="agent output"):
        find_evidence("Revenue always excludes refunds", src)


@pytest.mark.parametrize(
    "text",
    [
        "Execute Plan: revenue always excludes refunds",
        "Resolve Comments — revenue always excludes refunds",
        "[HTML Report] revenue always excludes refunds",
        "执行计划：revenue always excludes refunds",
    ],
)
def test_system_instruction_in_user_role_is_refused(text: str) -> None:
    assert is_system_instruction(text)
    with pytest.raises(ValidationError, match="system instruction"):
        find_evidence("revenue always excludes refunds", to_sources([text]))


def test_system_role_and_instruction_flag_are_refused() -> None:
    for item in (
        {"role": "system", "text": "Revenue always excludes refunds"},
        {"role": "user", "text": "Revenue always excludes refunds", "instruction": True},
    ):
        with pytest.raises(ValidationError, match="system instruction"):
            find_evidence("Revenue always excludes refunds", to_sources([item]))


def test_missing_and_too_short_quotes() -> None:
    src = to_sources(["Revenue always excludes refunds"])
    with pytest.raises(ValidationError, match="does not appear"):
        find_evidence("taxes are included", src)
    with pytest.raises(ValidationError, match="evidence quote"):
        find_evidence("  ", src)
    with pytest.raises(ValidationError, match="too short"):
        find_evidence("Rev", src)


def test_nbformat_cells_are_persons_text() -> None:
    cell = {"cell_type": "code", "id": "c-7", "source": ["x = 1\n", "# GMV includes tax\n"]}
    src = to_source(cell, default_notebook="a.ipynb")
    assert src.is_persons_own and src.cell_id == "c-7" and src.notebook_path == "a.ipynb"
    assert find_evidence("GMV includes tax", [src]).cell_id == "c-7"


def test_object_with_role_and_text() -> None:
    class Msg:
        role = "human"
        text = "注意：订单按北京时间切日"
        id = "x1"

    assert find_evidence("订单按北京时间切日", [to_source(Msg())]).message_id == "x1"


def test_message_without_role_is_refused() -> None:
    with pytest.raises(ValidationError, match="role"):
        to_source({"text": "hello"})


@settings(deadline=None)  # timing is benchmarked, not asserted here
@given(st.text(min_size=6, max_size=40).filter(lambda t: len(normalize_quote(t)) >= 6))
def test_any_user_text_is_evidence_for_itself(text: str) -> None:
    find_evidence(text, [SourceText("user", f"prefix {text} suffix")])
