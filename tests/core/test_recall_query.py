"""RecallQuery: one recall request, checked once, naming the field it refuses."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from jupyter_memory.core.memories.disclosure import Level
from jupyter_memory.core.memories.recall_query import RecallQuery
from jupyter_memory.exceptions import OversizeError, UnsafeNameError, ValidationError


def test_of_turns_loose_inputs_into_one_checked_query():
    q = RecallQuery.of(
        "退款 口径",
        type="semantic, procedural",
        tier=["durable"],
        tags="finance,口径",
        recent="7d",
        level="full",
        agent="dev",
    )
    assert q.text == "退款 口径"
    assert q.types == ("semantic", "procedural") and q.tiers == ("durable",)
    assert q.tags == ("finance", "口径") and q.recent == timedelta(days=7)
    assert q.level is Level.full and q.agent == "dev" and q.limit == 10
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.limit = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "exc", "field"),
    [
        ({"type": "memo"}, ValidationError, "type"),
        ({"tier": "weekly"}, ValidationError, "tier"),
        ({"level": "all"}, ValidationError, "level"),
        ({"recent": "soon"}, ValidationError, "recent"),
        ({"limit": 0}, ValidationError, "limit"),
        ({"limit": 1001}, ValidationError, "limit"),
        ({"mode": "fuzzy"}, ValidationError, "mode"),
        ({"scope": "team"}, ValidationError, "scope"),
        ({"agent": "../x"}, UnsafeNameError, "agent"),
        ({"query": "x" * 10_001}, OversizeError, "query"),
    ],
)
def test_bad_input_names_the_field(kwargs, exc, field):
    query = kwargs.pop("query", "")
    with pytest.raises(exc) as err:
        RecallQuery.of(query, **kwargs)
    assert err.value.field == field


def test_direct_construction_is_checked_too():
    with pytest.raises(ValidationError) as err:
        RecallQuery(text="x", types=("memo",))
    assert err.value.field == "type"
    with pytest.raises(ValidationError) as err:
        RecallQuery(limit=0)
    assert err.value.field == "limit"
