"""Recall speed at 1k / 10k / 100k memories (issue 2 and issue 16 figures).

Two corpus shapes, imported through the public API:

* ``zipf`` (the headline, issue 16): notes shaped like real ones
  (``zipf_corpus.py``: English words by Zipf's law, 20% Chinese notes, 1–4
  sentences), queried with 1–3 content words drawn by the same law and with
  Chinese 2-character words;
* ``synthetic`` (issue 2): syllable words with a flatter distribution, half
  Chinese, queries sampled from the notes themselves.

Prints one JSON object with, per shape and size: import time, full rebuild,
re-open with nothing changed, one durable remember, recall p50/p95 for English
1–3-word and Chinese 2-character queries, Chinese recall (every note that
contains the word must come back when the limit covers them all), and the
same English queries answered by a naive scan in the same run, with the
ratio. Timings on a shared machine are noisy: compare rows of one run.

``--versus-tantivy N`` (issue 33): instead, the side by side with tantivy on
a Zipfian corpus of N notes (``versus_tantivy.py``: one process, queries
alternating, ratios ours / tantivy); tantivy must be importable (it is not a
dependency: ``pip install --target /tmp/tantivy-lib tantivy==0.27.0`` and
``PYTHONPATH=/tmp/tantivy-lib``). ``--keep DIR`` keeps its home and tantivy
index between runs. ``--reopen HOME``: only the re-open figures of an
existing home (without and with a watcher in the process, issue 33).

Usage: python benchmarks/recall_bench.py [--sizes 1000,10000,100000]
       [--shapes zipf,synthetic] [--queries 200] [--quick]
       [--versus-tantivy 100000 [--rounds 3] [--keep DIR]] [--reopen HOME]
``--quick``: zipf at 10k and 100k only, no remember / re-open figures.
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
from dataclasses import dataclass
from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.core.text import normalize
from jupyter_memory.store.memories import postings_cache

sys.path.insert(0, str(Path(__file__).resolve().parent))
import versus_tantivy  # noqa: E402
import zipf_corpus  # noqa: E402

SYLLABLES = [
    "ka",
    "ri",
    "to",
    "men",
    "sa",
    "lo",
    "ven",
    "da",
    "qui",
    "po",
    "ser",
    "lin",
    "mar",
    "tu",
]
HAN = (
    "收入退款订单用户渠道销售利润成本客户活跃留存转化增长周期季度预算指标口径统计数据模型"
    "异常报表发票库存物流价格折扣会员积分地区城市门店商品类目品牌广告投放点击曝光风险审计"
)


def make_vocab(rng: random.Random) -> tuple[list[str], list[str]]:
    english = sorted(
        {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))) for _ in range(6000)}
    )
    chinese = sorted({rng.choice(HAN) + rng.choice(HAN) for _ in range(3000)})
    return english, chinese


def zipf_pick(rng: random.Random, words: list[str]) -> str:
    # Zipf-like: a few common words, a long tail, as in real notes.
    i = int(len(words) * (rng.random() ** 2.2))
    return words[min(i, len(words) - 1)]


def make_corpus(n: int, seed: int = 7) -> list[dict[str, object]]:
    rng = random.Random(seed)
    english, chinese = make_vocab(rng)
    rows = []
    for i in range(n):
        if i % 2:
            words = [zipf_pick(rng, chinese) for _ in range(rng.randint(6, 14))]
            text = "".join(w + ("，" if rng.random() < 0.2 else "") for w in words) + "。"
        else:
            words = [zipf_pick(rng, english) for _ in range(rng.randint(8, 18))]
            text = " ".join(words) + "."
        rows.append({"text": text, "title": text[:24], "tags": [f"t{rng.randint(0, 40)}"]})
    return rows


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def naive_search(corpus_norm: list[str], query: str, limit: int = 10) -> list[int]:
    terms = normalize(query).split()
    scored = []
    for i, text in enumerate(corpus_norm):
        if all(t in text for t in terms):
            scored.append((sum(text.count(t) for t in terms), i))
    scored.sort(reverse=True)
    return [i for _, i in scored[:limit]]


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


@dataclass
class Shape:
    corpus: list[dict[str, object]]
    en_queries: list[str]
    zh_queries: list[str]
    zh_words: list[str]  # words whose every containing note must be found


def synthetic_shape(n: int, n_queries: int) -> Shape:
    rng = random.Random(n)
    corpus = make_corpus(n)
    en_docs = [str(r["text"]) for r in corpus if str(r["text"]).isascii()]
    en_queries = []
    for _ in range(n_queries):
        words = rng.choice(en_docs).rstrip(".").split()
        k = rng.randint(1, 3)
        en_queries.append(" ".join(rng.sample(words, min(k, len(words)))))
    _, chinese = make_vocab(random.Random(7))
    zh_queries = [rng.choice(chinese) for _ in range(n_queries)]
    return Shape(corpus, en_queries, zh_queries, rng.sample(chinese, 30))


def zipf_shape(n: int, n_queries: int) -> Shape:
    zh = zipf_corpus.chinese_queries(n_queries, seed=n + 1)
    # The recall check covers common and rare words alike.
    words = list(dict.fromkeys(zh))[:20] + zipf_corpus.make_vocab().chinese[::40]
    return Shape(
        zipf_corpus.make_corpus(n),
        zipf_corpus.english_queries(n_queries, seed=n),
        zh,
        list(dict.fromkeys(words)),
    )


def bench_size(
    n: int, shape_name: str, n_queries: int, workdir: Path, quick: bool
) -> dict[str, object]:
    rng = random.Random(n)
    shape = zipf_shape(n, n_queries) if shape_name == "zipf" else synthetic_shape(n, n_queries)
    corpus = shape.corpus
    src = workdir / f"corpus-{shape_name}-{n}.jsonl"
    src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in corpus) + "\n")
    home = workdir / f"home-{shape_name}-{n}"
    mem = Memory(home=home, semantic=False)  # the default lexical engine
    t0 = time.perf_counter()
    ids = mem.hooks.import_jsonl(src)
    import_s = time.perf_counter() - t0
    out: dict[str, object] = {"shape": shape_name, "entries": n, "import_s": round(import_s, 3)}

    if not quick:
        t0 = time.perf_counter()
        mem.hooks.rebuild_index()
        out["rebuild_s"] = round(time.perf_counter() - t0, 3)
        mem.close()
        out.update(reopen(home))
    mem.close()

    mem = Memory(home=home, semantic=False)  # the default lexical engine
    mem.recall("warm up")
    if not quick:
        remember_ms = timed(lambda: mem.remember("one more durable note " + str(rng.random())), 20)
        out["remember_ms_p50"] = round(statistics.median(remember_ms), 2)

    texts = [str(r["text"]) for r in corpus]
    # What recall searches: the title and the text.
    text_of = {i: f"{r.get('title', '')}\n{r['text']}" for i, r in zip(ids, corpus, strict=True)}
    norm = [normalize(t) for t in texts]

    cpu: dict[str, list[float]] = {"en": [], "zh": [], "warm": []}

    def run(queries: list[str], lang: str) -> list[float]:
        # Wall time and this process's CPU time: on a machine shared with
        # other work the CPU time is the steadier of the two.
        ms = []
        for q in queries:
            c0, t0 = time.process_time(), time.perf_counter()
            mem.recall(q, limit=10, level="index")
            ms.append((time.perf_counter() - t0) * 1000)
            cpu[lang].append((time.process_time() - c0) * 1000)
        return ms

    run(shape.en_queries[:20], "warm")  # warm the page cache
    en_ms = run(shape.en_queries, "en")
    zh_ms = run(shape.zh_queries, "zh")
    naive_q = shape.en_queries[: max(10, n_queries // 10)]
    naive_ms = [t for q in naive_q for t in timed(lambda q=q: naive_search(norm, q), 1)]

    # Chinese recall: with a limit that covers them, every note containing
    # the word must come back.
    found = total = 0
    for word in shape.zh_words:
        containing = {i for i, t in text_of.items() if word in t}
        if not containing or len(containing) > 990:
            continue  # recall's limit is at most 1,000
        hits = mem.recall(word, limit=len(containing) + 10, level="index", record_access=False)
        found += len(containing & {h.id for h in hits})
        total += len(containing)
    mem.close()
    en_p50 = statistics.median(en_ms)
    naive_p50 = statistics.median(naive_ms)
    out.update(
        {
            "recall_en_ms": {"p50": round(en_p50, 3), "p95": round(pct(en_ms, 0.95), 3)},
            "recall_zh_ms": {
                "p50": round(statistics.median(zh_ms), 3),
                "p95": round(pct(zh_ms, 0.95), 3),
            },
            "recall_cpu_ms": {
                lang: {"p50": round(statistics.median(v), 3), "p95": round(pct(v, 0.95), 3)}
                for lang, v in cpu.items()
                if lang != "warm"
            },
            "zh_recall": round(found / total, 4) if total else None,
            "zh_recall_notes_checked": total,
            "naive_en_ms_p50": round(naive_p50, 3),
            "speedup_vs_naive_p50": round(naive_p50 / en_p50, 1),
        }
    )
    return out


def _open_and_recall(home: Path, rounds: int) -> tuple[list[float], list[float]]:
    opened, answered = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        mem = Memory(home=home, semantic=False)
        mem.hooks.user.ensure_synced()
        t1 = time.perf_counter()
        mem.recall("refund", limit=10, level="index", record_access=False)
        answered.append((time.perf_counter() - t0) * 1000)
        opened.append((t1 - t0) * 1000)
        mem.close()
    return opened, answered


def reopen(home: Path, rounds: int = 5) -> dict[str, object]:
    """Re-opening an unchanged home: the open alone, and the open with its first recall
    (which waits for the open's check of every file's stat), first without and then
    with a watcher in this process (as a running Jupyter server keeps one;
    store/memories/folder_watch.py). Each open is a new ``Memory``, its own
    connection and first look, as in a new process."""
    opened, answered = _open_and_recall(home, rounds)
    watcher = Memory(home=home, semantic=False)
    watcher.hooks.user.ensure_synced()
    watcher.hooks.user.index.connection()
    watching = watcher.hooks.user.watch()
    deadline = time.monotonic() + 600
    while watching and not watcher.hooks.user.index._watcher.clean and time.monotonic() < deadline:
        time.sleep(0.01)
    w_opened, w_answered = _open_and_recall(home, rounds)
    watcher.close()
    return {
        "reopen_unchanged_ms": round(statistics.median(opened), 2),
        "reopen_and_first_recall_ms": round(statistics.median(answered), 2),
        "watched": watching,
        "reopen_unchanged_watched_ms": round(statistics.median(w_opened), 2),
        "reopen_and_first_recall_watched_ms": round(statistics.median(w_answered), 2),
        "first_recall_watched_over_unwatched": round(
            statistics.median(w_answered) / statistics.median(answered), 3
        ),
    }


def versus(n: int, n_queries: int, rounds: int, workdir: Path) -> dict[str, object]:
    """Our recall beside tantivy's on one Zipfian home of ``n`` notes (issue 33).

    With the postings cache (store/memories/postings_cache.py), off by default
    in the product, unless ``JUPYTER_MEMORY_POSTINGS_CACHE`` says otherwise."""
    os.environ.setdefault(postings_cache.ENV, "on")
    shape = zipf_shape(n, n_queries)
    home = workdir / f"home-zipf-{n}"
    ids_file = workdir / f"ids-zipf-{n}.json"
    if not ids_file.exists():
        src = workdir / f"corpus-zipf-{n}.jsonl"
        src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in shape.corpus) + "\n")
        with Memory(home=home, semantic=False) as mem:
            ids_file.write_text(json.dumps(mem.hooks.import_jsonl(src)))
    ids = json.loads(ids_file.read_text())
    # tantivy set up like our index (three fields, tags × 2), and in one field (its fastest)
    engines = {
        name: versus_tantivy.Tantivy.build(workdir / f"{name}-zipf-{n}", shape.corpus, ids, fields)
        for name, fields in (
            ("tantivy", versus_tantivy.FIELDS),
            ("tantivy_one_field", versus_tantivy.ONE_FIELD),
        )
    }
    load = [round(x, 2) for x in os.getloadavg()]
    with Memory(home=home, semantic=False) as mem:
        queries = {"en": shape.en_queries, "zh": shape.zh_queries}
        res = versus_tantivy.side_by_side(mem, engines, queries, rounds)
    return {
        "entries": n,
        "postings_cache": os.environ[postings_cache.ENV],
        "queries": {k: len(v) for k, v in queries.items()},
        "rounds": rounds,
        "loadavg": {"before": load, "after": [round(x, 2) for x in os.getloadavg()]},
        **res,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--shapes", default="zipf,synthetic")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--quick", action="store_true", help="zipf at 10k and 100k, recall only")
    ap.add_argument("--versus-tantivy", type=int, metavar="N", help="beside tantivy, N notes")
    ap.add_argument("--rounds", type=int, default=3, help="with --versus-tantivy")
    ap.add_argument("--keep", type=Path, help="with --versus-tantivy: keep the homes here")
    ap.add_argument("--reopen", type=Path, metavar="HOME", help="only the re-open figures")
    args = ap.parse_args()
    if args.reopen:
        load = [round(x, 2) for x in os.getloadavg()]
        res = reopen(args.reopen)
        print(json.dumps({"benchmark": "reopen", "loadavg": load, **res}, indent=2))
        return 0
    if args.versus_tantivy:
        work = args.keep or Path(tempfile.mkdtemp(prefix="jm-versus-"))
        work.mkdir(parents=True, exist_ok=True)
        try:
            res = versus(args.versus_tantivy, args.queries, args.rounds, work)
        finally:
            if args.keep is None:
                shutil.rmtree(work, ignore_errors=True)
        print(json.dumps({"benchmark": "recall_versus_tantivy", **res}, indent=2))
        return 0
    sizes, shapes = args.sizes, args.shapes
    if args.quick:
        sizes, shapes = "10000,100000", "zipf"
    workdir = Path(tempfile.mkdtemp(prefix="jm-bench-"))
    results = []
    try:
        for n in (int(x) for x in sizes.split(",")):
            for shape in shapes.split(","):
                results.append(bench_size(n, shape, args.queries, workdir, args.quick))
                print(json.dumps(results[-1]), file=sys.stderr)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps({"benchmark": "recall", "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
