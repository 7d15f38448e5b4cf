"""The constants of recall ranking, in one typed object: :class:`RankingParams`.

Production uses :data:`DEFAULT_RANKING`; every value is the one
``docs/recall.md`` states (a test parses its "Cross-validated constants" table
and compares). ``benchmarks/ranking_cv.py`` passes other instances through
``RecallQuery(ranking=...)`` to cross-validate each constant on LoCoMo, so the
benchmark measures the production code path, not a copy of it.

:data:`PLAIN_BM25` is the baseline the tuning is measured against: FTS5 bm25
with equal column weights, no attention factor, one any-word pass, nothing
bounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..._i18n import M_
from ...exceptions import ValidationError
from .embedding import (
    FUSION_POOL,
    LEXICAL_WEIGHT,
    MIN_COSINE,
    SEMANTIC_CENTRE,
    SEMANTIC_MIN_SCALED,
    SEMANTIC_POWER,
    SEMANTIC_SPAN,
)

Relaxation = Literal["all_then_any", "any"]
Idf = Literal["lucene", "fts5"]
IDFS: tuple[Idf, ...] = ("lucene", "fts5")
RELAXATIONS: tuple[Relaxation, ...] = ("all_then_any", "any")
# "Unbounded" for the work bounds: larger than any home the benchmarks build.
UNBOUNDED = 1_000_000


@dataclass(frozen=True)
class RankingParams:
    """How lexical recall turns matches into an order (docs/recall.md, "Lexical ranking").

    * ``bm25_weights``: FTS5 bm25 column weights for title, tags, body.
    * ``relevance_floor``: score = relevance × (floor + (1 − floor) × attention);
      1.0 switches the attention factor off.
    * ``relaxation``: ``"all_then_any"`` asks for every query word first and widens
      to any word when that returns fewer than the limit; ``"any"`` is one
      any-word pass (plain BM25).
    * ``candidate_cap``: matches (newest first) scored with bm25 at most.
    * ``all_words_cap``: the same bound for the first pass, which asks for every
      word (a one-word query is only that pass); memories that hold all the
      words differ in bm25 only by counts and lengths, so the newest of them
      are scored and the any-word pass keeps the wider ``candidate_cap``.
    * ``rerank_pool``: × limit, the most relevant candidates the attention factor re-ranks.
    * ``max_cjk_phrase``: a CJK run up to this long must match as written; a
      longer one is a sentence, asked as its separate bigrams.
    * ``project_boost``: factor for the focused project's memories over the user layer's.
    * ``idf``: bm25's idf, ``"lucene"`` (``ln(1 + (N − df + 0.5)/(df + 0.5))``) or
      ``"fts5"`` (``ln((N − df + 0.5)/(df + 0.5))`` floored at 1e-6), where our
      postings rank (a query FTS5 answers always has FTS5's).

    Hybrid recall's fusion (docs/recall.md, "Fusion"; ``core/memories/embedding.py``):

    * ``fusion_idf``: the idf of the lexical candidates hybrid recall fuses (its own:
      cross-validated apart from lexical recall's).
    * ``lexical_weight``: the lexical share of the fused score (the semantic one is
      1 − it).
    * ``semantic_floor``: the cosine a memory found by the embedder alone must reach.
    * ``fusion_pool``: candidates each ranking contributes (at least 4 × limit).
    * ``semantic_span``: the cosine range that counts as the whole 0…1 scale: when
      the semantic candidates' cosines span less, the best is scaled below 1.
    * ``semantic_power``: the normalised cosine is raised to it (> 1 favours the
      embedder's nearest few over the rest of its candidates).
    * ``semantic_centre``: score the embedder's candidates by their cosine to the
      query with both centred on the mean vector of the layer's memories (the
      candidates and ``semantic_floor`` stay on the plain cosine).
    * ``semantic_min_scaled``: the share of the 0…1 semantic scale a memory found
      by the embedder alone must reach, or it is left out (no score-0 filler).
    """

    bm25_weights: tuple[float, float, float] = (1.0, 2.0, 1.0)
    relevance_floor: float = 1.0
    relaxation: Relaxation = "all_then_any"
    candidate_cap: int = 1000
    all_words_cap: int = 200
    rerank_pool: int = 4
    max_cjk_phrase: int = 4
    project_boost: float = 1.25
    idf: Idf = "lucene"
    fusion_idf: Idf = "fts5"
    lexical_weight: float = LEXICAL_WEIGHT
    semantic_floor: float = MIN_COSINE
    fusion_pool: int = FUSION_POOL
    semantic_span: float = SEMANTIC_SPAN
    semantic_power: float = SEMANTIC_POWER
    semantic_centre: bool = SEMANTIC_CENTRE
    semantic_min_scaled: float = SEMANTIC_MIN_SCALED

    def __post_init__(self) -> None:
        if len(self.bm25_weights) != 3 or any(w < 0 for w in self.bm25_weights):
            raise ValidationError(M_("three non-negative weights"), field="bm25_weights")
        if not 0.0 <= self.relevance_floor <= 1.0:
            raise ValidationError(M_("must be from 0 to 1"), field="relevance_floor")
        if self.relaxation not in RELAXATIONS:
            raise ValidationError(
                M_(
                    "{value!r} is not one of: {choices}",
                    value=self.relaxation,
                    choices=", ".join(RELAXATIONS),
                ),
                field="relaxation",
            )
        for name in ("idf", "fusion_idf"):
            if getattr(self, name) not in IDFS:
                raise ValidationError(
                    M_(
                        "{value!r} is not one of: {choices}",
                        value=getattr(self, name),
                        choices=", ".join(IDFS),
                    ),
                    field=name,
                )
        if not 0.0 <= self.lexical_weight <= 1.0:
            raise ValidationError(M_("must be from 0 to 1"), field="lexical_weight")
        if self.semantic_span < 0:
            raise ValidationError(M_("must not be negative"), field="semantic_span")
        if not 0.0 <= self.semantic_min_scaled <= 1.0:
            raise ValidationError(M_("must be from 0 to 1"), field="semantic_min_scaled")
        if self.semantic_power <= 0:
            raise ValidationError(M_("must be positive"), field="semantic_power")
        if not isinstance(self.semantic_centre, bool):
            raise ValidationError(M_("must be true or false"), field="semantic_centre")
        for name in (
            "candidate_cap",
            "all_words_cap",
            "rerank_pool",
            "max_cjk_phrase",
            "fusion_pool",
        ):
            if int(getattr(self, name)) < 1:
                raise ValidationError(M_("must be at least 1"), field=name)
        if self.project_boost <= 0:
            raise ValidationError(M_("must be positive"), field="project_boost")


DEFAULT_RANKING = RankingParams()

PLAIN_BM25 = RankingParams(
    bm25_weights=(1.0, 1.0, 1.0),
    relevance_floor=1.0,
    relaxation="any",
    candidate_cap=UNBOUNDED,
    all_words_cap=UNBOUNDED,
    rerank_pool=UNBOUNDED,
    max_cjk_phrase=1,
    project_boost=1.0,
    idf="fts5",
)
