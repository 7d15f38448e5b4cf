"""Overhead of progress reporting on a bulk import (issue 15 figure, target ≤ 2 %).

Writes an N-line JSON-lines file (English and Chinese notes), then imports it
into fresh memory homes twice per round, once with no progress display and
once with the terminal bar the CLI shows (``tqdm`` on stderr, redirected to
/dev/null here so the terminal does not slow the measure), alternating the
order between rounds. Prints one JSON object with the medians and the overhead.

Usage: python benchmarks/progress_bench.py [--notes 100000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.widgets.progress import TqdmProgress

TEXTS = ["Revenue excludes refunds issued in the same month {i}", "收入口径不含当月退款 第{i}条"]


def timed_import(notes: Path, bar: bool) -> float:
    with tempfile.TemporaryDirectory() as home, open("/dev/null", "w") as devnull:
        mem = Memory(home=home, semantic=False)
        if bar:
            mem.show_progress(TqdmProgress)
        with contextlib.redirect_stderr(devnull):
            start = time.perf_counter()
            mem.import_jsonl(notes)
            took = time.perf_counter() - start
        mem.close()
        return took


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--notes", type=int, default=100_000)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        notes = Path(tmp) / "notes.jsonl"
        with notes.open("w", encoding="utf-8") as fh:
            for i in range(args.notes):
                fh.write(json.dumps({"text": TEXTS[i % 2].format(i=i)}, ensure_ascii=False) + "\n")
        plain: list[float] = []
        shown: list[float] = []
        for r in range(args.rounds):
            for bar in (r % 2 == 0, r % 2 == 1):
                (shown if bar else plain).append(timed_import(notes, bar))
            print(
                f"round {r + 1}: plain {plain[-1]:.2f} s, with bar {shown[-1]:.2f} s",
                file=sys.stderr,
            )
    a, b = statistics.median(plain), statistics.median(shown)
    print(
        json.dumps(
            {
                "notes": args.notes,
                "rounds": args.rounds,
                "import_s_median": round(a, 3),
                "import_with_progress_s_median": round(b, 3),
                "overhead_pct": round(100 * (b - a) / a, 2),
                "target_pct": 2.0,
            }
        )
    )


if __name__ == "__main__":
    main()
