"""The deterministic reorganizer never loses a rule, and any reorganized text is held to the rules."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jupyter_memory.core.knowledge.context import CATALOG_THRESHOLD
from jupyter_memory.core.knowledge.format import (
    Entry,
    KnowledgeDoc,
    chars_of,
    parse_knowledge,
    render_knowledge,
)
from jupyter_memory.core.knowledge.keys import dedup_key
from jupyter_memory.core.knowledge.reorganize import (
    condense,
    needs_preinject_reorganize,
    reorganize_doc,
)
from jupyter_memory.core.knowledge.reorganize_check import (
    OTHER_SHARE_MAX,
    ReorganizeError,
    check_reorganized,
    is_other_label,
)
from jupyter_memory.core.knowledge.reorganize_result import strict_same_entry

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
from reorganize_rules import (  # noqa: E402
    INFO_FACTS,
    knowledge_text,
    region_table_chart_rules,
)


def keys(doc: KnowledgeDoc) -> list[str]:
    return sorted(dedup_key(condense(leaf)) for _, leaf in doc.leaves())


def test_only_true_duplicates_are_merged_and_only_filler_condensed() -> None:
    doc = parse_knowledge(
        "## Rules\n- Note that revenue excludes refunds!!\n- revenue excludes refunds\n"
        "- Revenue must exclude refunds\n- Always use UTC\n"
        "## Info\n- 收入不含退款\n- 收入 不含 退款。\n"
    )
    res = reorganize_doc(doc, "user")
    assert not res.grouped
    # a rewording is not a *true* duplicate for the strict default: it stays
    assert [e.text for e in res.doc.rules] == [
        "Revenue excludes refunds!",
        "Revenue must exclude refunds",
        "Always use UTC",
    ]
    assert [e.text for e in res.doc.info] == ["收入不含退款"]
    assert [(m.section, m.kept, m.removed) for m in res.merged] == [
        ("rules", "Revenue excludes refunds!", "revenue excludes refunds"),
        ("info", "收入不含退款", "收入 不含 退款。"),
    ]
    assert all("normalised" in m.reason for m in res.merged)
    assert [(c.before, c.after) for c in res.condensed] == [
        ("Note that revenue excludes refunds!!", "Revenue excludes refunds!")
    ]
    assert res.to_dict()["merged"][0]["reason"] == res.merged[0].reason


def test_the_same_entry_test_is_a_parameter() -> None:
    def same_unless_must(a: str, b: str) -> str | None:
        norm = [dedup_key(t).replace("must exclude", "excludes") for t in (a, b)]
        return "same rule, one with 'must'" if norm[0] == norm[1] else None

    doc = parse_knowledge(
        "## Rules\n- Revenue excludes refunds\n- Revenue must exclude refunds\n## Info\n"
    )
    assert strict_same_entry("Revenue excludes refunds", "Revenue must exclude refunds") is None
    res = reorganize_doc(doc, "user", same_entry=same_unless_must)
    assert [e.text for e in res.doc.rules] == ["Revenue excludes refunds"]
    assert res.merged[0].reason == "same rule, one with 'must'"


def test_thirty_distinct_rules_in_thirty_rules_out() -> None:
    rules = region_table_chart_rules()[:30]
    doc = parse_knowledge(knowledge_text(rules, []))
    assert chars_of(doc) >= CATALOG_THRESHOLD["user"] - 500
    for layer in ("user", "project"):
        res = reorganize_doc(doc, layer)
        assert res.leaves_after == 30 and not res.merged
        assert keys(res.doc) == keys(doc)
        assert res.chars_after <= res.chars_before


def test_the_issue_example_regions_tables_charts_keeps_all_and_groups_by_a_shared_word() -> None:
    rules = region_table_chart_rules(filler=True)
    assert len(rules) == 32
    doc = parse_knowledge(knowledge_text(rules))
    assert chars_of(doc) >= CATALOG_THRESHOLD["user"]
    res = reorganize_doc(doc, "user")
    assert res.leaves_after == res.leaves_before == 40 and not res.merged
    assert keys(res.doc) == keys(parse_knowledge(knowledge_text([condense(r) for r in rules])))
    assert res.chars_after <= res.chars_before  # never longer
    assert res.groups and res.other_share == 0
    for group in res.groups:
        entry = next(e for e in res.doc.section(group.section) if e.text == group.label)
        assert len(entry.children) == group.entries >= 2
        # the label names what its members share: the word is in each of them
        assert all(group.shared.casefold()[:5] in c.casefold() for c in entry.children)
    # what shares nothing with another entry stays flat, in Info too
    assert [e.text for e in res.doc.info] == INFO_FACTS


def test_never_longer_a_clean_flat_file_is_left_as_it_is() -> None:
    doc = parse_knowledge(knowledge_text(region_table_chart_rules()))
    assert needs_preinject_reorganize(doc, "user")
    res = reorganize_doc(doc, "user")
    assert res.text == render_knowledge(doc) and not res.changed and not res.groups


def test_an_old_other_bucket_is_opened_up_and_regrouped() -> None:
    rules = region_table_chart_rules(filler=True)
    doc = KnowledgeDoc(
        (
            Entry("Region", tuple(rules[:4])),
            Entry("Charts", tuple(rules[16:21])),
            Entry("Other rules", tuple(rules[4:16] + rules[21:])),
        ),
        (Entry("Other info", tuple(INFO_FACTS)),),
    )
    before = len(doc.leaves())
    assert before == 40
    res = reorganize_doc(doc, "user")
    assert res.leaves_after == before
    assert res.other_share <= OTHER_SHARE_MAX
    assert not any(is_other_label(e.text) for _, es in (("r", res.doc.rules),) for e in es)
    assert [e.text for e in res.doc.info] == INFO_FACTS  # flat, nothing hidden
    assert res.chars_after <= res.chars_before
    region = next(e for e in res.doc.rules if e.text == "Region")
    assert region.children[:4] == tuple(condense(r) for r in rules[:4])  # kept groups stay


def test_groups_never_form_below_the_catalog_threshold() -> None:
    doc = parse_knowledge(knowledge_text(region_table_chart_rules(filler=True)[:8], []))
    assert chars_of(doc) < CATALOG_THRESHOLD["user"]
    res = reorganize_doc(doc, "user")
    assert not res.grouped and res.leaves_after == 8


def test_other_labels() -> None:
    for label in (
        "Other rules",
        "Other info",
        "Misc",
        "Miscellaneous",
        "其他规则",
        "其他",
        "General",
    ):
        assert is_other_label(label), label
    for label in ("Revenue", "orders_daily", "收入", "Otherwise"):
        assert not is_other_label(label), label


BEFORE = "## Rules\n- Note that revenue excludes refunds\n- Always use UTC\n## Info\n- GMV includes tax\n"


def test_any_result_is_refused_with_the_reason() -> None:
    before = parse_knowledge(BEFORE)
    with pytest.raises(ReorganizeError, match="not a valid knowledge file"):
        check_reorganized(before, "Here is your file:\n## Rules\n- x\n")
    with pytest.raises(ReorganizeError, match="exactly the sections"):
        check_reorganized(before, "## Rules\n- Revenue excludes refunds\n## Facts\n- GMV\n")
    with pytest.raises(ReorganizeError, match="dropped the entry 'GMV includes tax'"):
        check_reorganized(before, "## Rules\n- Revenue excludes refunds\n- Always use UTC\n")
    with pytest.raises(ReorganizeError, match="added an entry"):
        check_reorganized(
            before,
            "## Rules\n- Revenue excludes refunds\n- UTC\n- Use EUR\n## Info\n- GMV includes tax\n",
        )
    with pytest.raises(ReorganizeError, match="longer than the file"):
        check_reorganized(
            before,
            "## Rules\n- Revenue\n  - Note that revenue excludes refunds\n- Time\n"
            "  - Always use UTC\n## Info\n- GMV includes tax\n",
        )
    many = parse_knowledge(
        knowledge_text([f"Note that rule {i} is about table t{i}" for i in range(10)], [])
    )
    bucket = "## Rules\n\n- Other\n" + "".join(
        f"  - Rule {i} is about table t{i}\n" for i in range(3)
    )
    bucket += "".join(f"- Rule {i} is about table t{i}\n" for i in range(3, 10))
    with pytest.raises(ReorganizeError, match="30% of the entries under an 'other' label"):
        check_reorganized(many, bucket)


def test_a_result_that_condenses_and_merges_within_the_rules_is_accepted() -> None:
    before = parse_knowledge(BEFORE.replace("## Info", "- always use UTC.\n## Info"))
    res = check_reorganized(
        before,
        "## Rules\n- Revenue excludes refunds\n- Always use UTC\n## Info\n- GMV includes tax\n",
    )
    assert res.leaves_after == 3 and res.leaves_before == 4
    assert [m.removed for m in res.merged] == ["always use UTC."]
    assert [c.after for c in res.condensed] == ["Revenue excludes refunds"]
