"""Knowledge files: two sections, one level of children, legacy mapping, save cap."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.knowledge.format import (
    INFO,
    RULES,
    SAVE_CAP_CHARS,
    Entry,
    KnowledgeDoc,
    append_entry,
    parse_knowledge,
    prepare_save,
    render_knowledge,
)
from jupyter_memory.exceptions import OversizeError, ParseError

# Entry text: one line, single-spaced, any script (English, Chinese, symbols).
_word = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"), blacklist_characters="\x85"
    ),
    min_size=1,
    max_size=12,
)
entry_text = (
    st.lists(_word, min_size=1, max_size=6).map(" ".join).filter(lambda t: t == " ".join(t.split()))
)
entries = st.lists(
    st.builds(Entry, entry_text, st.lists(entry_text, max_size=3).map(tuple)), max_size=6
)
docs = st.builds(KnowledgeDoc, entries.map(tuple), entries.map(tuple))


@settings(deadline=None)  # timing is benchmarked, not asserted here
@given(docs)
def test_render_parse_round_trip(doc: KnowledgeDoc) -> None:
    text = render_knowledge(doc)
    back = parse_knowledge(text)
    assert back == doc
    assert render_knowledge(back) == text
    assert not back.legacy


# The count reads the shape of the entries alone: their words come from a few plain ones, where
# drawing the round trip's any-script words was ~all of the test's time.
_plain = st.sampled_from(["a rule", "Q1 starts in February", "收入不含退款"])
shapes = st.lists(st.builds(Entry, _plain, st.lists(_plain, max_size=3).map(tuple)), max_size=6)


@settings(deadline=None)  # timing is benchmarked, not asserted here
@given(st.builds(KnowledgeDoc, shapes.map(tuple), shapes.map(tuple)))
def test_leaf_count_ignores_group_parents(doc: KnowledgeDoc) -> None:
    expected = sum(len(e.children) if e.children else 1 for e in doc.rules)
    assert doc.leaf_count(RULES) == expected


def test_example_file_with_title_children_and_continuation() -> None:
    doc = parse_knowledge(
        "# Team knowledge\n\n## Rules\n- Revenue excludes refunds\n- Fiscal calendar\n"
        "  - Q1 starts in February\n    (all regions)\n\t- Q4 ends in January\n"
        "## Info\n* GMV 定义为含税成交额\n1. DAU counts unique users\n"
    )
    assert doc.title == "Team knowledge"
    assert doc.rules[1] == Entry(
        "Fiscal calendar", ("Q1 starts in February (all regions)", "Q4 ends in January")
    )
    assert [e.text for e in doc.info] == ["GMV 定义为含税成交额", "DAU counts unique users"]
    assert (doc.leaf_count(RULES), doc.leaf_count(INFO)) == (3, 2)
    assert not doc.legacy


def test_legacy_sections_are_mapped_and_flagged() -> None:
    doc = parse_knowledge(
        "## Business rules\n- a rule\n## Preferences\n- prefer charts\n"
        "## Glossary\n- GMV: gross\n## 口径\n- 收入不含退款\n## 分析规则\n- 必须用北京时间\n"
    )
    assert doc.legacy
    assert [e.text for e in doc.rules] == ["a rule", "prefer charts", "必须用北京时间"]
    assert [e.text for e in doc.info] == ["GMV: gross", "收入不含退款"]
    assert ("Glossary", INFO) in doc.legacy_sections
    # rewritten in two-section form only when saved
    assert render_knowledge(doc).count("## ") == 2


def test_bullets_before_any_section_go_to_info_as_legacy() -> None:
    doc = parse_knowledge("- one\n- two\n")
    assert doc.legacy and [e.text for e in doc.info] == ["one", "two"]


def test_lowercase_canonical_heading_is_read_but_marked_for_rewrite() -> None:
    doc = parse_knowledge("## rules\n- x1\n## INFO\n- y1\n")
    assert doc.legacy and doc.rules[0].text == "x1" and doc.info[0].text == "y1"


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("## Rules\n- a\n      - too deep\n", 3, "nested more than one level"),
        ("## Rules\n  - orphan child\n", 2, "no parent bullet"),
        ("## Rules\n- a\nplain prose here\n", 3, "not a '- ' bullet"),
        ("Intro paragraph\n## Rules\n", 1, "before any section"),
        ("## Rules\n### Sub\n", 2, "heading level 3"),
        ("## Rules\n-   \n", 2, "empty bullet"),
    ],
)
def test_malformed_names_the_line(text: str, line: int, reason: str) -> None:
    with pytest.raises(ParseError) as err:
        parse_knowledge(text, path="knowledge.md")
    assert err.value.line == line
    assert reason in str(err.value)
    assert f"knowledge.md:{line}" in str(err.value)


def _doc_of_length(n: int) -> str:
    base = render_knowledge(KnowledgeDoc((Entry("x"),), ()))
    pad = n - len(base)
    text = render_knowledge(KnowledgeDoc((Entry("x" * (1 + pad)),), ()))
    assert len(text) == n
    return text


def test_save_cap_exactly_at_limit() -> None:
    doc, rendered = prepare_save(_doc_of_length(SAVE_CAP_CHARS))
    assert len(rendered) == SAVE_CAP_CHARS
    with pytest.raises(OversizeError, match="8,000"):
        prepare_save(_doc_of_length(SAVE_CAP_CHARS + 1))


def test_chinese_counts_characters_not_bytes() -> None:
    body = render_knowledge(KnowledgeDoc((), (Entry("收" * 7000),)))
    assert len(body.encode()) > SAVE_CAP_CHARS
    prepare_save(body)


def test_append_entry_is_single_top_level_bullet() -> None:
    doc = parse_knowledge("## Rules\n- Group\n  - child\n")
    doc = append_entry(doc, RULES, "New  rule\nacross lines")
    assert doc.rules[-1] == Entry("New rule across lines")
