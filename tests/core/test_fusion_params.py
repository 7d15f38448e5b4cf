"""Hybrid fusion's constants: RankingParams fields, and what each does to the fused score."""

from __future__ import annotations

import pytest

from jupyter_memory.core.memories.embedding import fuse, normalise
from jupyter_memory.core.memories.ranking import DEFAULT_RANKING, RankingParams
from jupyter_memory.exceptions import ValidationError


def test_defaults_are_the_fusion_that_was_measured():
    r = DEFAULT_RANKING
    assert (r.lexical_weight, r.semantic_floor, r.fusion_pool) == (0.5, 0.80, 100)
    assert (r.semantic_span, r.semantic_power, r.semantic_centre) == (0.0, 2.0, True)


def test_span_keeps_a_narrow_cosine_range_below_one():
    cos = {"a": 0.84, "b": 0.83, "c": 0.82}
    assert normalise(cos, from_min=True) == pytest.approx({"a": 1.0, "b": 0.5, "c": 0.0})
    # A spread of 0.02 is not a strong preference: with span 0.08 the best is 0.25.
    assert normalise(cos, from_min=True, span=0.08) == pytest.approx(
        {"a": 0.25, "b": 0.125, "c": 0.0}
    )
    # A wider spread than the span is scaled as before.
    wide = {"a": 0.9, "b": 0.8}
    assert normalise(wide, from_min=True, span=0.05) == pytest.approx({"a": 1.0, "b": 0.0})


def test_power_favours_the_nearest_few():
    cos = {"a": 0.9, "b": 0.85, "c": 0.8}
    assert normalise(cos, from_min=True, power=2.0) == pytest.approx(
        {"a": 1.0, "b": 0.25, "c": 0.0}
    )
    fused = fuse({"b": 2.0}, cos, semantic_power=2.0)
    assert fused["b"] == pytest.approx(0.5 * 1.0 + 0.5 * 0.25)
    assert fused["a"] == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("field", "value"),
    [("lexical_weight", 1.5), ("lexical_weight", -0.1), ("semantic_power", 0.0),
     ("semantic_span", -0.1), ("fusion_pool", 0), ("semantic_centre", 1)],
)  # fmt: skip
def test_bad_values_are_refused_with_the_field(field: str, value: float):
    with pytest.raises(ValidationError) as caught:
        RankingParams(**{field: value})  # type: ignore[arg-type]
    assert caught.value.field == field
