"""The embedding cosine the identity decision takes with the semantic extra.

:func:`jupyter_memory.core.knowledge.identity.relate` is pure and takes the
cosine of two texts as a callable; this is that callable, over the same
embedder as semantic recall (``service/memories/semantic.py``), made on the
first comparison. Both texts are encoded as queries (e5's prefix for
symmetric comparisons); vectors are kept per text in a bounded cache, so a
queue compared again and again is encoded once (~16 ms a text).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ...core.memories.embedding import MAX_EMBED_CHARS, Embedder

CACHE_TEXTS = 4096


class EmbeddingSimilarity:
    """``similarity(a, b)``: the cosine of two texts' embeddings (thread-safe, cached)."""

    def __init__(self, factory: Callable[[], Embedder]) -> None:
        self._factory = factory
        self._model: Embedder | None = None
        self._vectors: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
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


__all__ = ["EmbeddingSimilarity"]
