"""A team project on git at scale (issue 17 figures); prints one JSON object.

* the merge driver on two 8,000-character knowledge files (in process, and the
  ``jupyter-memory merge-knowledge`` command git runs, Python start included);
* 20 people × 5,000 memories in one project folder, committed by person into a
  real repository: ``git clone``, ``git status`` (clean tree, median of 5), a
  ``git pull`` bringing 500 new memory files, and reading the memories folder;
* the project index: its first build on a fresh clone, the sync after the pull
  (only the 500 new files are parsed), and recall (p50 / p95) over 100k
  project memories in English and Chinese.

Usage: ``python benchmarks/team_bench.py [--people 20] [--per-person 5000] [--new 500]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.format import Entry, KnowledgeDoc, render_knowledge
from jupyter_memory.core.knowledge.merge import _norm, merge_knowledge

HAN = "收入退款订单用户渠道销售利润成本客户活跃留存转化增长周期季度预算指标口径统计数据模型"
WORDS = ["revenue", "refund", "order", "channel", "margin", "cohort", "retention", "churn",
         "forecast", "region", "invoice", "discount", "basket", "campaign", "latency"]  # fmt: skip


def git(repo: Path, *args: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return time.perf_counter() - t0


def knowledge_files() -> tuple[str, str, str]:
    """A base of ~7,000 characters; each side edits some items and adds its own (< 8,000)."""
    rules = [f"Rule {i}: {' '.join(random.Random(i).choices(WORDS, k=9))}." for i in range(83)]
    info = [f"{HAN[i % 40]}{HAN[(i * 7) % 40]} 口径说明 {i}：按月统计。" for i in range(40)]
    base = KnowledgeDoc(tuple(Entry(r) for r in rules), tuple(Entry(i) for i in info))
    ours = KnowledgeDoc(
        tuple(Entry(r + " (ours)" if n % 10 == 0 else r) for n, r in enumerate(rules))
        + tuple(Entry(f"Ours adds rule {k}.") for k in range(6)),
        base.info,
    )
    theirs = KnowledgeDoc(
        tuple(Entry(r + " (theirs)" if n % 10 == 5 else r) for n, r in enumerate(rules)),
        base.info + tuple(Entry(f"他们新增的信息 {k}。") for k in range(6)),
    )
    texts = render_knowledge(base), render_knowledge(ours), render_knowledge(theirs)
    assert all(6_500 < len(t) <= 8_000 for t in texts), [len(t) for t in texts]
    return texts


def bench_driver(workdir: Path) -> dict[str, object]:
    base, ours, theirs = knowledge_files()
    runs = []
    for _ in range(50):
        _norm.cache_clear()  # a driver process starts cold
        t0 = time.perf_counter()
        result = merge_knowledge(base, ours, theirs)
        runs.append((time.perf_counter() - t0) * 1000)
    assert result.clean and len(result.text) <= 8_000, (result.over_cap, len(result.text))
    paths = []
    for name, text in (("O", base), ("A", ours), ("B", theirs)):
        paths.append(workdir / f"k.{name}")
        paths[-1].write_text(text, encoding="utf-8")
    cli = Path(sys.executable).parent / "jupyter-memory"
    command = []
    for _ in range(5):
        paths[1].write_text(ours, encoding="utf-8")
        t0 = time.perf_counter()
        subprocess.run([str(cli), "merge-knowledge", *map(str, paths), "knowledge.md"], check=True)
        command.append((time.perf_counter() - t0) * 1000)
    return {
        "chars": [len(base), len(ours), len(theirs)],
        "merged_chars": len(result.text),
        "in_process_ms_p50": round(statistics.median(runs), 2),
        "command_ms_p50": round(statistics.median(command), 1),
    }


def corpus(n: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        if i % 2:
            text = "".join(rng.choice(HAN) for _ in range(rng.randint(20, 60))) + "。"
        else:
            text = " ".join(rng.choice(WORDS) + str(rng.randint(0, 300)) for _ in range(12))
        rows.append({"text": text, "title": text[:24], "scope": "project", "tags": [f"t{i % 40}"]})
    return rows


def add_memories(home: Path, folder: Path, rows: list[dict[str, object]], src: Path) -> None:
    src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    with Memory(home=home, project=folder, semantic=False) as mem:
        mem.hooks.import_jsonl(src)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--per-person", type=int, default=5000)
    parser.add_argument("--new", type=int, default=500)
    parser.add_argument("--queries", type=int, default=60)
    opts = parser.parse_args()
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        out["merge_driver"] = bench_driver(base)
        origin, a_dir, b_dir = base / "origin.git", base / "a" / "team", base / "b" / "team"
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
        a_dir.parent.mkdir()
        b_dir.parent.mkdir()
        git(base, "clone", "-q", str(origin), str(a_dir))
        git(a_dir, "checkout", "-q", "-B", "main")
        home_a = base / "home-a"
        with Memory(home=home_a, semantic=False) as mem:
            mem.project_init(a_dir)
        t0 = time.perf_counter()
        for person in range(opts.people):
            rows = corpus(opts.per_person, seed=person)
            add_memories(home_a, a_dir, rows, base / "rows.jsonl")
            git(a_dir, "add", "-A")
            git(a_dir, "-c", f"user.name=Person {person}", "-c", f"user.email=p{person}@x.org",
                "commit", "-q", "-m", f"person {person}")  # fmt: skip
        out["setup_s"] = round(time.perf_counter() - t0, 1)
        total = opts.people * opts.per_person
        memories = a_dir / ".jupyter-memory" / "memories"
        out["memory_files"] = sum(1 for _ in os.scandir(memories))
        git(a_dir, "push", "-q", "origin", "main")
        out["git_clone_s"] = round(git(base, "clone", "-q", str(origin), str(b_dir)), 2)
        git(b_dir, "status", "--porcelain")  # the first status writes the index stat cache
        status = [git(b_dir, "status", "--porcelain") for _ in range(5)]
        out["git_status_ms_p50"] = round(statistics.median(status) * 1000, 1)
        t0 = time.perf_counter()
        sum(1 for _ in os.scandir(b_dir / ".jupyter-memory" / "memories"))
        out["scandir_memories_ms"] = round((time.perf_counter() - t0) * 1000, 1)

        home_b = base / "home-b"
        with Memory(home=home_b, semantic=False) as mem:
            mem.project_init(b_dir)
            mem.focus(b_dir)
            t0 = time.perf_counter()
            mem.hooks.project_root.ensure_synced()
            out["index_first_build_s"] = round(time.perf_counter() - t0, 1)

        add_memories(home_a, a_dir, corpus(opts.new, seed=999), base / "new.jsonl")
        git(a_dir, "add", "-A")
        git(a_dir, "-c", "user.name=Late", "-c", "user.email=l@x.org", "commit", "-q", "-m", "new")
        git(a_dir, "push", "-q", "origin", "main")
        out["git_pull_new_files"] = opts.new
        out["git_pull_s"] = round(git(b_dir, "pull", "-q", "--no-rebase", "origin", "main"), 2)

        with Memory(home=home_b, project=b_dir, semantic=False) as mem:
            t0 = time.perf_counter()
            report = mem.hooks.project_root.ensure_synced()
            out["index_sync_after_pull_ms"] = round((time.perf_counter() - t0) * 1000, 1)
            out["index_sync_added"] = report.added if report else 0
            rng = random.Random(5)
            queries = [rng.choice(WORDS) + " " + rng.choice(WORDS) for _ in range(opts.queries)]
            queries += [rng.choice(HAN) + rng.choice(HAN) for _ in range(opts.queries)]
            mem.recall("warm up", record_access=False)
            times = []
            for q in queries:
                t0 = time.perf_counter()
                mem.recall(q, project=b_dir, limit=10, record_access=False)
                times.append((time.perf_counter() - t0) * 1000)
            times.sort()
            out["recall_project_memories"] = total + opts.new
            out["recall_ms_p50"] = round(statistics.median(times), 1)
            out["recall_ms_p95"] = round(times[int(len(times) * 0.95) - 1], 1)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
