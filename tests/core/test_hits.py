"""RecallHit.trusted: the fast constructor recall uses must build the same hit."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from jupyter_memory.core.memories.hits import RecallHit

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
VALUES: dict[str, object] = dict(
    id="m1",
    title="退款 refunds",
    text="",
    type="fact",
    tier="WARM",
    scope="user",
    project=None,
    tags=["q3"],
    source="user",
    score=0.5,
    attention=0.25,
    heat="WARM",
    reviewed=False,
    created=NOW,
    updated=NOW,
    layer="user",
    path="/h/memories/m1.md",
    level="index",
    tokens=4,
    superseded_by=None,
    evidence=[],
    provenance="",
)


def test_trusted_builds_what_validation_builds() -> None:
    fast = RecallHit.trusted(**VALUES)
    checked = RecallHit.model_validate(VALUES)
    assert fast == checked
    assert fast.to_dict() == checked.to_dict()
    assert fast.model_fields_set == checked.model_fields_set
    assert repr(fast) == repr(checked)
    fast.score = 0.75  # a normal model afterwards: attributes assign
    assert fast.model_copy(update={"tokens": 5}).tokens == 5


@pytest.mark.parametrize("change", ["missing", "unknown"])
def test_trusted_refuses_a_half_hit(change: str) -> None:
    values = dict(VALUES)
    if change == "missing":
        del values["heat"]
    else:
        values["colour"] = "red"
    with pytest.raises(TypeError, match="heat" if change == "missing" else "colour"):
        RecallHit.trusted(**values)


def test_trusted_fields_builds_what_validation_builds() -> None:
    fast = RecallHit.trusted_fields(dict(VALUES))
    checked = RecallHit.model_validate(VALUES)
    assert fast == checked and fast.to_dict() == checked.to_dict()
    assert fast.model_fields_set == checked.model_fields_set
    fast.model_fields_set.discard("id")  # each hit has a set of its own
    assert RecallHit.trusted_fields(dict(VALUES)).model_fields_set == checked.model_fields_set
    half = dict(VALUES)
    del half["heat"]
    with pytest.raises(TypeError, match="heat"):
        RecallHit.trusted_fields(half)
