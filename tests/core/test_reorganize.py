"""The deterministic reorganizer and validation of any reorganized result."""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.context import CATALOG_THRESHOLD
from jupyter_memory.core.knowledge.format import (
    Entry,
    KnowledgeDoc,
    chars_of,
    parse_knowledge,
    render_knowledge,
)
from jupyter_memory.core.knowledge.reorganize import (
    ReorganizeError,
    condense,
    label_for,
    needs_preinject_reorganize,
    reorganize_doc,
    validate_reorganized,
)

SUBJECTS = ["Revenue", "DAU", "GMV", "Churn", "收入", "订单"]


def big_doc(n: int = 80) -> KnowledgeDoc:
    rules = tuple(
        Entry(f"{SUBJECTS[i % 6]} must follow check number {i} for the region {i * 7}")
        for i in range(n)
    )
    return KnowledgeDoc(rules, (Entry("GMV 定义为含税成交额"),))


def test_small_file_dedupes_and_condenses_without_grouping() -> None:
    doc = parse_knowledge(
        "## Rules\n- Note that revenue excludes refunds!!\n- revenue excludes refunds\n"
        "- Always use UTC\n## Info\n- 收入不含退款\n- 收入 不含 退款。\n"
    )
    res = reorganize_doc(doc, "user")
    assert not res.grouped and res.duplicates_removed == 2
    assert [e.text for e in res.doc.rules] == ["Revenue excludes refunds!", "Always use UTC"]
    assert [e.text for e in res.doc.info] == ["收入不含退款"]


def test_large_file_is_regrouped_under_labels() -> None:
    doc = big_doc()
    assert chars_of(doc) >= CATALOG_THRESHOLD["user"]
    assert needs_preinject_reorganize(doc, "user")
    res = reorganize_doc(doc, "user")
    assert res.grouped and res.doc.has_groups
    labels = [e.text for e in res.doc.rules]
    assert "Revenue" in labels and "收入" in labels
    assert res.doc.leaf_count("rules") == 80  # nothing lost
    assert not needs_preinject_reorganize(res.doc, "user")
    assert parse_knowledge(res.text) == res.doc


def test_existing_groups_are_kept() -> None:
    doc = KnowledgeDoc(
        (Entry("Calendar", ("Q1 starts in Feb", "Q4 ends in Jan")),) + big_doc().rules, ()
    )
    res = reorganize_doc(doc, "user")
    cal = next(e for e in res.doc.rules if e.text == "Calendar")
    assert cal.children == ("Q1 starts in Feb", "Q4 ends in Jan")


def test_labels() -> None:
    assert label_for("Revenue excludes refunds") == "Revenue"
    assert label_for("The fiscal year must start in February") == "Fiscal year"
    assert label_for("收入口径不含退款") == "收入"
    assert condense("FYI: GMV  includes tax..") == "GMV includes tax."


def test_invalid_results_are_refused() -> None:
    before = parse_knowledge("## Rules\n- Revenue excludes refunds\n## Info\n- GMV includes tax\n")
    with pytest.raises(ReorganizeError, match="not a valid knowledge file"):
        validate_reorganized(before, "Here is your file:\n## Rules\n- x\n")
    with pytest.raises(ReorganizeError, match="exactly the sections"):
        validate_reorganized(
            before, "## Rules\n- Revenue excludes refunds\n## Facts\n- GMV includes tax\n"
        )
    with pytest.raises(ReorganizeError, match="dropped the entry"):
        validate_reorganized(before, "## Rules\n- Revenue excludes refunds\n## Info\n")
    with pytest.raises(ReorganizeError, match="save limit"):
        validate_reorganized(
            before,
            render_knowledge(
                KnowledgeDoc(
                    (Entry("Revenue excludes refunds " * 400),), (Entry("GMV includes tax"),)
                )
            ),
        )
    ok = validate_reorganized(
        before, "## Rules\n- Revenue\n  - Revenue excludes refunds\n## Info\n- GMV includes tax\n"
    )
    assert "  - Revenue excludes refunds" in ok
