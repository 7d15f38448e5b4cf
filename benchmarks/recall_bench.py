"""Recall speed at 1k / 10k / 100k memories (issue 2 figures).

Generates a seeded corpus of short English and Chinese notes, imports it
through the public API, and prints one JSON object with, per size: import
time, full rebuild, re-open with nothing changed, one durable remember, recall
p50/p95 for English 1-3-word and Chinese 2-character queries, Chinese recall
(fraction of entries containing the word that are found), and the same queries
answered by a naive scan in the same run, with the ratio.

Usage: python benchmarks/recall_bench.py [--sizes 1000,10000,100000] [--queries 200]
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

from jupyter_memory import Memory
from jupyter_memory.core.text import normalize

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


def bench_size(n: int, n_queries: int, workdir: Path) -> dict[str, object]:
    rng = random.Random(n)
    corpus = make_corpus(n)
    src = workdir / f"corpus-{n}.jsonl"
    src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in corpus) + "\n")
    home = workdir / f"home-{n}"
    mem = Memory(home=home, semantic=False)  # the default lexical engine
    t0 = time.perf_counter()
    mem.import_jsonl(src)
    import_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    mem.rebuild_index()
    rebuild_s = time.perf_counter() - t0
    mem.close()

    reopen = []
    for _ in range(5):
        t0 = time.perf_counter()
        m2 = Memory(home=home, semantic=False)
        m2.user.ensure_synced()
        reopen.append((time.perf_counter() - t0) * 1000)
        m2.close()

    mem = Memory(home=home, semantic=False)  # the default lexical engine
    mem.recall("warm up")
    remember_ms = timed(lambda: mem.remember("one more durable note " + str(rng.random())), 20)

    english, chinese = make_vocab(random.Random(7))
    texts = [str(r["text"]) for r in corpus]
    norm = [normalize(t) for t in texts]
    en_docs = [t for t in texts if t.isascii()]
    en_queries = []
    for _ in range(n_queries):
        words = rng.choice(en_docs).rstrip(".").split()
        k = rng.randint(1, 3)
        en_queries.append(" ".join(rng.sample(words, min(k, len(words)))))
    zh_queries = [rng.choice(chinese) for _ in range(n_queries)]

    def run(queries: list[str]) -> list[float]:
        out = []
        for q in queries:
            t0 = time.perf_counter()
            mem.recall(q, limit=10, level="index")
            out.append((time.perf_counter() - t0) * 1000)
        return out

    en_ms = run(en_queries)
    zh_ms = run(zh_queries)
    naive_q = en_queries[: max(10, n_queries // 10)]
    naive_ms = [t for q in naive_q for t in timed(lambda q=q: naive_search(norm, q), 1)]

    # Chinese recall: every entry containing the word must be found.
    found = total = 0
    for word in rng.sample(chinese, 30):
        containing = sum(1 for t in texts if word in t)
        if containing == 0 or containing > 1000:
            continue
        hits = mem.recall(word, limit=1000, level="full", record_access=False)
        got = sum(1 for h in hits if word in h.text)
        found += got
        total += containing
    mem.close()
    en_p50 = statistics.median(en_ms)
    naive_p50 = statistics.median(naive_ms)
    return {
        "entries": n,
        "import_s": round(import_s, 3),
        "rebuild_s": round(rebuild_s, 3),
        "reopen_unchanged_ms": round(statistics.median(reopen), 2),
        "remember_ms_p50": round(statistics.median(remember_ms), 2),
        "recall_en_ms": {"p50": round(en_p50, 3), "p95": round(pct(en_ms, 0.95), 3)},
        "recall_zh_ms": {
            "p50": round(statistics.median(zh_ms), 3),
            "p95": round(pct(zh_ms, 0.95), 3),
        },
        "zh_recall": round(found / total, 4) if total else None,
        "naive_en_ms_p50": round(naive_p50, 3),
        "speedup_vs_naive_p50": round(naive_p50 / en_p50, 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="jm-bench-"))
    results = []
    try:
        for n in (int(s) for s in args.sizes.split(",")):
            results.append(bench_size(n, args.queries, workdir))
            print(json.dumps(results[-1]), file=sys.stderr)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps({"benchmark": "recall", "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
