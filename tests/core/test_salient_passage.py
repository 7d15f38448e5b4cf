"""The salient passage of a long note (core/memories/passage.py): which sentences are embedded."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.memories.passage import (
    content_terms,
    note_rarity,
    salient_passage,
    sentence_pieces,
)
from jupyter_memory.core.text import analyze


def cost(piece: str) -> int:
    """A stand-in tokenizer: a word or a CJK bigram is one token (plus one a piece)."""
    return len(analyze(piece)) + 1


WORDS = ["refund", "queue", "Lena", "Lisbon", "2023", "the", "was", "cleared", "cat", "Pixel"]
ZH = ["收入", "退款", "季度", "报告", "周五", "提交", "华东区", "订单"]
EN_END = [". ", "! ", "? ", ".\n", "\n\n"]
ZH_END = ["。", "！", "？", "；"]

en_sentence = st.builds(
    lambda words, end: " ".join(words) + end,
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12),
    st.sampled_from(EN_END),
)
zh_sentence = st.builds(
    lambda words, end: "".join(words) + end,
    st.lists(st.sampled_from(ZH), min_size=1, max_size=8),
    st.sampled_from(ZH_END),
)
notes = st.lists(st.one_of(en_sentence, zh_sentence), min_size=1, max_size=30).map("".join)


def is_in_order_subsequence(out: str, pieces: list[str]) -> bool:
    """``out`` is some pieces of the note, joined in their order (the last one's
    trailing white space dropped)."""

    def walk(at: int, i: int) -> bool:
        if at == len(out):
            return True
        for j in range(i, len(pieces)):
            p = pieces[j]
            if out.startswith(p, at) and walk(at + len(p), j + 1):
                return True
            q = p.rstrip()
            if q and out.startswith(q, at) and at + len(q) == len(out):
                return True
        return False

    return walk(0, 0)


@settings(max_examples=200, deadline=None)
@given(notes)
def test_sentence_pieces_join_back_into_the_text(text: str):
    assert "".join(sentence_pieces(text)) == text


@settings(max_examples=200, deadline=None)
@given(notes, st.integers(min_value=1, max_value=80))
def test_a_salient_passage_is_the_notes_sentences_in_order_within_the_budget(
    text: str, budget: int
):
    out = salient_passage(text, budget, cost)
    pieces = sentence_pieces(text)
    if cost(text) <= budget:
        assert out == text
        return
    assert is_in_order_subsequence(out, pieces)
    if any(cost(p) <= budget for p in pieces if content_terms(p)):
        assert sum(cost(p) for p in sentence_pieces(out)) <= budget
        assert out.strip()


@settings(max_examples=100, deadline=None)
@given(notes)
def test_a_note_within_the_budget_is_embedded_as_it_is(text: str):
    assert salient_passage(text, cost(text), cost) == text
    assert salient_passage(text, cost(text) + 5, cost, lambda t: 1.0) == text


def test_the_sentences_with_the_notes_facts_are_chosen_over_filler_in_english():
    filler = [
        "It can help to set aside a little time each week to reflect on what is working.",
        "Try breaking the larger goal into smaller steps, so progress feels manageable.",
        "Remember that setbacks are a normal part of any journey.",
    ]
    fact = "Caroline adopted a grey cat named Pixel on 7 May 2023 in Lisbon."
    text = " ".join(["That sounds like a lot is going on."] + filler * 4 + [fact] + filler * 3)
    rare = {"caroline", "pixel", "lisbon", "2023", "adopted", "grey"}
    out = salient_passage(text, 40, cost, lambda t: 5.0 if t in rare else 0.1)
    assert out.startswith("That sounds like a lot is going on.")  # the first sentence kept
    assert fact in out
    assert sum(cost(p) for p in sentence_pieces(out)) <= 40


def test_the_sentences_with_the_notes_facts_are_chosen_over_filler_in_chinese():
    filler = "我们讨论了很多关于工作的事情。希望这些建议对你有帮助！"
    fact = "收入不含退款；季度报告在周五提交。"
    text = "你好，这是本周的总结。" + filler * 10 + fact + filler * 5
    pieces = sentence_pieces(text)
    assert "收入不含退款；" in pieces and "季度报告在周五提交。" in pieces
    # Rarity within the note alone: the filler's bigrams are in many sentences.
    out = salient_passage(text, 30, cost, note_rarity(pieces))
    assert out.startswith("你好，这是本周的总结。")
    assert "收入不含退款；季度报告在周五提交。" in out
    assert sum(cost(p) for p in sentence_pieces(out)) <= 30


def test_a_number_weighs_double_within_the_note():
    pieces = ["Paid 2023 invoices. ", "Paid march invoices."]
    weight = note_rarity(pieces)
    assert weight("2023") == 2 * weight("march")


def test_one_sentence_longer_than_the_budget_is_left_to_the_callers_cut():
    text = "a " * 100
    assert salient_passage(text, 10, cost) == text
    two = "Lena cleared the refund queue " * 10 + ". " + "Lisbon in May " * 10
    assert salient_passage(two, 5, cost) == sentence_pieces(two)[0]
