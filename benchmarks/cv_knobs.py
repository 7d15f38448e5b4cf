"""The constants ``ranking_cv.py`` cross-validates, each with its grid (neutral value first).

A :class:`Config` is one point: the analyser's switches (Snowball stems, the
Snowball stopword list, the stopwords added to it, the irregular verb forms)
and a :class:`RankingParams`. ``kind`` says what a constant is for: ``"quality"`` ones exist to rank better
and are kept only when the held-out Δ is above 0; ``"bound"`` ones bound the
work or keep matches reachable at scale, and are kept unless the held-out Δ is
below 0; ``"unmeasurable"`` ones LoCoMo cannot move (no tags, no Chinese, one
layer, homes far below the candidate cap): their Δ is 0 by construction, not
evidence either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from jupyter_memory.core.memories.ranking import (
    DEFAULT_RANKING,
    PLAIN_BM25,
    UNBOUNDED,
    RankingParams,
)
from jupyter_memory.core.stopwords import ADDED_STOPWORDS, ENGLISH_STOPWORDS, IRREGULAR_FORMS


@dataclass(frozen=True)
class Config:
    stemming: bool
    base_stopwords: bool
    added_stopwords: bool
    irregular_forms: bool
    ranking: RankingParams

    @property
    def analyser(self) -> tuple[bool, bool, bool, bool]:
        return (self.stemming, self.base_stopwords, self.added_stopwords, self.irregular_forms)


def production_config() -> Config:
    added = ADDED_STOPWORDS <= ENGLISH_STOPWORDS
    return Config(True, True, added, bool(IRREGULAR_FORMS), DEFAULT_RANKING)


def plain_config() -> Config:
    """Plain BM25: words as written (no stems, no stopwords), equal column weights,
    no attention, one any-word pass, nothing bounded."""
    return Config(False, False, False, False, PLAIN_BM25)


def _switch(name: str) -> Knob:
    return Knob(
        name.replace("_", " "),
        (False, True),
        lambda c: getattr(c, name),
        lambda c, v: replace(c, **{name: bool(v)}),
    )


@dataclass(frozen=True)
class Knob:
    name: str
    grid: tuple[object, ...]
    get: Callable[[Config], object] = field(compare=False)
    set: Callable[[Config, object], Config] = field(compare=False)
    kind: Literal["quality", "bound", "unmeasurable"] = "quality"
    # The recall mode it is measured in: hybrid's fusion constants move only hybrid.
    mode: Literal["lexical", "hybrid"] = "lexical"

    @property
    def measurable(self) -> bool:
        return self.kind != "unmeasurable"

    def kept(self, held_out_delta: float) -> bool | None:
        if self.kind == "unmeasurable":
            return None
        return held_out_delta > 0 if self.kind == "quality" else held_out_delta >= 0

    def with_grid(self, values: Sequence[str]) -> Knob:
        kind = type(self.grid[0])
        parse: Callable[[str], object] = (
            (lambda s: s.lower() in {"1", "true", "on"}) if kind is bool else kind
        )
        return replace(self, grid=tuple(parse(v) for v in values))


Kind = Literal["quality", "bound", "unmeasurable"]


def _param(
    name: str,
    grid: tuple[object, ...],
    kind: Kind = "quality",
    mode: Literal["lexical", "hybrid"] = "lexical",
) -> Knob:
    return Knob(
        name,
        grid,
        lambda c: getattr(c.ranking, name),
        lambda c, v: replace(c, ranking=replace(c.ranking, **{name: v})),
        kind,
        mode,
    )


def _weight(i: int, name: str, grid: tuple[float, ...], kind: Kind = "quality") -> Knob:
    def put(c: Config, v: object) -> Config:
        w = list(c.ranking.bm25_weights)
        w[i] = float(v)  # type: ignore[arg-type]
        return replace(c, ranking=replace(c.ranking, bm25_weights=(w[0], w[1], w[2])))

    return Knob(name, grid, lambda c: c.ranking.bm25_weights[i], put, kind)


KNOBS: list[Knob] = [
    _weight(0, "bm25_weights[0] (title)", (1.0, 1.5, 2.0, 3.0, 4.0, 6.0)),
    # LoCoMo memories have no tags: the tags column is empty.
    _weight(1, "bm25_weights[1] (tags)", (1.0, 2.0), "unmeasurable"),
    _param("relevance_floor", (1.0, 0.95, 0.9, 0.85, 0.8, 0.7, 0.5)),
    # The all-words pass also keeps memories with every word reachable when
    # any-word matches pass the candidate cap (the newest are scored).
    _param("relaxation", ("any", "all_then_any"), "bound"),
    _param("rerank_pool", (UNBOUNDED, 8, 4, 2, 1), "bound"),
    # A conversation has ~250 memories: a cap of 1000 never binds.
    _param("candidate_cap", (UNBOUNDED, 1000), "unmeasurable"),
    _param("all_words_cap", (UNBOUNDED, 200), "bound"),
    # LoCoMo is English: no CJK run in any question.
    _param("max_cjk_phrase", (1, 4), "unmeasurable"),
    # One layer per home: nothing to boost.
    _param("project_boost", (1.0, 1.25), "unmeasurable"),
    # bm25's idf where our postings rank (issue 33): Lucene's or FTS5's floored one.
    _param("idf", ("fts5", "lucene")),
    _switch("stemming"),
    _switch("base_stopwords"),
    _switch("added_stopwords"),
    _switch("irregular_forms"),
]

# Hybrid recall's fusion (run with --hybrid). Neutral values: an even split,
# no floor for embedder-only hits, min-max scaling as it comes.
HYBRID_KNOBS: list[Knob] = [
    _param("lexical_weight", (0.5, 0.4, 0.6), mode="hybrid"),
    # A bound on what the embedder alone may bring (a small home must not answer
    # with its least unrelated memory): kept unless it hurts.
    _param("semantic_floor", (0.0, 0.8, 0.82), "bound", mode="hybrid"),
    _param("fusion_pool", (50, 100), "bound", mode="hybrid"),
    _param("semantic_span", (0.0, 0.05, 0.08), mode="hybrid"),
    _param("semantic_power", (1.0, 1.5, 2.0), mode="hybrid"),
    # Centre the candidates' cosines on the layer's mean vector (off: plain cosine).
    _param("semantic_centre", (False, True), mode="hybrid"),
    # Embedder-only hits at the bottom of the semantic scale left out (issue 33): a
    # bound against score-0 filler, kept unless it hurts.
    _param("fusion_idf", ("fts5", "lucene"), mode="hybrid"),
    _param("semantic_min_scaled", (0.0, 0.01, 0.05, 0.1, 0.2), "bound", mode="hybrid"),
]
