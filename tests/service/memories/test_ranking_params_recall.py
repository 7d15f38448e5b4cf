"""A RecallQuery's RankingParams reach the index's SQL (issue 16).

``benchmarks/ranking_cv.py`` measures other values of each constant through
``RecallQuery(ranking=...)``; these show each one it varies really changes the
order, in a real home with the production engine.
"""

from __future__ import annotations

from dataclasses import replace

from jupyter_memory import Memory
from jupyter_memory.core.memories.ranking import DEFAULT_RANKING, PLAIN_BM25
from jupyter_memory.core.memories.recall_query import RecallQuery


def _ids(mem: Memory, text: str, limit: int = 10, **ranking: object) -> list[str]:
    params = replace(DEFAULT_RANKING, **ranking)  # type: ignore[arg-type]
    q = RecallQuery(text=text, limit=limit, mode="lexical", record_access=False, ranking=params)
    return [h.id for h in mem.hooks.recall_query(q)]


def test_column_weights_decide_between_title_and_body(mem: Memory):
    titled = mem.remember("Numbers for the next quarter", title="Budget")
    body = mem.remember("The budget review moved to Friday", title="Meeting notes")
    assert _ids(mem, "budget") == [titled.id, body.id]
    assert _ids(mem, "budget", bm25_weights=(0.01, 1.0, 1.0)) == [body.id, titled.id]


def test_any_word_pass_does_not_pin_all_word_hits(mem: Memory):
    for i in range(4):
        mem.remember(f"refund number {i} was processed")
    both = mem.remember(
        "The refund policy is described at length in the handbook with many other topics"
        " such as travel, equipment, onboarding, offboarding and security reviews"
    )
    short = mem.remember("Policy, policy, policy", title="Policy")
    # All words first: the one memory with both words is enough for limit 1.
    assert _ids(mem, "refund policy", limit=1) == [both.id]
    # One any-word pass: bm25 alone, and the short note full of the rarer word wins.
    assert _ids(mem, "refund policy", limit=1, relaxation="any") == [short.id]


def test_relevance_floor_decides_how_far_attention_moves_a_hit(mem: Memory, clock):
    stale = mem.remember("Deploy checklist for staging", tier="session")
    clock.advance(days=10)  # a session memory's attention halves every day
    fresh = mem.remember("Deploy checklist for staging, with the cluster notes", tier="session")
    # Production (floor 1.0): relevance alone, the shorter exact note first.
    assert _ids(mem, "deploy checklist staging") == [stale.id, fresh.id]
    # A floor of 0.5 lets attention halve a stale hit's score: the fresh one wins.
    assert _ids(mem, "deploy checklist staging", relevance_floor=0.5) == [fresh.id, stale.id]


def test_attention_still_orders_equally_relevant_hits(mem: Memory, clock):
    old = mem.remember("Deploy checklist for the staging cluster", tier="session")
    clock.advance(days=10)
    new = mem.remember("Deploy checklist for the staging cluster", tier="session")
    assert _ids(mem, "deploy checklist") == [new.id, old.id]
    q = RecallQuery(
        text="deploy checklist", mode="lexical", record_access=False, ranking=PLAIN_BM25
    )
    hits = mem.hooks.recall_query(q)
    assert [h.id for h in hits] == [new.id, old.id] and hits[0].score == hits[1].score


def test_all_words_cap_bounds_the_first_pass_not_the_any_word_pass(mem: Memory):
    """The newest ``all_words_cap`` holders of every word are scored; an older
    holder with a better bm25 is reached once the bound covers it, and a limit
    that covers every match always does."""
    best = mem.remember("ledger ledger ledger", title="ledger")  # the best bm25, the oldest
    newer = [mem.remember(f"ledger entry number {i} for the audit trail") for i in range(6)]
    assert _ids(mem, "ledger", limit=1) == [best.id]
    assert _ids(mem, "ledger", limit=1, all_words_cap=3) == [newer[-1].id]
    assert _ids(mem, "ledger", limit=1, all_words_cap=3, candidate_cap=3) == [newer[-1].id]
    # The limit covers every match: every match is reached whatever the bound.
    assert set(_ids(mem, "ledger", limit=7, all_words_cap=3)) == {best.id, *(m.id for m in newer)}
    # A second word nobody holds with "ledger": the any-word pass, with its own cap.
    assert _ids(mem, "ledger zeppelin", limit=1, all_words_cap=3) == [best.id]
