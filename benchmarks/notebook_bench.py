"""Notebook-layer figures (issue 4): one JSON object.

- ``load_ext_ms``: ``%load_ext jupyter_memory`` in a fresh process that already
  imported IPython (as a kernel has), median of several processes; plus the bare
  ``import jupyter_memory``.
- ``hook_per_cell_ms``: the ``post_run_cell`` hook's own cost, median (and p95)
  over 1,000 cells, with Automatic suggestions on (the hook hands a snapshot to
  the worker) and off.
- ``cell_end_to_card_ms``: from the end of a cell with a definitional comment to
  its card displayed by the worker (first round, which imports ipywidgets, and
  the median of the following rounds).
- ``recall_10k_ms``: ``%recall`` end to end through the shell at 10,000 memories,
  including the HTML rendering of the table; median and p95.

Usage: python benchmarks/notebook_bench.py [--cells 1000] [--memories 10000]
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

LOAD_SNIPPET = """
import time, IPython
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
t = time.perf_counter()
shell.run_line_magic("load_ext", "jupyter_memory")
load = time.perf_counter() - t
print(load * 1000)
"""
IMPORT_SNIPPET = (
    "import time; t=time.perf_counter(); import jupyter_memory; print((time.perf_counter()-t)*1000)"
)


def _median_subprocess(code: str, runs: int, env: dict[str, str]) -> float:
    values = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        )
        values.append(float(out.stdout.strip().splitlines()[-1]))
    return round(statistics.median(values), 2)


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def bench_hook(shell, magics, cells: int) -> dict[str, float]:
    from IPython.core.interactiveshell import ExecutionInfo, ExecutionResult

    out: dict[str, float] = {}
    for label, auto in (("suggestions_on", True), ("suggestions_off", False)):
        magics.service.update_settings(auto_suggestions=auto)
        magics.session.forget_flags()
        timings = []
        for i in range(cells):
            info = ExecutionInfo(f"x_{i} = {i} * 2\ny = x_{i} + 1", True, False, True, f"cell-{i}")
            result = ExecutionResult(info)
            result.execution_count = i + 1
            t = time.perf_counter()
            magics.capture.post_run_cell(result)
            timings.append((time.perf_counter() - t) * 1000)
        magics.worker.wait(60)
        out[f"{label}_median_ms"] = round(statistics.median(timings), 4)
        out[f"{label}_p95_ms"] = round(pct(timings, 0.95), 4)
    magics.service.update_settings(auto_suggestions=True)
    magics.session.forget_flags()
    return out


def bench_card(shell, magics, rounds: int) -> dict[str, float]:
    import io
    from contextlib import redirect_stdout

    metrics = ["revenue", "orders", "refund rate", "churn", "basket size", "net margin"]
    waits = []
    for i in range(rounds):
        subject = f"{metrics[i % len(metrics)]} variant {i}"
        source = f"# note: {subject} is defined as the figure in report {i}\nv = {i}"
        with redirect_stdout(io.StringIO()):  # the card's text/plain goes to stdout here
            shell.run_cell(source, store_history=True)
            magics.worker.wait(60)
        last = magics.worker.last
        assert last is not None and last.proposals and last.shown, last
        waits.append((last.shown - last.submitted) * 1000)
    return {
        "first_round_ms": round(waits[0], 2),
        "median_ms": round(statistics.median(waits[1:]), 2),
        "rounds": rounds,
    }


def bench_recall(shell, magics, memories: int, queries: int, tmp: Path) -> dict[str, float]:
    rng = random.Random(4)
    words = ["refunds", "revenue", "orders", "churn", "cohort", "margin", "discount", "region"]
    han = ["退款", "收入", "订单", "留存", "毛利", "折扣", "地区", "用户"]
    path = tmp / "import.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(memories):
            text = " ".join(rng.choice(words) for _ in range(6)) + " " + "".join(rng.sample(han, 3))
            fh.write(json.dumps({"text": f"note {i}: {text}", "title": f"note {i}"}) + "\n")
    t = time.perf_counter()
    magics.service.hooks.import_jsonl(path)
    imported = time.perf_counter() - t
    timings = []
    for i in range(queries):
        q = rng.choice(words) if i % 2 else rng.choice(han)
        t = time.perf_counter()
        result = shell.run_line_magic("recall", q)
        result._repr_html_()
        timings.append((time.perf_counter() - t) * 1000)
    return {
        "memories": memories,
        "import_s": round(imported, 2),
        "median_ms": round(statistics.median(timings), 2),
        "p95_ms": round(pct(timings, 0.95), 2),
        "queries": queries,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", type=int, default=1000)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--load-runs", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmpdir:
        tmp = Path(tmpdir)
        env = dict(os.environ, JUPYTER_MEMORY_HOME=str(tmp / "load-home"))
        load = {
            "load_ext_median_ms": _median_subprocess(LOAD_SNIPPET, args.load_runs, env),
            "import_median_ms": _median_subprocess(IMPORT_SNIPPET, args.load_runs, env),
            "runs": args.load_runs,
        }
        os.environ["JUPYTER_MEMORY_HOME"] = str(tmp / "home")
        from IPython.core.interactiveshell import InteractiveShell

        from jupyter_memory.magics import loaded_magics

        shell = InteractiveShell.instance()
        shell.run_line_magic("load_ext", "jupyter_memory")
        magics = loaded_magics(shell)
        assert magics is not None
        magics.session.flags(fresh=True)  # opens the service, as the first cell does
        hook = bench_hook(shell, magics, args.cells)
        card = bench_card(shell, magics, args.rounds)
        recall = bench_recall(shell, magics, args.memories, args.queries, tmp)
        shell.run_line_magic("unload_ext", "jupyter_memory")
    print(
        json.dumps(
            {
                "extension_load": load,
                "hook_per_cell": {"cells": args.cells, **hook},
                "cell_end_to_card": card,
                "recall_end_to_end": recall,
                "targets": {"load_ext_ms": 150, "hook_median_ms": 0.2},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
