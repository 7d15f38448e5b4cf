"""``%memories`` and the panel's memory search on a home of N memories (issue 16 figure).

Builds N memories with a bulk import into a fresh home (a mix of types, tiers
and ages; English and Chinese), then times, in an IPython shell as a kernel
runs it, the first ``%memories`` (what a person types; it shows one page and
a hint) and ``Memory.memories(limit=20)``. Target: ≤ 200 ms at 100k. Prints one
JSON object. Usage: python benchmarks/memories_page_bench.py [--memories 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

TEXTS = [
    "Revenue excludes refunds issued in the same month",
    "收入口径不含当月退款",
    "Join orders to refunds on order_id",
    "退款按渠道拆分后再汇总",
    "The March partition arrives two days late",
    "周报的留存按自然周计算",
]


def build(home: Path, n: int, seed: int = 0) -> float:
    from jupyter_memory import Memory

    rng = random.Random(seed)
    now = datetime.now(timezone.utc)
    src = home.parent / "memories.jsonl"
    with src.open("w", encoding="utf-8") as fh:
        for i in range(n):
            kind = rng.choice(["semantic", "episodic", "procedural", "reflective"])
            age = timedelta(days=rng.expovariate(1 / 60))
            row = {
                "text": f"{rng.choice(TEXTS)} ({i})",
                "title": f"note {i}",
                "type": kind,
                "tier": rng.choice(["durable", "durable", "daily"]),
                "created": (now - age).isoformat(),
                "tags": [f"t{i % 50}"],
            }
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    t0 = time.perf_counter()
    with Memory(home=home) as mem:
        mem.hooks.import_jsonl(src)
        assert mem.stats()["total"] == n
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        os.environ["JUPYTER_MEMORY_HOME"] = str(home)
        os.environ.setdefault("JUPYTER_MEMORY_SEMANTIC", "0")
        build_s = build(home, args.memories)
        from IPython.core.interactiveshell import InteractiveShell

        ip = InteractiveShell.instance()
        ip.run_line_magic("load_ext", "jupyter_memory")
        magic, service = [], []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            shown = ip.run_line_magic("memories", "")
            html = shown._repr_html_()
            magic.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            ip.user_ns.get("_")  # nothing: keeps the loop shape the same
            from jupyter_memory import Memory

            with Memory(home=home) as mem:
                t1 = time.perf_counter()
                mem.memories(limit=20)
                service.append(time.perf_counter() - t1)
        print(
            json.dumps(
                {
                    "memories": args.memories,
                    "build_s": round(build_s, 1),
                    "magic_ms_median": round(statistics.median(magic) * 1000, 1),
                    "magic_ms_max": round(max(magic) * 1000, 1),
                    "list_20_ms_median": round(statistics.median(service) * 1000, 1),
                    "rows_shown": html.count("<tr") - 1,
                    "hint": "more" in html,
                }
            )
        )


if __name__ == "__main__":
    main()
