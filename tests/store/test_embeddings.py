"""Stored embeddings and the in-memory matrix (no model needed: vectors are given)."""

from __future__ import annotations

import numpy as np

from jupyter_memory import Memory
from jupyter_memory.store.memories.embeddings import EmbeddingStore, VectorMatrix


def _unit(rng: np.random.Generator, n: int, dim: int = 8) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_save_only_for_live_entries_with_current_text(mem: Memory):
    a = mem.remember("first note")
    b = mem.remember("second note")
    store = EmbeddingStore(mem.hooks.user.index)
    store.use_model("test-model")
    pending = {i: k for i, k, _, _ in store.pending(10)}
    assert set(pending) == {a.id, b.id}
    vecs = _unit(np.random.default_rng(1), 3)
    saved = store.save([(a.id, pending[a.id]), (b.id, "stale-key"), ("m-gone", "x")], vecs)
    assert saved == 1
    assert [i for i, *_ in store.pending(10)] == [b.id]
    assert store.counts() == (1, 2)


def test_forget_and_edit_invalidate_the_vector(mem: Memory):
    a = mem.remember("a note to forget")
    b = mem.remember("a note to edit")
    store = EmbeddingStore(mem.hooks.user.index)
    store.use_model("test-model")
    items = [(i, k) for i, k, _, _ in store.pending(10)]
    store.save(items, _unit(np.random.default_rng(2), 2))
    assert store.counts() == (2, 2)
    mem.forget(a.id)
    assert store.count() == 1
    mem.update(b.id, text="edited text")
    assert store.counts() == (0, 1)  # the old vector no longer matches the text
    mem.update(b.id, tags=["x"])  # metadata only: still pending, nothing lost
    assert [i for i, *_ in store.pending(10)] == [b.id]


def test_another_model_drops_the_vectors(mem: Memory):
    mem.remember("note")
    store = EmbeddingStore(mem.hooks.user.index)
    store.use_model("model-a")
    store.save([(i, k) for i, k, _, _ in store.pending(10)], _unit(np.random.default_rng(3), 1))
    store.use_model("model-a")
    assert store.count() == 1
    store.use_model("model-b")
    assert store.count() == 0


def test_matrix_refreshes_incrementally_and_ranks_by_cosine(mem: Memory):
    ids = [mem.remember(f"note {i}").id for i in range(5)]
    store = EmbeddingStore(mem.hooks.user.index)
    store.use_model("m")
    pending = dict((i, k) for i, k, _, _ in store.pending(10))
    vecs = _unit(np.random.default_rng(4), 5)
    store.save([(i, pending[i]) for i in ids[:3]], vecs[:3])
    matrix = VectorMatrix()
    matrix.refresh(store)
    assert len(matrix) == 3 and matrix.dim == 8
    assert matrix.top(vecs[1], 1)[0][0] == ids[1]
    store.save([(i, pending[i]) for i in ids[3:]], vecs[3:])
    matrix.refresh(store)
    assert len(matrix) == 5
    assert matrix.top(vecs[4], 1)[0][0] == ids[4]
    only = {ids[0]}
    assert [i for i, _ in matrix.top(vecs[4], 3, allowed=only)] == [ids[0]]
    mem.forget(ids[4])
    matrix.refresh(store)
    assert ids[4] not in matrix.pos and len(matrix) == 4
