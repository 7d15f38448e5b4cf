"""Which memories an agent's context block carries, by spec 003's attention tiers.

Spec 003 ("注意力评分与层级", "Token 预算") loads memories in three tiers:

* **HOT** (attention > 0.7): always in the block, at most ``HOT_TOKENS`` (~500).
* **WARM**: at activation, the ``WARM_LIMIT`` (10) memories with attention >
  ``WARM_MIN_ATTENTION`` (0.5) most relevant to the conversation, at most
  ``WARM_TOKENS`` (~2,000).
* **COLD index**: each memory's id and title, at most ``COLD_TOKENS`` (~200),
  with the count of memories not loaded and a pointer to an explicit ``recall``.

"Relevant to the conversation" (:func:`relevance_scores`): the conversation
text is the person's latest words (the ``%%ask`` cell, the chat message, the
``query`` an agent passed). It and each memory (title, tags, body) are
analysed as the search index does (:func:`~..text.index_tokens`: stemmed
English words without stopwords, Chinese bigrams); a memory's relevance is
the idf-weighted sum of the query's terms it holds, idf counted over the
candidates. A memory sharing no term is not WARM. Without a conversation text
(the block shown before anything was said), or with only stopwords in it,
every candidate counts as equally relevant and attention decides.

Within every tier the focused project's memories come first, then higher
relevance, then higher attention, then the newer one. A memory past its
sector's lifetime is COLD whatever its score (``sectors.expired``), so it is
never HOT or WARM. Budgets are counted with :func:`~..text.estimate_tokens`
over the rendered line plus one token per ``<`` (the block escapes
look-alikes of its delimiters as ``&lt;``, at most one extra token each), so
the escaped block stays within them. A memory too long for what is left of a
budget is skipped and the next one tried (at most ``TRIES`` per tier, and
not once fewer than ``MIN_LINE_TOKENS`` are left); its title can still appear
in the COLD index. Pure: the caller gathers the candidates (service/memories/agent_tiers.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..text import estimate_tokens, index_tokens, squash_whitespace, title_repeats_text
from .attention import HOT
from .disclosure import snippet

HOT_TOKENS = 500
WARM_TOKENS = 2_000
COLD_TOKENS = 200
WARM_LIMIT = 10
WARM_MIN_ATTENTION = 0.5
# Per memory, so one long note cannot take a whole tier: HOT lines are short
# reminders, WARM lines the spec's "context" disclosure level (~200 tokens).
HOT_ITEM_TOKENS = 100
WARM_ITEM_TOKENS = 200
# Lines tried per tier, and the budget left below which no line can fit.
TRIES = 60
MIN_LINE_TOKENS = 4


@dataclass(frozen=True)
class TierCandidate:
    """One memory the agent may see (already filtered by the governance rules)."""

    id: str
    title: str
    text: str  # the body; "" when the caller did not load it (COLD-only candidates)
    attention: float
    relevance: float = 1.0  # > 0: relevant to the conversation (1.0 without one)
    in_project: bool = False  # belongs to the focused project
    expired: bool = False  # past its sector lifetime: COLD whatever its score
    updated: str = ""  # ISO time, the last tie-breaker


@dataclass(frozen=True)
class TierLine:
    id: str
    line: str
    tokens: int


@dataclass(frozen=True)
class MemoryTiers:
    """The selected lines of each tier; ``cold_more`` memories are not named at all."""

    hot: tuple[TierLine, ...] = ()
    warm: tuple[TierLine, ...] = ()
    cold: tuple[TierLine, ...] = ()
    cold_more: int = 0
    query: str = ""

    @property
    def is_empty(self) -> bool:
        return not (self.hot or self.warm or self.cold or self.cold_more)

    def tokens(self, tier: str) -> int:
        return sum(line.tokens for line in getattr(self, tier))

    def ids(self) -> list[str]:
        return [line.id for line in (*self.hot, *self.warm, *self.cold)]

    def to_dict(self) -> dict[str, object]:
        return {
            "hot": [line.id for line in self.hot],
            "warm": [line.id for line in self.warm],
            "cold_index": [line.id for line in self.cold],
            "cold_more": self.cold_more,
            "tokens": {t: self.tokens(t) for t in ("hot", "warm", "cold")},
        }


def terms_of(*texts: str) -> frozenset[str]:
    """The analysed terms of a memory or a conversation text (as the search index has them)."""
    return frozenset(t for text in texts for t in index_tokens(text))


def relevance_scores(query: str, docs: Mapping[str, frozenset[str]]) -> dict[str, float]:
    """Each doc's relevance to ``query``: idf-weighted sum of the query terms it holds.

    ``1.0`` for every doc when the query has no term (nothing said yet, or only
    stopwords): then attention alone ranks them.
    """
    wanted = terms_of(query)
    if not wanted:
        return dict.fromkeys(docs, 1.0)
    n = len(docs)
    df = {t: sum(1 for terms in docs.values() if t in terms) for t in wanted}
    idf = {t: math.log(1.0 + n / df[t]) for t in wanted if df[t]}
    return {key: sum(idf.get(t, 0.0) for t in wanted & terms) for key, terms in docs.items()}


def cost(line: str) -> int:
    """Tokens of ``line`` once the block has escaped it (see the module docstring)."""
    return estimate_tokens(line) + line.count("<")


def ordered(
    candidates: Sequence[TierCandidate], relevance: Mapping[str, float] | None = None
) -> list[TierCandidate]:
    """Project first, then more relevant, then more attention, then newer.

    ``relevance`` (by id) overrides the candidates' own field.
    """
    rel = relevance or {}
    # Two stable sorts: newest first, then the main key keeps that order on ties.
    newest = sorted(candidates, key=lambda c: c.updated, reverse=True)
    return sorted(
        newest,
        key=lambda c: (not c.in_project, -rel.get(c.id, c.relevance), -c.attention),
    )


def _title(c: TierCandidate) -> str:
    from ..secrets.detector import redact  # lazy: only where a context is built

    return squash_whitespace(redact(c.title)) or c.id


def content_line(c: TierCandidate, max_tokens: int, query: str = "") -> str:
    """``- title: text`` (just the text when the title is its first words), text cut to size.

    Secrets are redacted before the cut (a memory the person kept with
    ``allow_secret`` reaches an agent as ``⟨redacted: kind⟩``)."""
    from ..secrets.detector import redact

    text = redact(c.text)
    body = snippet(text, query, max_tokens) if text.strip() else ""
    title = _title(c)
    if not body:
        return f"- {title}"
    if title_repeats_text(c.title, c.text):
        return f"- {body}"
    return f"- {title}: {body}"


def _fill(
    pool: Sequence[TierCandidate], budget: int, limit: int, max_tokens: int, query: str
) -> list[tuple[TierCandidate, TierLine]]:
    out: list[tuple[TierCandidate, TierLine]] = []
    used = 0
    for c in pool[:TRIES]:
        if len(out) >= limit or budget - used < MIN_LINE_TOKENS:
            break
        line = content_line(c, max_tokens, query)
        tokens = cost(line)
        if used + tokens > budget:
            continue
        out.append((c, TierLine(c.id, line, tokens)))
        used += tokens
    return out


def select_tiers(
    candidates: Sequence[TierCandidate],
    *,
    query: str = "",
    relevance: Mapping[str, float] | None = None,
    others: int = 0,
    hot_tokens: int = HOT_TOKENS,
    warm_tokens: int = WARM_TOKENS,
    cold_tokens: int = COLD_TOKENS,
    warm_limit: int = WARM_LIMIT,
) -> MemoryTiers:
    """The three tiers from ``candidates``; ``others`` counts eligible memories not among them.

    ``relevance`` (by id) overrides the candidates' own ``relevance``.
    """
    rel = relevance or {}
    ranked = ordered(candidates, rel)
    hot_pool = [c for c in ranked if not c.expired and c.attention > HOT]
    hot = _fill(hot_pool, hot_tokens, len(hot_pool), HOT_ITEM_TOKENS, query)
    taken = {c.id for c, _ in hot}
    warm_pool = [
        c
        for c in ranked
        if c.id not in taken
        and not c.expired
        and c.attention > WARM_MIN_ATTENTION
        and rel.get(c.id, c.relevance) > 0
    ]
    warm = _fill(warm_pool, warm_tokens, warm_limit, WARM_ITEM_TOKENS, query)
    taken |= {c.id for c, _ in warm}
    cold: list[TierLine] = []
    used = 0
    rest = [c for c in ranked if c.id not in taken]
    for c in rest:
        # Spec 003's COLD index: "titles, IDs, count" — the id, so an agent can get
        # or recall the memory by it rather than by its title's words.
        line = f"- {c.id}: {_title(c)}"
        tokens = cost(line)
        if used + tokens > cold_tokens:
            break
        cold.append(TierLine(c.id, line, tokens))
        used += tokens
    return MemoryTiers(
        hot=tuple(line for _, line in hot),
        warm=tuple(line for _, line in warm),
        cold=tuple(cold),
        cold_more=len(rest) - len(cold) + max(0, others),
        query=query,
    )


__all__ = [
    "COLD_TOKENS",
    "HOT_TOKENS",
    "WARM_LIMIT",
    "WARM_MIN_ATTENTION",
    "WARM_TOKENS",
    "MemoryTiers",
    "TierCandidate",
    "TierLine",
    "content_line",
    "cost",
    "ordered",
    "relevance_scores",
    "select_tiers",
    "terms_of",
]
