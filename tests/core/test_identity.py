"""The identity decision (issue 32): paraphrases are one entry, other subjects never are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_memory.core.knowledge.identity import Relation, relate, same_entry

SAMPLE = Path(__file__).parents[1] / "data" / "identity_pairs_sample.json"
AS_LABEL = {
    Relation.SAME: "same",
    Relation.UPDATE: "updated",
    Relation.CONTRADICTS: "contradiction",
    Relation.RELATED: "different",
    Relation.UNRELATED: "different",
}


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("Refunds are not part of revenue", "Revenue excludes refunds"),
        ("Revenue must always exclude refunds", "Revenue must exclude refunds"),
        ("退款不计入收入。", "收入不含退款。"),
        ("收入口径不含退款", "收入不含退款"),
        (
            "The y-axis of a bar chart always starts at zero.",
            "Bar charts start the y-axis at zero.",
        ),
    ],
)
def test_paraphrases_are_the_same_entry(new: str, known: str) -> None:
    assert same_entry(new, known), relate(new, known)


@pytest.mark.parametrize(
    ("new", "known", "slot"),
    [
        ("South region revenue must exclude test accounts",
         "North region revenue must exclude test accounts", "region"),
        ("西南区收入要剔除测试账号。", "华北区收入要剔除测试账号。", "region"),
        ("Net revenue excludes cancelled orders", "GMV excludes cancelled orders", "metric"),
        ("Q2 targets use the April price list.", "Q1 targets use the January price list.", "period"),
        ("The payments_daily table refreshes at 6am UTC.",
         "The orders_daily table refreshes at 6am UTC.", "table"),
    ],
)  # fmt: skip
def test_another_region_metric_period_or_table_is_kept_apart(
    new: str, known: str, slot: str
) -> None:
    rel = relate(new, known)
    assert rel.kind is Relation.RELATED and rel.slot == slot
    assert rel.kept_apart and rel.to_dict()["slot"] == slot


def test_another_object_is_not_the_same_entry_even_when_the_embedder_says_so() -> None:
    # multilingual-e5 puts these at 0.976, above most paraphrases: the cosine alone never merges.
    rel = relate("Revenue excludes taxes", "Revenue excludes refunds", lambda a, b: 0.976)
    assert rel.kind is Relation.RELATED


def test_updates_and_contradictions() -> None:
    update = relate("The orders_daily table refreshes at 7am UTC",
                    "The orders_daily table refreshes at 6am UTC")  # fmt: skip
    assert (update.kind, update.slot) == (Relation.UPDATE, "time")
    assert relate("Revenue excludes refunds and chargebacks", "Revenue excludes refunds").kind is (
        Relation.UPDATE
    )
    assert relate("Revenue includes refunds", "Revenue excludes refunds").kind is (
        Relation.CONTRADICTS
    )
    assert relate("华南区不包括广西。", "华南区包括广东和广西。").kind is Relation.CONTRADICTS


def test_a_low_cosine_vetoes_a_lexical_match() -> None:
    a, b = "Revenue figures are always reported in USD.", "All revenue numbers must be in USD."
    assert relate(a, b).kind is Relation.SAME
    assert relate(a, b, lambda x, y: 0.5).kind is Relation.RELATED


def test_committed_sample_of_labelled_pairs() -> None:
    pairs = json.loads(SAMPLE.read_text("utf-8"))["pairs"]
    got = [(p["label"], AS_LABEL[relate(p["a"], p["b"]).kind]) for p in pairs]
    different = [g for label, g in got if label == "different"]
    assert different and all(g == "different" for g in different)  # never merged or superseded
    same = [g for label, g in got if label == "same"]
    assert sum(g == "same" for g in same) >= 0.8 * len(same)
    said_same = [label for label, g in got if g == "same"]
    assert all(label == "same" for label in said_same)
    assert sum(label == g for label, g in got) >= 0.85 * len(got)
