"""Search analysis: stemming and stopwords at index and query time, CJK, mixed text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from jupyter_memory.core.memories.embedding import embed_key, embed_text, fuse, normalise
from jupyter_memory.core.stopwords import ENGLISH_STOPWORDS
from jupyter_memory.core.text import (
    SearchGroup,
    index_tokens,
    relaxed_groups,
    search_groups,
    search_word,
    title_repeats_text,
)


def test_inflections_meet_at_one_stem():
    assert index_tokens("refunds refunded refunding") == ["refund"] * 3
    assert [g.tokens for g in search_groups("Refunds")] == [("refund",)]


def test_stopwords_leave_index_and_query_alike():
    assert index_tokens("What did she do with the refunds?") == ["refund"]
    assert [g.tokens for g in search_groups("what did she do with the refunds")] == [("refund",)]
    assert search_groups("what is the") == []


def test_words_with_digits_and_non_english_letters_are_kept_as_written():
    assert index_tokens("Q3 2023 café") == ["q3", "2023", "café"]


def test_cjk_bigrams_and_last_character():
    assert index_tokens("收入不含退款") == ["收入", "入不", "不含", "含退", "退款", "款"]
    assert index_tokens("税") == ["税"]


def test_single_cjk_character_is_a_prefix_group():
    assert search_groups("税") == [SearchGroup(("税",), prefix=True)]


def test_short_cjk_run_is_a_phrase_long_run_is_bigrams():
    assert search_groups("收入口径") == [SearchGroup(("收入", "入口", "口径"))]
    long = search_groups("卡罗琳去了支持小组")
    assert all(len(g.tokens) == 1 and not g.prefix for g in long)
    assert SearchGroup(("支持",)) in long and SearchGroup(("小组",)) in long


def test_mixed_text_splits_at_script_changes():
    assert index_tokens("Q3收入 refunds退款") == ["q3", "收入", "入", "refund", "退款", "款"]
    groups = search_groups("Q3收入 refunds")
    assert groups == [SearchGroup(("q3",)), SearchGroup(("收入",)), SearchGroup(("refund",))]


def test_relaxed_groups_split_cjk_phrases():
    wide = relaxed_groups(search_groups("收入口径 refunds"))
    assert [g.tokens for g in wide] == [("收入",), ("入口",), ("口径",), ("refund",)]


def test_full_width_and_case_fold_before_stemming():
    assert index_tokens("ＲＥＦＵＮＤＳ") == ["refund"]


@given(st.lists(st.sampled_from(["refund", "revenue", "the", "收入", "税", "Q3", "running"])))
def test_every_query_group_is_in_the_index_of_the_same_text(words):
    """Round trip: whatever a query asks for, the same text indexed contains."""
    text = " ".join(words)
    indexed = index_tokens(text)
    for group in search_groups(text):
        if group.prefix:
            assert any(t.startswith(group.tokens[0]) for t in indexed)
        else:
            for token in group.tokens:
                assert token in indexed


@given(st.text(max_size=80))
def test_analysis_never_fails_and_never_yields_stopwords(text):
    tokens = index_tokens(text)
    assert all(t and " " not in t for t in tokens)
    assert not set(tokens) & ENGLISH_STOPWORDS


def test_search_word_is_none_only_for_stopwords():
    assert search_word("the") is None
    assert search_word("accepted") == "accept"


def test_default_titles_repeat_the_text():
    assert title_repeats_text("Revenue excludes refunds", "Revenue excludes refunds in Q3")
    assert title_repeats_text("Heading", "# Heading\nbody")
    assert title_repeats_text("A long first line…", "A long first line that goes on")
    assert not title_repeats_text("Refund policy", "Revenue excludes refunds")
    assert embed_text("Refund policy", "Revenue excludes refunds") == (
        "Refund policy\nRevenue excludes refunds"
    )
    assert embed_text("Revenue", "Revenue excludes refunds") == "Revenue excludes refunds"
    assert embed_key("a", "b") != embed_key("a", "c")


def test_fusion_normalises_each_ranking():
    assert normalise({"a": 4.0, "b": 2.0}, from_min=False) == {"a": 1.0, "b": 0.5}
    assert normalise({"a": 0.9, "b": 0.8}, from_min=True) == {"a": 1.0, "b": 0.0}
    fused = fuse({"a": 10.0, "b": 5.0}, {"b": 0.9, "c": 0.7})
    assert fused["b"] > fused["a"] > fused["c"] == 0.0


def test_irregular_forms_meet_their_base_form():
    assert index_tokens("She went camping") == index_tokens("go camping")
    assert index_tokens("bought") == index_tokens("buying") == ["buy"]
    assert [g.tokens for g in search_groups("children")] == [("child",)]
