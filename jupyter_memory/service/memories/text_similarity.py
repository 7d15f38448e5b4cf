"""The embedding cosine the identity decision takes with the semantic extra.

:func:`jupyter_memory.core.knowledge.identity.relate` is pure and takes the
cosine of two texts as a callable; this is that callable, over the same
embedder as semantic recall (``service/memories/semantic.py``), made on the
first comparison. Both texts are encoded as queries (e5's prefix for
symmetric comparisons); vectors are kept per text in a bounded cache, so a
queue compared again and again is encoded once (~16 ms a text).

Round ten: it is also the identity decision's :class:`~jupyter_memory.core.knowledge.identity.KnownChanges`.
For a pair the slot reading leaves open, :meth:`EmbeddingSimilarity.paraphrase_share` compares
the pair's change (the unit direction of one vector minus the other, its sign ignored) with
the labelled changes the store ships (``store/knowledge/known_changes.py``), only when they were
made with this embedder; one product of ≈ 1,000 × 384 per open pair.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ...core.memories.embedding import MAX_EMBED_CHARS, Embedder
from ...store.knowledge.known_changes import ChangeBank, load_bank

CACHE_TEXTS = 4096


class EmbeddingSimilarity:
    """``similarity(a, b)``: the cosine of two texts' embeddings (thread-safe, cached), and
    ``paraphrase_share(a, b, k)``: how known pairs with the nearest change were labelled."""

    def __init__(
        self,
        factory: Callable[[], Embedder],
        bank: Callable[[], ChangeBank | None] = load_bank,
    ) -> None:
        self._factory = factory
        self._model: Embedder | None = None
        self._vectors: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._bank = bank
        self.encodings = 0  # texts encoded (tests, benchmarks)

    def _vector(self, text: str) -> Any:
        key = " ".join(text.split())[:MAX_EMBED_CHARS]
        vec = self._vectors.get(key)
        if vec is not None:
            self._vectors.move_to_end(key)
            return vec
        if self._model is None:
            self._model = self._factory()
        vec = self._model.embed_query(key)
        self.encodings += 1
        self._vectors[key] = vec
        if len(self._vectors) > CACHE_TEXTS:
            self._vectors.popitem(last=False)
        return vec

    def __call__(self, a: str, b: str) -> float:
        import numpy as np  # present with the extra, which is the only way here

        with self._lock:
            va, vb = self._vector(a), self._vector(b)
        return float(np.dot(np.asarray(va, dtype=np.float32), np.asarray(vb, dtype=np.float32)))

    def paraphrase_share(self, a: str, b: str, k: int) -> float | None:
        """The share of paraphrases among the ``k`` known changes nearest to this pair's, or
        None: no bank, a bank of another embedder, or two texts with one vector."""
        import numpy as np

        with self._lock:
            va, vb = self._vector(a), self._vector(b)
            model = self._model
        bank = self._bank()
        if bank is None or model is None or not _same_model(model, bank):
            return None
        change = np.asarray(va, dtype=np.float32).ravel() - np.asarray(vb, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(change))
        if norm < 1e-6 or change.shape[0] != bank.dim:
            return None
        closeness = np.abs(bank.changes @ (change / norm))
        nearest = np.argpartition(-closeness, k - 1)[:k] if k < len(closeness) else slice(None)
        return float(np.mean(bank.paraphrase[nearest]))


def _same_model(model: Embedder, bank: ChangeBank) -> bool:
    """The bank's directions mean something only in the space they were made in (the query
    vector does not depend on how passages are capped, so the base name is what counts)."""
    name = str(getattr(model, "name", ""))
    return (name == bank.model or name.startswith(bank.model + "/")) and int(model.dim) == bank.dim


__all__ = ["EmbeddingSimilarity"]
