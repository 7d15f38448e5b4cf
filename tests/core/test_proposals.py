"""The proposal model and its one-file-per-proposal format."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.knowledge.proposals import (
    Proposal,
    build_proposal,
    parse_proposal,
    proposal_file_name,
    render_proposal,
)
from jupyter_memory.exceptions import ParseError, ValidationError

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


def make(**kw: object) -> Proposal:
    base: dict[str, object] = dict(
        id="p-0000000001abcdefghij",
        text="Revenue excludes refunds",
        kind="rule",
        evidence_quote="revenue excludes refunds",
        source="chat-extraction",
        created=NOW,
    )
    base.update(kw)
    return build_proposal(**base)


texts = st.text(min_size=1, max_size=200).filter(
    lambda t: t.strip() and "\x00" not in t and "\r" not in t
)


@settings(deadline=None)  # timing is benchmarked, not asserted here
@given(
    texts,
    texts,
    st.sampled_from(["rule", "info"]),
    st.sampled_from(["pending", "applied", "dismissed", "superseded"]),
)
def test_round_trip(text: str, quote: str, kind: str, status: str) -> None:
    p = make(
        text=text,
        evidence_quote=quote,
        kind=kind,
        status=status,
        project="sales-q3",
        quote_origin={"cell_id": "c1"},
    )
    assert parse_proposal(render_proposal(p)) == p


def test_file_name_is_dated_readable_and_unique_by_id() -> None:
    name = proposal_file_name(make())
    assert name == "2026-11-30_rule_revenue-excludes-refunds-p-0000000001abcdefghij.md"
    assert proposal_file_name(make(text="收入不含退款")).startswith(
        "2026-11-30_rule_收入不含退款-p-"
    )


def test_bad_fields_are_named() -> None:
    with pytest.raises(ValidationError, match="kind"):
        make(kind="fact")
    with pytest.raises(ValidationError, match="project"):
        make(project="../etc")
    with pytest.raises(ValidationError, match="source"):
        make(source="rumour")


def test_malformed_file_names_path_and_field() -> None:
    text = render_proposal(make()).replace("kind: rule", "kind: nonsense")
    with pytest.raises(ParseError, match=r"q\.md.*kind"):
        parse_proposal(text, path="q.md")
    with pytest.raises(ParseError, match="frontmatter"):
        parse_proposal("no frontmatter", path="q.md")
