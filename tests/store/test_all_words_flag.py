"""The index flags the search hits that hold every word of the query (``ALL_WORDS``).

Hybrid recall keeps those hits in the list (docs/recall.md, "Keyword matches
are never lost"); it used to find them by reading every candidate's body and
tokenising it (``contains_all``). The flag must name exactly the candidates
``contains_all`` names: over generated notes, for queries whose all-words pass
finds many, few or none (so the search widens to any word), with and without
a filter, English and Chinese.
"""

from __future__ import annotations

import random

from jupyter_memory import Memory
from jupyter_memory.core.memories.embedding import contains_all
from jupyter_memory.core.text import search_groups
from jupyter_memory.store.memories.search_index import ALL_WORDS, SearchQuery
from tests.store.test_postings import _fill

QUERIES = [
    "refund revenue",
    "window budget tax",
    "refunds orders customer",
    "audit naive",
    "q3 2023 price",
    "nothing-here refund",
    "退款 refund",
    "收入 订单",
    "收入不含退款的订单",
    "税 口径",
]


def _flagged_and_contained(mem: Memory, query: SearchQuery) -> tuple[set[str], set[str]]:
    hits = mem.hooks.user.index.search(query)
    groups = search_groups(query.text)
    flagged = {h.id for h in hits if h.extra.get(ALL_WORDS)}
    contained = {
        h.id
        for h in hits
        if contains_all(
            groups, (h.title, " ".join(h.tags), mem.hooks.user.index.body_of(h.name) or "")
        )
    }
    return flagged, contained


def test_flags_name_the_hits_holding_every_word(mem: Memory) -> None:
    _fill(mem, 400, seed=5)
    widened = 0
    for text in QUERIES:
        for limit in (5, 40, 100, 400):
            for types in ((), ("semantic",)):
                query = SearchQuery(text=text, limit=limit, types=types)
                flagged, contained = _flagged_and_contained(mem, query)
                assert flagged == contained, (text, limit, types)
                hits = mem.hooks.user.index.search(query)
                widened += len(flagged) < len(hits)
    assert widened > 0  # some searches widened to any word, and were checked too


def test_flags_hold_after_writes_from_this_process(mem: Memory) -> None:
    rng = random.Random(9)
    _fill(mem, 120, seed=6)
    for i in range(30):
        words = rng.sample(["refund", "revenue", "window", "budget", "收入", "订单"], 3)
        mem.remember(" ".join(words) + f" note {i}", title=words[0])
    for text in QUERIES:
        flagged, contained = _flagged_and_contained(mem, SearchQuery(text=text, limit=60))
        assert flagged == contained, text
