"""Hybrid recall scores the embedder's candidates by centred cosine (issue 16, RankingParams.semantic_centre).

The embedder is a small one of our own behind the ``Embedder`` protocol: the
geometry a test needs (one memory typical of the home, one near the query in
what sets it apart) cannot be asked of a real model reliably. Everything else
— the files, the index, the background worker, the stored float16 vectors,
the fusion — is the production path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from jupyter_memory import Memory
from jupyter_memory.core.memories.disclosure import Level
from jupyter_memory.core.memories.ranking import DEFAULT_RANKING
from jupyter_memory.core.memories.recall_query import RecallQuery

# Every memory shares the first direction (as every note of a home shares its
# subject); "hub" is the most typical of them, "apart" differs from the home
# where the query does.
VECTORS = {
    "river": [1, 0, 0.3, 0.1],
    "meadow": [1, 0, -0.3, 0.1],
    "harbour": [1, 0, 0.1, -0.3],
    "orchard": [1, 0, -0.1, 0.3],
    "hub": [1, 0.2, 0, 0],
    "apart": [0.6, 0.8, 0, 0],
}
QUERY = [1, 0.5, 0, 0]


def _unit(v: Sequence[float]) -> np.ndarray:
    a = np.asarray(v, dtype=np.float32)
    return a / np.linalg.norm(a)


class GeometryEmbedder:
    """A text's vector is that of the first key word it holds; every query is QUERY."""

    name = "test/geometry"
    dim = 4

    def embed_query(self, text: str) -> np.ndarray:
        return _unit(QUERY)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([_unit(next(v for k, v in VECTORS.items() if k in t)) for t in texts])


@pytest.fixture
def geometry_home(memory_home, clock):
    m = Memory(home=memory_home, clock=clock, semantic=GeometryEmbedder)
    ids = {key: m.remember(f"Notes about the {key} walk").id for key in VECTORS}
    assert m.hooks.semantic.wait(timeout=60)
    yield m, ids
    m.close()


def _ask(m: Memory, **fusion: object) -> list[str]:
    ranking = replace(DEFAULT_RANKING, **fusion)  # type: ignore[arg-type]
    # No memory holds the query's word: the order is the embedder's alone.
    query = RecallQuery(
        text="lighthouse", limit=6, level=Level.index, record_access=False, ranking=ranking
    )
    return [h.id for h in m.hooks.recall_query(query)]


def test_centring_is_on_by_default():
    assert DEFAULT_RANKING.semantic_centre is True


def test_a_memory_typical_of_the_home_gives_way_to_one_near_the_query(geometry_home):
    m, ids = geometry_home
    # Plain cosine: the hub is nearest (0.965 against 0.894) and comes first.
    assert _ask(m, semantic_centre=False)[0] == ids["hub"]
    # Centred on the home's mean, what the hub shares with every note counts for nothing.
    assert _ask(m)[0] == ids["apart"]
    # Centring reorders the candidates; it does not change which they are.
    every = set(ids.values())
    assert set(_ask(m, semantic_min_scaled=0.0)) == every
    assert set(_ask(m, semantic_centre=False, semantic_min_scaled=0.0)) == every
    # By default the embedder's weakest pick, at 0 of its scale, is left out (issue 33).
    assert len(_ask(m)) < len(every) and ids["apart"] in _ask(m)
