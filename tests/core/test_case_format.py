"""Case memory entry and INDEX.md formats (spec 000): exact inverses, strict errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.cases.entry_format import (
    ENTRY_TYPES,
    STATUSES,
    CaseEntry,
    FileLink,
    check_new_entry,
    normalize_body,
    parse_entry,
    parse_entry_name,
    render_entry,
    validate_case_id,
)
from jupyter_memory.core.cases.index_format import (
    CaseIndex,
    CaseIndexRow,
    parse_index,
    parse_index_header,
    render_index,
)
from jupyter_memory.exceptions import ParseError, UnsafeNameError, ValidationError

SPEC_EXAMPLE = """\
# 境外付款路线证据不足

**Schema Version**: 2
**类型**: hesitate
**日期**: 2026-06-15
**关联证据**: E-007, E-012
**关联假设**: H-2
**关联 Memory**: 2026-06-14_discuss_supplier-overlap.md

## 记录

境外付款这条线感觉有异常，但目前证据链不完整。

## 后续状态

- [ ] 已纳入（已转化为新的调查方向或假设）
- [x] 存档待查（当前证据不足，暂缓推进）
- [ ] 已排除（已找到合理解释或反证）

## 关联文件

- [interview-03.md](../working_papers/interview-03.md) — 产生此 memory 的访谈记录
"""


def test_spec_structure_renders_exactly():
    entry = CaseEntry(
        title="境外付款路线证据不足",
        type="hesitate",
        date="2026-06-15",
        body="境外付款这条线感觉有异常，但目前证据链不完整。",
        evidence=("E-007", "E-012"),
        hypotheses=("H-2",),
        related="2026-06-14_discuss_supplier-overlap.md",
        files=(
            FileLink(
                "interview-03.md", "../working_papers/interview-03.md", "产生此 memory 的访谈记录"
            ),
        ),
    )
    assert render_entry(entry) == SPEC_EXAMPLE
    assert parse_entry(SPEC_EXAMPLE) == entry


_line_chars = st.characters(
    codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp"), exclude_characters="\x85"
)
_line = st.text(_line_chars, min_size=1, max_size=40).map(str.strip).filter(bool)
_titles = _line.filter(lambda s: not s.startswith("#"))
_bodies = (
    st.lists(st.one_of(_line, st.just(""), st.just("## 小节")), min_size=1, max_size=6)
    .map(lambda ls: normalize_body("\n".join(ls)))
    .filter(bool)
    # a body may not restate the entry's own section headings (render refuses it)
    .filter(
        lambda b: (
            not any(ln.strip() in ("## 记录", "## 后续状态", "## 关联文件") for ln in b.split("\n"))
        )
    )
)
_ev = st.lists(st.integers(0, 999).map(lambda n: f"E-{n:03d}"), unique=True, max_size=4)
_hy = st.lists(st.integers(1, 99).map(lambda n: f"H-{n}"), unique=True, max_size=3)
_link = st.builds(
    FileLink,
    name=_line.filter(lambda s: "[" not in s and "]" not in s),
    path=st.from_regex(r"[A-Za-z0-9_./-]{1,30}", fullmatch=True).filter(lambda s: s.strip()),
    note=st.one_of(st.just(""), _line),
)
_entries = st.builds(
    CaseEntry,
    title=_titles,
    type=st.sampled_from(ENTRY_TYPES),
    date=st.dates().map(lambda d: d.isoformat()).filter(lambda s: len(s) == 10),
    body=_bodies,
    status=st.sampled_from(STATUSES),
    evidence=_ev.map(tuple),
    hypotheses=_hy.map(tuple),
    related=st.one_of(st.none(), st.just("2026-06-14_discuss_supplier-overlap.md")),
    files=st.lists(_link, max_size=3).map(tuple),
)


@settings(max_examples=150, deadline=None)
@given(_entries)
def test_entry_round_trip(entry: CaseEntry):
    text = render_entry(entry)
    back = parse_entry(text)
    assert back == entry
    assert render_entry(back) == text


_rows = st.builds(
    CaseIndexRow,
    date=st.dates().map(lambda d: d.isoformat()).filter(lambda s: len(s) == 10),
    type=st.sampled_from(ENTRY_TYPES),
    summary=_line,
    evidence=_ev.map(tuple),
    status=st.sampled_from(STATUSES),
)


@settings(max_examples=100, deadline=None)
@given(
    name=_line.filter(lambda s: not s.startswith("|")),
    rows=st.lists(_rows, max_size=8).map(tuple),
)
def test_index_round_trip(name: str, rows: tuple[CaseIndexRow, ...]):
    index = CaseIndex("CASE-2026-001", name, "2026-06-14 ~ 2026-06-16", rows)
    text = render_index(index)
    assert parse_index(text) == index
    assert render_index(parse_index(text)) == text


def test_index_matches_spec_layout():
    index = CaseIndex(
        "CASE-2026-001",
        "华东经销商返利欺诈",
        "2026-06-14 ~ 2026-06-16",
        (
            CaseIndexRow("2026-06-14", "discuss", "供应商重叠的探索路径", ("E-007",), "存档待查"),
            CaseIndexRow("2026-06-15", "hesitate", "境外付款路线证据不足", (), "存档待查"),
        ),
    )
    assert render_index(index).splitlines() == [
        "# Case Memory Index — CASE-2026-001",
        "",
        "**案件**: 华东经销商返利欺诈",
        "**时间段**: 2026-06-14 ~ 2026-06-16",
        "",
        "| 日期 | 类型 | 摘要 | 关联证据 | 状态 |",
        "|------|------|------|---------|------|",
        "| 2026-06-14 | discuss | 供应商重叠的探索路径 | E-007 | 存档待查 |",
        "| 2026-06-15 | hesitate | 境外付款路线证据不足 | — | 存档待查 |",
    ]


def test_pipe_in_title_is_escaped_in_the_table():
    row = CaseIndexRow("2026-06-14", "insight", "A|B \\ C", (), "已纳入")
    text = render_index(CaseIndex("CASE-2026-001", "x", "—", (row,)))
    assert "A\\|B \\\\ C" in text
    assert parse_index(text).rows == (row,)


LEGACY = """\
# 为什么放弃假设 2

**类型**: think
**日期**: 2026-05-02
**关联证据**: E-003、E-004

## 背景

当时认为渠道合谋证据不足。

## 推理过程

1. 先看了返利流水；
2. 又对比了合同。

## 后续状态

- [ ] 已纳入
- [ ] 存档待查
- [x] 已排除
"""


def test_legacy_entry_is_read_with_all_its_reasoning():
    entry = parse_entry(LEGACY)
    assert entry.legacy and entry.schema_version is None
    assert entry.type == "think" and entry.status == "已排除"
    assert entry.evidence == ("E-003", "E-004")
    assert "## 推理过程" in entry.body and "又对比了合同" in entry.body
    with pytest.raises(ValidationError):
        render_entry(entry)  # legacy entries are never rendered back


@pytest.mark.parametrize(
    ("marks", "found"), [(("x", "x", " "), "已纳入, 存档待查"), ((" ", " ", " "), "none")]
)
def test_two_checked_states_or_none_is_a_clear_error(marks, found):
    text = SPEC_EXAMPLE.replace("- [ ] 已纳入", f"- [{marks[0]}] 已纳入").replace(
        "- [x] 存档待查", f"- [{marks[1]}] 存档待查"
    )
    with pytest.raises(ParseError) as err:
        parse_entry(text, path="cases/CASE-2026-001/case_memory/x.md")
    assert "exactly one checked state" in str(err.value)
    assert found in str(err.value) and "x.md" in str(err.value)


def test_missing_title_and_unknown_type_are_parse_errors():
    with pytest.raises(ParseError, match="title line"):
        parse_entry("no title\n")
    with pytest.raises(ParseError, match="not one of"):
        parse_entry(SPEC_EXAMPLE.replace("**类型**: hesitate", "**类型**: gossip"))
    with pytest.raises(ParseError, match="Schema Version"):
        parse_entry(SPEC_EXAMPLE.replace("**Schema Version**: 2", "**Schema Version**: 9"))


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("| 2026-06-16 | insight | only four cells | 已纳入 |", "broken table row"),
        ("| 2026-13-40 | insight | bad date | — | 已纳入 |", "not a real date"),
        ("| 2026-06-16 | gossip | bad type | — | 已纳入 |", "not one of the five"),
        ("| 2026-06-16 | insight | bad status | — | 完成 |", "not one of"),
        ("2026-06-16 insight no pipes", "broken table row"),
    ],
)
def test_broken_index_rows_name_the_line(line, fragment):
    good = render_index(
        CaseIndex(
            "CASE-2026-001",
            "x",
            "—",
            (CaseIndexRow("2026-06-14", "discuss", "ok", ("E-007",), "存档待查"),),
        )
    )
    with pytest.raises(ParseError) as err:
        parse_index(good + line + "\n", path="INDEX.md")
    assert fragment in str(err.value)
    assert err.value.line == 9 and "INDEX.md:9" in str(err.value)


def test_index_header_survives_a_broken_table():
    assert parse_index_header("# Case Memory Index — CASE-2026-001\n\n**案件**: 某案\n| x\n") == (
        "CASE-2026-001",
        "某案",
    )


@pytest.mark.parametrize(
    "bad",
    ["../CASE-2026-001", "CASE-2026-001/..", "CASE-26-1", "case-2026-001", "CASE-2026-0001", ""],
)
def test_bad_case_ids_are_refused(bad):
    with pytest.raises(ValidationError):
        validate_case_id(bad)


def test_separator_in_case_id_is_an_unsafe_name():
    with pytest.raises(UnsafeNameError):
        validate_case_id("CASE-2026-001/../x")


def test_naming_rule():
    assert parse_entry_name("2026-06-17_think_why-hypothesis-2-was-rejected.md") == (
        "2026-06-17",
        "think",
        "why-hypothesis-2-was-rejected",
    )
    for bad in ("2026-06-17_gossip_x.md", "2026-06-17_think_Bad_Slug.md", "INDEX.md", "x.md"):
        assert parse_entry_name(bad) is None


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("body", "ok\n## 后续状态\nsneaky", "section heading"),
        ("evidence", ("E7",), "evidence id"),
        ("hypotheses", ("2",), "hypothesis id"),
        ("title", "two\nlines", "one line"),
        ("related", "../evidence_registry.json", "case memory file name"),
        ("status", "完成", "not one of"),
    ],
)
def test_new_entries_are_checked(field, value, fragment):
    base = parse_entry(SPEC_EXAMPLE)
    from dataclasses import replace

    with pytest.raises(ValidationError, match=fragment):
        check_new_entry(replace(base, **{field: value}))
