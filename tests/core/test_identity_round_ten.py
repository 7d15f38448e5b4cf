"""Round ten of the identity decision: known changes, and a grain as a value.

The known changes are given by a double (core only asks; the service's reading over the
packaged changes is tested in tests/service/knowledge/test_known_changes.py): what is tested is
which pairs may ask, and what an answer does.
"""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.identity import (
    KNOWN_CHANGES_AT,
    KNOWN_CHANGES_K,
    KnownChanges,
    Relation,
    relate,
)


class Changes:
    """A similarity with a fixed cosine and a fixed share of paraphrases, recording the asks."""

    def __init__(self, share: float | None, cosine: float = 0.9) -> None:
        self.share, self.cosine = share, cosine
        self.asked: list[tuple[str, str, int]] = []

    def __call__(self, a: str, b: str) -> float:
        return self.cosine

    def paraphrase_share(self, a: str, b: str, k: int) -> float | None:
        self.asked.append((a, b, k))
        return self.share


# The slot reading leaves these open: "another rule", no subject slot in conflict. (Round
# twelve: not one word in place of another in one sentence — that is another object, never
# asked; "business accounts" / "commercial accounts" in one frame was the first example here.)
OPEN = [
    ("Leave business accounts out of the residential set-out rate.",
     "Commercial accounts are not part of the residential set-out figure."),
    ("补贴款要从安装收入中剔除，另行单列。", "补贴款不计入安装收入，单独列示。"),
]  # fmt: skip


def test_the_double_is_what_the_decision_asks() -> None:
    assert isinstance(Changes(1.0), KnownChanges)
    assert not isinstance(lambda a, b: 0.9, KnownChanges)  # a plain cosine asks nothing more


@pytest.mark.parametrize(("new", "known"), OPEN)
def test_an_open_pair_whose_nearest_changes_are_paraphrases_is_the_same_rule(
    new: str, known: str
) -> None:
    assert relate(new, known, lambda a, b: 0.9).kind is Relation.RELATED
    changes = Changes(1.0)
    found = relate(new, known, changes)
    assert found.kind is Relation.SAME and found.cosine == 0.9
    assert changes.asked == [(new, known, KNOWN_CHANGES_K)]


@pytest.mark.parametrize("share", [None, 0.0, 0.8, KNOWN_CHANGES_AT - 0.01])
def test_fewer_paraphrases_among_the_nearest_or_no_bank_leave_it_another_rule(
    share: float | None,
) -> None:
    new, known = OPEN[0]
    assert relate(new, known, Changes(share)).kind is Relation.RELATED


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("North region revenue must exclude test accounts",
         "South region revenue must exclude test accounts"),
        ("华北区收入必须剔除测试账号。", "西南区收入必须剔除测试账号。"),
        ("GMV excludes cancelled orders.", "Net revenue excludes cancelled orders."),
        ("Q1 targets come from the January budget file.",
         "Q2 targets come from the January budget file."),
        ("The weekly report excludes refunds.", "The monthly report excludes refunds."),
        ("周报不含退款。", "月报不含退款。"),
    ],
)  # fmt: skip
def test_another_subject_never_asks_and_never_merges(new: str, known: str) -> None:
    changes = Changes(1.0, cosine=0.99)
    for a, b in ((new, known), (known, new)):
        assert relate(a, b, changes).kind is Relation.RELATED
    assert changes.asked == []


@pytest.mark.parametrize(
    ("new", "known", "kind"),
    [
        (
            "orders_daily refreshes at 7am UTC.",
            "orders_daily refreshes at 6am UTC.",
            Relation.UPDATE,
        ),
        ("Revenue includes refunds.", "Revenue excludes refunds.", Relation.CONTRADICTS),
        ("Revenue excludes refunds.", "Revenue excludes refunds.", Relation.SAME),
    ],
)
def test_an_update_a_contradiction_or_the_same_words_never_ask(
    new: str, known: str, kind: Relation
) -> None:
    changes = Changes(1.0)
    assert relate(new, known, changes).kind is kind
    assert changes.asked == []


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("Fleet customers are billed weekly in arrears.",
         "Fleet customers are billed monthly in arrears."),
        ("Outdate rate is units expired divided by units collected, reported weekly.",
         "Outdate rate is units expired divided by units collected, reported monthly."),
        ("Depletions are counted in cases shipped to retailers each week.",
         "Depletions are counted in cases shipped to retailers each month."),
    ],
)  # fmt: skip
def test_how_often_after_the_verb_is_a_value_another_one_an_update(new: str, known: str) -> None:
    for similarity in (None, lambda a, b: 0.97):
        found = relate(new, known, similarity)
        assert found.kind is Relation.UPDATE and found.slot == "grain"


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("Round percentages in the monthly email to one decimal.",
         "Round percentages in the weekly email to one decimal."),
        ("Monthly reports cover calendar months.", "Weekly reports cover Monday to Sunday."),
        ("月报每月第一个周一上午9点发送。", "周报每周一上午9点发送。"),
        ("年度经常性收入不包含一次性实施费。", "月度经常性收入不包含一次性实施费。"),
    ],
)  # fmt: skip
def test_a_grain_before_a_noun_names_another_subject(new: str, known: str) -> None:
    for similarity in (None, lambda a, b: 0.98):
        assert relate(new, known, similarity).kind is Relation.RELATED
        assert relate(known, new, similarity).kind is Relation.RELATED


@pytest.mark.parametrize(
    ("new", "known"),
    [
        # A grain one text names and the other says in words (or not at all) is no conflict.
        ("Convert all JPY amounts to USD at the daily rate.",
         "Convert all JPY amounts to USD at the month-end rate."),
        ("Monthly fleet utilization = rental days / available car days.",
         "Fleet utilization is rental days divided by available car days in the month."),
    ],
)  # fmt: skip
def test_a_grain_on_one_side_only_is_no_other_subject(new: str, known: str) -> None:
    assert relate(new, known, lambda a, b: 0.97).slot != "grain"
