"""The three-way merge of knowledge files by item (issue 17), pure: strings in, strings out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.knowledge.format import (
    RULES,
    Entry,
    KnowledgeDoc,
    parse_knowledge,
    render_knowledge,
)
from jupyter_memory.core.knowledge.merge import (
    merge_knowledge,
    parse_conflicted,
)


def doc(rules: list[str] = (), info: list[str] = ()) -> str:  # type: ignore[assignment]
    return render_knowledge(
        KnowledgeDoc(tuple(Entry(r) for r in rules), tuple(Entry(i) for i in info))
    )


BASE = doc(["Revenue excludes refunds.", "Use UTC."], ["GMV 含税。"])


def test_adds_on_both_sides_are_both_kept_without_markers() -> None:
    ours = doc(["Revenue excludes refunds.", "Use UTC.", "Dates are ISO."], ["GMV 含税。"])
    theirs = doc(["Revenue excludes refunds.", "Use UTC."], ["GMV 含税。", "财年从二月开始。"])
    result = merge_knowledge(BASE, ours, theirs)
    assert result.clean
    assert "<<<<<<<" not in result.text
    merged = parse_knowledge(result.text)
    assert [e.text for e in merged.rules] == [
        "Revenue excludes refunds.",
        "Use UTC.",
        "Dates are ISO.",
    ]
    assert [e.text for e in merged.info] == ["GMV 含税。", "财年从二月开始。"]


def test_an_identical_item_added_on_both_sides_is_kept_once() -> None:
    side = doc(["Revenue excludes refunds.", "Use UTC.", "Dates are ISO."], ["GMV 含税。"])
    other = doc(["Revenue excludes refunds.", "Use UTC.", "Dates are ISO"], ["GMV 含税。"])
    result = merge_knowledge(BASE, side, other)
    assert result.clean
    assert parse_knowledge(result.text).leaf_count(RULES) == 3


def test_a_delete_on_one_side_and_untouched_on_the_other_deletes() -> None:
    ours = doc(["Revenue excludes refunds."], ["GMV 含税。"])
    theirs = doc(["Revenue excludes refunds.", "Use UTC.", "New rule."], ["GMV 含税。"])
    result = merge_knowledge(BASE, ours, theirs)
    assert result.clean
    texts = [e.text for e in parse_knowledge(result.text).rules]
    assert texts == ["Revenue excludes refunds.", "New rule."]


def test_an_edit_on_one_side_is_taken() -> None:
    theirs = doc(["Revenue excludes refunds and chargebacks.", "Use UTC."], ["GMV 含税。"])
    result = merge_knowledge(BASE, BASE, theirs)
    assert result.clean
    assert parse_knowledge(result.text).rules[0].text.endswith("chargebacks.")


def test_the_same_item_changed_differently_is_a_conflict_with_both_versions() -> None:
    ours = doc(["Revenue excludes refunds and taxes.", "Use UTC."], ["GMV 含税。"])
    theirs = doc(["Revenue excludes refunds and chargebacks.", "Use UTC."], ["GMV 含税。"])
    result = merge_knowledge(BASE, ours, theirs)
    assert not result.clean
    assert result.conflicts[0].section == RULES
    assert "<<<<<<< ours" in result.text and ">>>>>>> theirs" in result.text
    sides = parse_conflicted(result.text)
    assert sides is not None
    assert parse_knowledge(sides.ours).rules[0].text.endswith("taxes.")
    assert parse_knowledge(sides.theirs).rules[0].text.endswith("chargebacks.")
    # Untouched items stay outside the block, in both sides.
    assert parse_knowledge(sides.ours).rules[1].text == "Use UTC."
    assert parse_knowledge(sides.theirs).info[0].text == "GMV 含税。"


def test_changed_on_one_side_and_deleted_on_the_other_is_a_conflict() -> None:
    ours = doc(["Revenue excludes refunds and taxes.", "Use UTC."], ["GMV 含税。"])
    theirs = doc(["Use UTC."], ["GMV 含税。"])
    result = merge_knowledge(BASE, ours, theirs)
    assert len(result.conflicts) == 1
    assert result.conflicts[0].theirs == ()


def test_catalog_children_merge_by_item() -> None:
    base = render_knowledge(KnowledgeDoc((Entry("Fiscal", ("Q1 starts in Feb.",)),)))
    ours = render_knowledge(KnowledgeDoc((Entry("Fiscal", ("Q1 starts in Feb.", "A")),)))
    theirs = render_knowledge(KnowledgeDoc((Entry("Fiscal", ("Q1 starts in Feb.", "B")),)))
    result = merge_knowledge(base, ours, theirs)
    assert result.clean
    assert parse_knowledge(result.text).rules[0].children == ("Q1 starts in Feb.", "A", "B")


def test_the_cap_is_checked_on_the_result() -> None:
    long_a = [f"Rule A{i} " + "x" * 80 for i in range(50)]
    long_b = [f"Rule B{i} " + "y" * 80 for i in range(50)]
    result = merge_knowledge(doc(), doc(long_a), doc(long_b))
    assert result.over_cap and not result.clean
    sides = parse_conflicted(result.text)
    assert sides is not None
    assert len(parse_knowledge(sides.ours).rules) == 50  # ours stays whole
    assert len(parse_knowledge(sides.theirs).rules) == 100


def test_an_unparseable_side_conflicts_as_a_whole_file() -> None:
    result = merge_knowledge(BASE, BASE + "prose\n", doc(["x"]))
    assert not result.clean
    sides = parse_conflicted(result.text)
    assert sides is not None and sides.ours.startswith("## Rules")


def test_git_diff3_markers_are_read_too() -> None:
    text = "## Rules\n\n<<<<<<< HEAD\n- a\n||||||| base\n- o\n=======\n- b\n>>>>>>> other\n"
    sides = parse_conflicted(text)
    assert sides is not None
    assert parse_knowledge(sides.ours).rules[0].text == "a"
    assert parse_knowledge(sides.theirs).rules[0].text == "b"


# -- properties --------------------------------------------------------------------------

WORDS = st.sampled_from(
    ["revenue", "refunds", "UTC", "季度", "收入", "退款", "fiscal", "GMV", "口径", "dates"]
)
ITEM = st.lists(WORDS, min_size=1, max_size=4).map(" ".join)


@st.composite
def edits(draw: st.DrawFn) -> tuple[list[str], list[str], list[str], list[str], list[str]]:
    base = draw(st.lists(ITEM, max_size=8, unique_by=lambda s: s.casefold()))

    def side(tag: str) -> tuple[list[str], list[str]]:
        deleted = [b for b in base if draw(st.integers(0, 4)) == 0]
        kept = [b for b in base if b not in deleted]
        added = [f"{tag} {t}" for t in draw(st.lists(ITEM, max_size=4, unique=True))]
        for a in added:
            kept.insert(draw(st.integers(0, len(kept))), a)
        return kept, deleted

    ours, o_del = side("ours")
    theirs, t_del = side("theirs")
    return base, ours, theirs, o_del, t_del


@settings(max_examples=150, deadline=None)
@given(edits())
def test_never_drops_an_untouched_item_nor_an_added_one(case: tuple) -> None:  # type: ignore[type-arg]
    base, ours, theirs, o_del, t_del = case
    result = merge_knowledge(doc(base), doc(ours), doc(theirs))
    merged = parse_conflicted(result.text)
    clean = parse_knowledge(merged.ours if merged else result.text)
    both = {e.text for e in clean.rules}
    if merged:
        both |= {e.text for e in parse_knowledge(merged.theirs).rules}
    untouched = [b for b in base if b not in o_del and b not in t_del]
    # Untouched items are never part of a conflict: in the clean result.
    assert set(untouched) <= {e.text for e in clean.rules}
    for added in [x for x in ours + theirs if x not in base]:
        assert added in both


@settings(max_examples=150, deadline=None)
@given(
    st.lists(ITEM, max_size=6, unique=True),
    st.lists(ITEM, max_size=4, unique=True),
    st.lists(ITEM, max_size=4, unique=True),
)
def test_merging_adds_is_symmetric(base: list[str], a: list[str], b: list[str]) -> None:
    ours = doc(base + [f"a {x}" for x in a], ["信息"])
    theirs = doc(base + [f"b {x}" for x in b], ["信息"])
    one = merge_knowledge(doc(base, ["信息"]), ours, theirs)
    two = merge_knowledge(doc(base, ["信息"]), theirs, ours)
    assert one.clean and two.clean
    items_one = {e.text for e in parse_knowledge(one.text).rules}
    items_two = {e.text for e in parse_knowledge(two.text).rules}
    assert items_one == items_two == set(base) | {f"a {x}" for x in a} | {f"b {x}" for x in b}
    assert parse_knowledge(one.text).info == (Entry("信息"),)
