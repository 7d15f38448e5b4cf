"""Tier recomputation over 10k memories (issue 8 figure, target ≤ 1 s).

Imports N memories (seeded mix of the four sectors and three tiers, ages up to
two years, Chinese and English, some recalled) into a fresh memory home, then
times, over several runs:

* ``list_ms`` — ``Memory.memories()``: every memory's attention score, sector TTL
  and heat, sorted HOT → WARM → COLD (what ``%memories``, ``stats`` and
  ``memories_frame`` compute);
* ``decide_ms`` — the pure tier decision (``core.memories.sectors.decide_tier``) alone;
* ``archive_dry_run_ms`` — ``Memory.archive(dry_run=True)``;
* ``stats_ms`` — ``Memory.stats()`` (counts per tier and heat).

Prints one JSON object. Usage: python benchmarks/tier_bench.py [--memories 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

TOPICS = [
    "revenue excludes refunds issued in the same month",
    "收入口径不含当月退款",
    "join orders to refunds on order_id",
    "退款按渠道拆分后再汇总",
    "the March partition arrives two days late",
    "周报的留存按自然周计算",
]


def _write_jsonl(path: Path, n: int, seed: int, now: datetime) -> None:
    rng = random.Random(seed)
    sectors = ["episodic", "semantic", "procedural", "reflective"]
    tiers = ["session", "daily", "durable"]
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            created = now - timedelta(days=rng.uniform(0, 730))
            obj = {
                "text": f"{rng.choice(TOPICS)} (#{i})",
                "type": rng.choice(sectors),
                "tier": rng.choices(tiers, weights=[1, 3, 6])[0],
                "confidence": round(rng.uniform(0.5, 1.0), 2),
                "created": created.isoformat(),
            }
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _time_ms(fn: Callable[[], Any], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    os.environ.setdefault("JUPYTER_MEMORY_SEMANTIC", "0")  # no embedding work in this figure

    from jupyter_memory import Memory
    from jupyter_memory.core.memories.sectors import decide_tier

    now = datetime.now(timezone.utc)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "memories.jsonl"
        _write_jsonl(src, args.memories, args.seed, now)
        with Memory(home=Path(tmp) / "home") as mem:
            t0 = time.perf_counter()
            ids = mem.hooks.import_jsonl(src)
            import_s = time.perf_counter() - t0
            rng = random.Random(args.seed)
            for _ in range(20):  # some recalls: access counts and last-access times
                mem.recall(rng.choice(TOPICS), limit=20)
            mem.memories()  # warm: index open, access stats flushed
            rows = [row for root in mem.hooks.ctx.projects.roots() for row in root.rows()]

            def decide_all() -> None:
                for row in rows:
                    decide_tier(
                        sector=row.type,
                        tier=row.tier,
                        updated=row.updated,
                        last_accessed=row.last_accessed,
                        access_count=row.access_count,
                        confidence=row.confidence,
                        now=now,
                    )

            list_ms = _time_ms(mem.memories, args.runs)
            decide_ms = _time_ms(decide_all, args.runs)
            archive_ms = _time_ms(lambda: mem.archive(dry_run=True), args.runs)
            stats_ms = _time_ms(mem.stats, args.runs)
            listed = mem.memories()
            stats = mem.stats()
            archivable = mem.archive(dry_run=True)["count"]
    print(
        json.dumps(
            {
                "benchmark": "tier_recompute",
                "memories": len(ids),
                "runs": args.runs,
                "import_s": round(import_s, 2),
                "list_ms_median": round(statistics.median(list_ms), 1),
                "list_ms_max": round(max(list_ms), 1),
                "decide_ms_median": round(statistics.median(decide_ms), 1),
                "archive_dry_run_ms_median": round(statistics.median(archive_ms), 1),
                "stats_ms_median": round(statistics.median(stats_ms), 1),
                "target_ms": 1000,
                "by_heat": dict(Counter(r["heat"] for r in listed)),
                "by_tier": stats["by_tier"],
                "expired": sum(1 for r in listed if r["expired"]),
                "archivable": archivable,
            },
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
