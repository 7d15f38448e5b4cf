"""Recall before and after a change, in one process (issue 16).

Loads the package of a git revision and the working tree's side by side (as
``jm_before`` and ``jm_after``), gives each its own copy of one Zipfian home
(``zipf_corpus.py``, built by the working tree) and has each rebuild its index
there (the two may differ in the index's schema), then:

* checks that both return the same hits for recall_bench's queries (limit 10
  and 50 at level index, limit 1,000 for Chinese words, snippets; every field
  but ``attention``, which moves with the clock, and the file's folder);
* times each query with both, alternately, and prints the process's CPU time
  per recall (p50 / p95, and the median of each query's best), which a shared
  machine disturbs far less than separate runs.

Usage: python benchmarks/recall_ab.py [--rev HEAD] [--sizes 10000,100000]
       [--rounds 5] [--queries 200] [--keep DIR]
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import zipf_corpus  # noqa: E402


def _package(rev: str, dest: Path) -> None:
    """``jupyter_memory`` of ``rev`` as ``dest/jm_before``, the working tree's as ``jm_after``."""
    tar = subprocess.run(
        ["git", "archive", rev, "jupyter_memory"], cwd=HERE.parent, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(dest / "rev", filter="data")
    (dest / "rev" / "jupyter_memory").rename(dest / "jm_before")
    shutil.copytree(
        HERE.parent / "jupyter_memory",
        dest / "jm_after",
        ignore=shutil.ignore_patterns("__pycache__"),
    )


def _hooks(mem: Any) -> Any:
    # The plumbing moved behind ``Memory.hooks``; a version from before has it on the facade.
    return getattr(mem, "hooks", mem)


def _home(pkg: Any, n: int, dest: Path) -> Path:
    home = dest / f"home-{n}"
    if not home.exists():
        src = dest / f"corpus-{n}.jsonl"
        rows = zipf_corpus.make_corpus(n)
        src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
        with pkg.Memory(home=home, semantic=False) as mem:
            _hooks(mem).import_jsonl(src)
    return home


def _hits(mem: Any, q: str, **kw: Any) -> list[dict[str, Any]]:
    hits = mem.recall(q, record_access=False, **kw)
    rows = [{k: v for k, v in h.to_dict().items() if k != "attention"} for h in hits]
    for row in rows:  # each side has its own copy of the home
        row["path"] = Path(row["path"]).name
    return rows


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def compare(mems: dict[str, Any], n: int, n_queries: int, rounds: int) -> dict[str, Any]:
    en = zipf_corpus.english_queries(n_queries, seed=n)
    zh = zipf_corpus.chinese_queries(n_queries, seed=n + 1)
    checks = [(q, {"limit": lim, "level": "index"}) for q in en + zh for lim in (10, 50)]
    checks += [(q, {"limit": 1000, "level": "index"}) for q in dict.fromkeys(zh)]
    checks += [(q, {"limit": 5, "level": "snippet"}) for q in en[:40] + zh[:20]]
    before, after = mems.values()
    differ = [q for q, kw in checks if _hits(before, q, **kw) != _hits(after, q, **kw)]
    for mem in mems.values():  # warm up: page cache, statement cache
        for q in en[:20]:
            mem.recall(q, limit=10, level="index")
    cpu: dict[str, dict[str, list[float]]] = {v: {"en": [], "zh": []} for v in mems}
    best: dict[str, dict[str, list[float]]] = {
        v: {"en": [1e9] * len(en), "zh": [1e9] * len(zh)} for v in mems
    }
    for r in range(rounds):
        order = list(mems) if r % 2 == 0 else list(mems)[::-1]
        for lang, queries in (("en", en), ("zh", zh)):
            for i, q in enumerate(queries):
                for v in order:  # as recall_bench times it: limit 10, level index
                    c0 = time.process_time()
                    mems[v].recall(q, limit=10, level="index")
                    ms = (time.process_time() - c0) * 1000
                    cpu[v][lang].append(ms)
                    best[v][lang][i] = min(best[v][lang][i], ms)
    return {
        "entries": n,
        "hits_checked": len(checks),
        "hits_differ": differ[:10],
        "cpu_ms": {
            v: {
                lang: {
                    "p50": round(statistics.median(cpu[v][lang]), 3),
                    "p95": round(_pct(cpu[v][lang], 0.95), 3),
                    "best_p50": round(statistics.median(best[v][lang]), 3),
                }
                for lang in ("en", "zh")
            }
            for v in mems
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rev", default="HEAD", help="the revision to compare with")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--keep", type=Path, help="a folder for the homes, kept between runs")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="jm-ab-"))
    homes = args.keep or work
    homes.mkdir(parents=True, exist_ok=True)
    results = []
    try:
        _package(args.rev, work)
        sys.path.insert(0, str(work))
        pkgs = {v: importlib.import_module(f"jm_{v}") for v in ("before", "after")}
        for n in (int(x) for x in args.sizes.split(",")):
            home = _home(pkgs["after"], n, homes)
            # Each side indexes its own copy of the files (the two may differ in
            # the index's schema, and each would rebuild the other's), both
            # built the same way so that equal scores fall in the same order.
            mems = {}
            for side, pkg in pkgs.items():
                copy = homes / f"home-{n}-{side}"
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(home, copy, ignore=shutil.ignore_patterns(".index"))
                mems[side] = pkg.Memory(home=copy, semantic=False)
                _hooks(mems[side]).rebuild_index()
            try:
                results.append(compare(mems, n, args.queries, args.rounds))
            finally:
                for mem in mems.values():
                    mem.close()
            print(json.dumps(results[-1]), file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({"benchmark": "recall_ab", "rev": args.rev, "results": results}, indent=2))
    return 1 if any(r["hits_differ"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
