"""VectorMatrix.centred: cosines with the query and the vectors centred on the rows' mean (issue 16)."""

from __future__ import annotations

import numpy as np
import pytest

from jupyter_memory import Memory
from jupyter_memory.store.memories.embeddings import EmbeddingStore, VectorMatrix


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


def _reference(stored: np.ndarray, query: np.ndarray) -> np.ndarray:
    mean = stored.mean(axis=0)
    rows, q = stored - mean, query - mean
    return (rows @ q) / (np.linalg.norm(rows, axis=1) * np.linalg.norm(q))


def _half(v: np.ndarray) -> np.ndarray:  # vectors are stored as float16
    return v.astype(np.float16).astype(np.float32)


def test_centred_cosines_follow_every_change_of_the_rows(mem: Memory):
    rng = np.random.default_rng(7)
    ids = [mem.remember(f"note {i}").id for i in range(6)]
    store = EmbeddingStore(mem.hooks.user.index)
    store.use_model("m")
    pending = {i: k for i, k, _, _ in store.pending(10)}
    vecs = _unit(rng.standard_normal((6, 8)) + 2.0)  # a shared direction, as real embedders have
    query = _unit(rng.standard_normal(8) + 2.0)
    store.save([(i, pending[i]) for i in ids[:4]], vecs[:4])
    matrix = VectorMatrix()
    matrix.refresh(store)
    got = matrix.centred(query, ids[:4])
    assert list(got) == ids[:4]
    assert list(got.values()) == pytest.approx(_reference(_half(vecs[:4]), query), abs=1e-5)
    # Rows appended: the mean moves with them.
    store.save([(i, pending[i]) for i in ids[4:]], vecs[4:])
    matrix.refresh(store)
    got = matrix.centred(query, ids)
    assert list(got.values()) == pytest.approx(_reference(_half(vecs), query), abs=1e-5)
    # A memory edited and embedded again: its row is replaced, and the mean with it.
    mem.update(ids[2], text="note 2, edited")
    new = _unit(rng.standard_normal(8))
    store.save([(ids[2], k) for i, k, _, _ in store.pending(10) if i == ids[2]], new[None, :])
    matrix.refresh(store)
    now = vecs.copy()
    now[2] = new
    got = matrix.centred(query, ids)
    assert list(got.values()) == pytest.approx(_reference(_half(now), query), abs=1e-5)
    # A memory forgotten: the matrix reloads, the mean is that of the rows left.
    mem.forget(ids[0])
    matrix.refresh(store)
    got = matrix.centred(query, ids)
    assert list(got) == ids[1:]
    assert list(got.values()) == pytest.approx(_reference(_half(now[1:]), query), abs=1e-5)


def _matrix_of(mem: Memory, vecs: np.ndarray) -> tuple[VectorMatrix, list[str]]:
    ids = [mem.remember(f"row {i}").id for i in range(len(vecs))]
    store = EmbeddingStore(mem.hooks.user.index)
    store.use_model("m")
    pending = {i: k for i, k, _, _ in store.pending(100)}
    store.save([(i, pending[i]) for i in ids], vecs)
    matrix = VectorMatrix()
    matrix.refresh(store)
    return matrix, ids


def test_a_typical_row_loses_to_one_near_the_query_in_what_sets_it_apart(mem: Memory):
    """Centring demotes the row nearest the shared direction (a hub), not the closest in meaning."""
    rows = _unit(
        np.array(
            [[1, 0, 0.3, 0.1], [1, 0, -0.3, 0.1], [1, 0, 0.1, -0.3], [1, 0, -0.1, 0.3],
             [1, 0.2, 0, 0],  # typical of the home, a little towards the query
             [0.6, 0.8, 0, 0]],  # less like the home, like the query in what differs
            dtype=np.float32,
        )
    )  # fmt: skip
    matrix, ids = _matrix_of(mem, rows)
    hub, near = ids[4], ids[5]
    query = _unit(np.array([1, 0.5, 0, 0], dtype=np.float32))
    plain = dict(matrix.top(query, 6))
    assert plain[hub] > plain[near]
    centred = matrix.centred(query, ids)
    assert centred[near] > centred[hub]


def test_one_row_has_no_mean_to_centre_on(mem: Memory):
    matrix, ids = _matrix_of(mem, _unit(np.array([[0.6, 0.8, 0.0]], dtype=np.float32)))
    query = _unit(np.array([1.0, 0.0, 0.0], dtype=np.float32))
    assert matrix.centred(query, [ids[0], "m-gone"]) == pytest.approx({ids[0]: 0.6}, abs=1e-3)
