"""Index maintenance speed (issue 16): rebuild, first look, re-checks, outside edits.

On the realistic corpus of ``index_corpus.py`` (Zipfian English, 20% Chinese
notes of 2-character words, 1–4 sentences), imported through the public API:

* ``rebuild_10k``: ``rebuild-index`` of 10k files (wall and CPU, median of 3);
* ``first_look_100k``: a new process's open of 100k unchanged files — it stats
  every file, since an in-place edit moves no folder stamp;
* ``recheck_after_other_kernel_write``: a running process's re-check after
  another kernel's ``remember``, with the folder journal vouching, and the
  same re-check with the journal's stamp dropped (a full scan: what every such
  re-check cost before the journal) in the same run;
* ``first_look_if_trusting_the_stamp``: what a first look would cost if it
  trusted the stamp — not done, because it would miss in-place edits;
* ``after_outside_edits``: 1 and 100 files replaced by rename (as an editor or
  ``git pull`` does), seen by a new process's first look and by a running
  process's re-check.

Wall times on a shared machine are noisy: compare the variants of one run.

Usage: python benchmarks/index_bench.py [--small 10000] [--large 100000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from index_corpus import make_notes

from jupyter_memory import Memory
from jupyter_memory.store.memories import folder_journal as journal
from jupyter_memory.store.memories.sqlite_db import transaction


def _timed(fn: Callable[[], object], repeat: int = 3) -> dict[str, float]:
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append((time.perf_counter() - w) * 1000)
        cpus.append((time.process_time() - c) * 1000)
    return {
        "wall_ms": round(statistics.median(walls), 1),
        "cpu_ms": round(statistics.median(cpus), 1),
    }


def _home(workdir: Path, n: int) -> Path:
    src = workdir / f"notes-{n}.jsonl"
    src.write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in make_notes(n)) + "\n", "utf-8"
    )
    home = workdir / f"home-{n}"
    with Memory(home=home, semantic=False) as mem:
        mem.import_jsonl(src)
    return home


def _open(home: Path) -> Memory:
    return Memory(home=home, semantic=False)


def _first_look(home: Path) -> None:
    mem = _open(home)
    mem.user.ensure_synced()
    mem.close()


def _replace_by_rename(home: Path, count: int, round_no: int) -> None:
    folder = home / "memories"
    for path in sorted(folder.glob("*.md"))[:count]:
        text = path.read_text("utf-8")
        tmp = path.with_name(f".{path.name}.edit")
        tmp.write_text(text.rstrip("\n") + f" edited{round_no}\n", "utf-8")
        tmp.replace(path)


def bench_rebuild(workdir: Path, n: int) -> dict[str, object]:
    home = _home(workdir, n)
    mem = _open(home)
    mem.user.ensure_synced()
    out = {"files": n, **_timed(mem.rebuild_index)}
    mem.close()
    return out


def bench_large(workdir: Path, n: int) -> dict[str, object]:
    home = _home(workdir, n)
    _first_look(home)  # the import's own index, looked at once
    out: dict[str, object] = {"files": n}
    out["first_look"] = _timed(lambda: _first_look(home))

    runner, other = _open(home), _open(home)
    runner.user.ensure_synced()
    other.user.ensure_synced()
    root = runner.user

    def recheck(vouched: bool) -> Callable[[], object]:
        def run() -> None:
            other.remember(f"another kernel's note {time.perf_counter_ns()}")
            if not vouched:
                with transaction(root.index.connection()):
                    journal.record(root.index.connection(), None)
            w, c = time.perf_counter(), time.process_time()
            root.ensure_synced()
            walls.append((time.perf_counter() - w) * 1000)
            cpus.append((time.process_time() - c) * 1000)

        return run

    for label, vouched in (("with_journal", True), ("full_scan_baseline", False)):
        walls: list[float] = []
        cpus: list[float] = []
        for _ in range(3):
            recheck(vouched)()
        out[f"recheck_after_other_kernel_write_{label}"] = {
            "wall_ms": round(statistics.median(walls), 1),
            "cpu_ms": round(statistics.median(cpus), 1),
        }

    def trusting() -> None:
        mem = _open(home)
        mem.user.index._scanned = True  # what a first look trusting the stamp would do
        mem.user.ensure_synced()
        mem.close()

    root.ensure_synced()
    out["first_look_if_trusting_the_stamp_NOT_USED"] = _timed(trusting)

    for count in (1, 100):
        _replace_by_rename(home, count, count)
        w, c = time.perf_counter(), time.process_time()
        root.ensure_synced()
        running = {
            "wall_ms": round((time.perf_counter() - w) * 1000, 1),
            "cpu_ms": round((time.process_time() - c) * 1000, 1),
            "updated": root.last_report.updated if root.last_report else None,
        }
        _replace_by_rename(home, count, count + 1000)
        fresh = _timed(lambda: _first_look(home), repeat=1)
        out[f"after_{count}_outside_edits"] = {"running_recheck": running, "first_look": fresh}
    runner.close()
    other.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", type=int, default=10_000)
    ap.add_argument("--large", type=int, default=100_000)
    args = ap.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="jm-index-bench-"))
    try:
        result = {
            "benchmark": "index",
            "rebuild": bench_rebuild(workdir, args.small),
            "large": bench_large(workdir, args.large),
            "note": "2 shared cores: compare variants within this run",
        }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
