"""What a forget costs now that it scrubs every file (issue 29).

Imports N memories (short English notes) into a fresh memory home, then
forgets ``--forgets`` of them one by one and reports the time of each forget
(p50 and max, ms): the file delete, the index delete, the FTS5 merge
(``optimize`` where SQLite has no ``secure-delete``), the -wal checkpoint, the
recent texts, digest inbox and audit rewrite. Also the index file's size.

Prints one JSON object. Usage: python benchmarks/forget_bench.py [--memories 10000] [--forgets 10]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

WORDS = [
    "revenue",
    "refunds",
    "orders",
    "churn",
    "monthly",
    "weekly",
    "partition",
    "late",
    "join",
    "account",
    "region",
    "channel",
    "cohort",
    "retention",
    "pricing",
    "discount",
    "invoice",
    "ledger",
    "fiscal",
    "quarter",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--forgets", type=int, default=10)
    args = parser.parse_args()
    os.environ["JUPYTER_MEMORY_SEMANTIC"] = "0"
    from jupyter_memory import Memory

    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        src = Path(tmp) / "in.jsonl"
        with src.open("w") as fh:
            for i in range(args.memories):
                text = " ".join(rng.choice(WORDS) for _ in range(12)) + f" note{i}"
                fh.write(json.dumps({"text": text, "title": f"note {i}"}) + "\n")
        with Memory(home) as mem:
            ids = mem.hooks.import_jsonl(src)
            mem.recall("revenue")
            times = []
            for memory_id in rng.sample(ids, args.forgets):
                t0 = time.perf_counter()
                mem.forget(memory_id)
                times.append((time.perf_counter() - t0) * 1000)
        index = max((home / ".index").glob("index-*.sqlite"), key=lambda p: p.stat().st_size)
        print(
            json.dumps(
                {
                    "memories": args.memories,
                    "forgets": args.forgets,
                    "forget_p50_ms": round(statistics.median(times), 1),
                    "forget_max_ms": round(max(times), 1),
                    "index_mb": round(index.stat().st_size / 1e6, 1),
                    "sqlite": sqlite3.sqlite_version,
                }
            )
        )


if __name__ == "__main__":
    main()
