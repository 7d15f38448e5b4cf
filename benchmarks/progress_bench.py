"""Overhead of progress reporting on a bulk import (issue 15 figure, target ≤ 2 %).

Writes an N-line JSON-lines file (English and Chinese notes), then imports it
into fresh memory homes, in this one process, with no progress display (A) and
with the terminal bar the CLI shows (B: ``tqdm`` on stderr, redirected to
/dev/null here so the terminal does not slow the measure). Each round runs
A B B A (the next round B A A B): an import is slower or faster by its place
in the sequence alone (the previous home's files still being written back, the
heap grown), and a mirrored order cancels a drift that is linear in time. A
round's ratio is (B + B) / (A + A); the figure is the median over rounds of
that ratio − 1, for wall-clock time and for this process's CPU time. The bar's
own calls are also timed directly (every ``stage``/``advance``/``close``):
their share of the import is the overhead without the noise of separate runs.
Prints one JSON object.

Usage: python benchmarks/progress_bench.py [--notes 100000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from jupyter_memory import Memory
from jupyter_memory.widgets.progress import TqdmProgress

TEXTS = ["Revenue excludes refunds issued in the same month {i}", "收入口径不含当月退款 第{i}条"]


class TimedProgress(TqdmProgress):
    """The CLI's bar, with the time spent in its own calls added up."""

    spent = 0.0
    calls = 0

    def _timed(self, call: Callable[..., None], *args: Any) -> None:
        start = time.perf_counter()
        call(*args)
        TimedProgress.spent += time.perf_counter() - start
        TimedProgress.calls += 1

    def stage(self, name: str, total: int | None) -> None:
        self._timed(super().stage, name, total)

    def advance(self, n: int = 1) -> None:
        self._timed(super().advance, n)

    def close(self) -> None:
        self._timed(super().close)


class Run(NamedTuple):
    wall: float
    cpu: float
    in_bar: float


def timed_import(notes: Path, bar: bool) -> Run:
    with tempfile.TemporaryDirectory() as home, open("/dev/null", "w") as devnull:
        mem = Memory(home=home, semantic=False)
        if bar:
            mem.hooks.show_progress(TimedProgress)
        TimedProgress.spent = 0.0
        with contextlib.redirect_stderr(devnull):
            wall, cpu = time.perf_counter(), time.process_time()
            mem.hooks.import_jsonl(notes)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        mem.close()
        return Run(wall, cpu, TimedProgress.spent)


def _pct(ratios: list[float]) -> float:
    return round(100 * (statistics.median(ratios) - 1), 2)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--notes", type=int, default=100_000)
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        notes = Path(tmp) / "notes.jsonl"
        with notes.open("w", encoding="utf-8") as fh:
            for i in range(args.notes):
                fh.write(json.dumps({"text": TEXTS[i % 2].format(i=i)}, ensure_ascii=False) + "\n")
        timed_import(notes, False)  # warm-up: imports, caches, the page cache for the file
        plain: list[Run] = []
        shown: list[Run] = []
        wall: list[float] = []
        cpu: list[float] = []
        for r in range(args.rounds):
            order = (False, True, True, False) if r % 2 == 0 else (True, False, False, True)
            runs = [(bar, timed_import(notes, bar)) for bar in order]
            a = [run for bar, run in runs if not bar]
            b = [run for bar, run in runs if bar]
            plain += a
            shown += b
            wall.append(sum(x.wall for x in b) / sum(x.wall for x in a))
            cpu.append(sum(x.cpu for x in b) / sum(x.cpu for x in a))
            print(
                f"round {r + 1} ({''.join('B' if bar else 'A' for bar in order)}):"
                f" wall A {[round(x.wall, 2) for x in a]} s, B {[round(x.wall, 2) for x in b]} s,"
                f" ratio {wall[-1]:.4f}; cpu ratio {cpu[-1]:.4f};"
                f" in the bar's calls {[round(x.in_bar * 1e3, 2) for x in b]} ms",
                file=sys.stderr,
            )
    share = [b.in_bar / b.wall for b in shown]
    print(
        json.dumps(
            {
                "notes": args.notes,
                "rounds": args.rounds,
                "import_wall_s_median": round(statistics.median(a.wall for a in plain), 2),
                "import_with_bar_wall_s_median": round(statistics.median(b.wall for b in shown), 2),
                "wall_ratios": [round(x, 4) for x in wall],
                "cpu_ratios": [round(x, 4) for x in cpu],
                "overhead_wall_pct": _pct(wall),
                "overhead_cpu_pct": _pct(cpu),
                "bar_calls_per_import": TimedProgress.calls // max(1, len(shown)),
                "bar_calls_ms_median": round(1e3 * statistics.median(b.in_bar for b in shown), 3),
                "bar_calls_share_pct": round(100 * statistics.median(share), 4),
                "target_pct": 2.0,
            }
        )
    )


if __name__ == "__main__":
    main()
