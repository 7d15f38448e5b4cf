"""Issue 32: proposals without an LLM come from explicit notes only (宁缺毋滥)."""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.evidence import find_evidence, to_sources
from jupyter_memory.core.knowledge.extract import NOTE_MARKERS, extract_candidates, note_of


def _cell(source: str, kind: str = "code") -> list:
    return to_sources([{"cell_type": kind, "id": "c1", "source": source}])


@pytest.mark.parametrize(
    "cell",
    [
        # the live-notebook examples of the issue: three of the first four cards were these
        "# this includes the header row\ndf = pd.read_csv(src)",
        "# should be faster now\nresult = df.groupby('k').sum()",
        "# must re-run this after changing the filter above\nx = run()",
        "# make sure the index is sorted\ndf = df.sort_index()",
        "# 注意这里包含表头\ndf = load()",
        "# TODO: make sure refunds are excluded\nrev = 1",
        "# TODO note: check this\nrev = 1",
        "print('note: this is a string, not a comment')",
    ],
)
def test_ordinary_comments_never_make_a_candidate(cell: str) -> None:
    assert extract_candidates(_cell(cell)) == []


@pytest.mark.parametrize(
    "text",
    [
        "Revenue must always exclude refunds. For more information, see the docs, including ...",
        "You should always normalise the data first; this includes the header.",
        "数据集包含 10 万行，注意内存。我们必须先清洗。",
    ],
)
def test_ordinary_prose_never_makes_a_candidate(text: str) -> None:
    assert extract_candidates(_cell(text, "markdown")) == []
    assert extract_candidates(to_sources([text])) == []


@pytest.mark.parametrize(
    ("source", "kind", "text"),
    [
        # a real note without any keyword: the missed one
        (
            "# note: refunds older than 90 days are booked as write-offs\nx = 1",
            "info",
            "Refunds older than 90 days are booked as write-offs",
        ),
        (
            "# NOTE : never compare raw counts across regions",
            "rule",
            "Never compare raw counts across regions",
        ),
        ("# Rule: fiscal weeks start on Monday", "rule", "Fiscal weeks start on Monday"),
        (
            "x = f(y)  # info: f is the vendor's scoring model",
            "info",
            "F is the vendor's scoring model",
        ),
        (
            "# gotcha: the vendor file has two header rows",
            "rule",
            "The vendor file has two header rows",
        ),
        ("# 注意：退款超过 90 天记为坏账\nx = 1", "info", "退款超过 90 天记为坏账"),
        ("# 备注：华北区的数据从 3 月开始", "info", "华北区的数据从 3 月开始"),
        ("# 规则：周报按自然周统计", "rule", "周报按自然周统计"),
        ("-- 口径:GMV 含税含运费", "info", "GMV 含税含运费"),
        ("# 注意:不要用原始订单表算收入", "rule", "不要用原始订单表算收入"),
    ],
)
def test_a_marked_comment_makes_exactly_one_candidate(source: str, kind: str, text: str) -> None:
    src = _cell(source)
    cands = extract_candidates(src)
    assert [(c.kind, c.text) for c in cands] == [(kind, text)]
    assert find_evidence(cands[0].quote, src) is not None


@pytest.mark.parametrize(
    "source",
    [
        "**Note:** the survey weights are post-stratified by region.",
        "> note: the survey weights are post-stratified by region.",
        "- Note: the survey weights are post-stratified by region. They sum to one. Always.",
        "## Note: the survey weights are post-stratified by region",
    ],
)
def test_a_marked_markdown_line_makes_exactly_one_candidate(source: str) -> None:
    cands = extract_candidates(_cell(source, "markdown"))
    assert len(cands) == 1
    assert cands[0].text.startswith("The survey weights are post-stratified by region")


def test_the_marker_table_is_the_one_the_docs_show() -> None:
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "knowledge.md").read_text(encoding="utf-8")
    for marker, _kind, _source in NOTE_MARKERS:
        assert f"| `{marker}:` |" in doc, marker
    assert note_of("INFO：全角冒号也可以") is not None
    assert note_of("notes: plural is not a marker") is None


def test_a_wrapped_note_is_one_note_and_a_listing_is_none() -> None:
    wrapped = (
        "# note: the finance team books refunds in the month the customer asked,\n"
        "# not in the month the money went back\n"
        "# this line is another comment\nx = 1"
    )
    [cand] = extract_candidates(_cell(wrapped))
    assert cand.text == (
        "The finance team books refunds in the month the customer asked,"
        " not in the month the money went back"
    )
    short = "# note: GMV includes tax\n# must re-run this\nx = 1"
    assert [c.text for c in extract_candidates(_cell(short))] == ["GMV includes tax"]
    listing = (
        "# note: Revealed local types are:\n"
        "# note:     a: numpy.dtype[numpy.floating[numpy._typing._64Bit]]\n"
        "# note:     b: numpy.dtype[numpy.floating[numpy._typing._64Bit]]"
    )
    assert extract_candidates(_cell(listing)) == []
