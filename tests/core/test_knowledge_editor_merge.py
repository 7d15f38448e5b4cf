"""The editor's merge (issue 28): git's merge by item, with both versions kept as items.

The knowledge editor asks the server for it (POST knowledge/{layer}/merge) when a
save met a newer file or a git pull left a conflict; what it returns goes into the
text box for the person to review, so it carries no conflict markers.
"""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.format import (
    INFO,
    RULES,
    Entry,
    KnowledgeDoc,
    parse_knowledge,
    render_knowledge,
)
from jupyter_memory.core.knowledge.merge import merge_for_editor, merge_knowledge
from jupyter_memory.exceptions import ParseError


def doc(rules: list[str] = (), info: list[str] = ()) -> str:  # type: ignore[assignment]
    return render_knowledge(
        KnowledgeDoc(tuple(Entry(r) for r in rules), tuple(Entry(i) for i in info))
    )


BASE = doc(["Revenue excludes refunds.", "Use UTC."], ["GMV 含税。"])


def rules(text: str) -> list[str]:
    return [e.text for e in parse_knowledge(text).rules]


def test_an_edit_and_an_apply_meanwhile_are_both_kept_as_git_would() -> None:
    mine = doc(["Revenue excludes refunds.", "金额以欧元计。", "Use UTC."], ["GMV 含税。"])
    server = doc(["Revenue excludes refunds.", "Use UTC.", "Label chart axes."], ["GMV 含税。"])
    result = merge_for_editor(BASE, mine, server)
    assert result.clean and not result.over_cap
    assert rules(result.text) == [
        "Revenue excludes refunds.",
        "金额以欧元计。",
        "Use UTC.",
        "Label chart axes.",
    ]
    assert result.text == merge_knowledge(BASE, mine, server).text  # one algorithm


def test_the_same_item_changed_on_both_sides_keeps_both_versions_without_markers() -> None:
    mine = doc(["Revenue excludes refunds and taxes.", "Use UTC."], ["GMV 含税。"])
    server = doc(["Revenue excludes refunds and chargebacks.", "Use UTC."], ["GMV 含税。"])
    result = merge_for_editor(BASE, mine, server)
    assert not result.clean
    assert "<<<<<<<" not in result.text and "=======" not in result.text
    assert rules(result.text) == [
        "Revenue excludes refunds and taxes.",
        "Revenue excludes refunds and chargebacks.",
        "Use UTC.",
    ]
    assert result.to_dict()["both_kept"] == [
        {
            "section": RULES,
            "ours": ["Revenue excludes refunds and taxes."],
            "theirs": ["Revenue excludes refunds and chargebacks."],
        }
    ]


def test_a_line_the_person_deleted_leaves_and_a_line_the_server_deleted_too() -> None:
    mine = doc(["Revenue excludes refunds."], ["GMV 含税。", "财年从四月开始。"])
    server = doc(["Revenue excludes refunds.", "Use UTC."], [])
    result = merge_for_editor(BASE, mine, server)
    assert result.clean
    parsed = parse_knowledge(result.text)
    assert [e.text for e in parsed.rules] == ["Revenue excludes refunds."]
    assert [e.text for e in parsed.section(INFO)] == ["财年从四月开始。"]


def test_the_same_entry_added_on_both_sides_is_kept_once() -> None:
    mine = doc(["Revenue excludes refunds.", "Use UTC.", "Dates are ISO."], ["GMV 含税。"])
    server = doc(["Revenue excludes refunds.", "Use UTC.", "Dates are ISO"], ["GMV 含税。"])
    assert len(rules(merge_for_editor(BASE, mine, server).text)) == 3


def test_past_the_save_cap_nothing_is_moved_aside_and_over_cap_says_so() -> None:
    long_a = [f"Rule A{i} " + "x" * 80 for i in range(50)]
    long_b = [f"Rule B{i} " + "y" * 80 for i in range(50)]
    result = merge_for_editor(doc(), doc(long_a), doc(long_b))
    assert result.over_cap and result.clean
    assert len(rules(result.text)) == 100
    assert result.to_dict()["chars"] == len(result.text) > 8_000


def test_identical_sides_come_back_as_they_are() -> None:
    text = "## Rules\n\n- Revenue excludes refunds\n"
    assert merge_for_editor(BASE, text, text).text == text


@pytest.mark.parametrize("side", ["base", "ours", "theirs"])
def test_a_side_that_does_not_parse_names_the_side_and_its_line(side: str) -> None:
    texts = {"base": BASE, "ours": BASE, "theirs": doc(["x"])}
    texts[side] = "## Rules\n\n- fine\n\x00"
    with pytest.raises(ParseError) as err:
        merge_for_editor(texts["base"], texts["ours"], texts["theirs"])
    assert err.value.path is not None and err.value.path.name == side
