"""Index maintenance speed (issue 16): rebuild, re-open, re-checks, outside edits.

On the realistic corpus of ``index_corpus.py`` (Zipfian English, 20% Chinese
notes of 2-character words, 1–4 sentences), imported through the public API:

* ``rebuild_10k``: ``rebuild-index`` of 10k files (wall and CPU, median of 3);
* ``reopen_100k``: a new ``Memory()`` on 100k unchanged files, the folder at
  the stamp the index vouches for: ``open`` (``Memory()`` and its first
  ``ensure_synced``), ``open_then_recall_at_once`` (a CLI call: the recall
  waits for the open's check of every file's stat), ``recall_after_the_check``
  (a notebook's first recall, the check long done), and
  ``open_unvouched_full_look`` (the stamp dropped first: the open stats every
  file itself, as every open did before open_check.py);
* ``reopen_after_1_in_place_edit``: one file rewritten in place, then the open
  and its first recall (the check finds it; the full look runs then);
* ``recheck_after_other_kernel_write``: a running process's re-check after
  another kernel's ``remember``, with the folder journal vouching, and the
  same re-check with the journal's stamp dropped (a full scan);
* ``after_outside_edits``: 1 and 100 files replaced by rename (as an editor or
  ``git pull`` does), seen by a new process's open and a running re-check.

CPU times include every thread of the process. Wall times on a shared machine
are noisy: compare the variants of one run. ``--homes DIR`` keeps the built
homes there, so that another checkout can be measured on the same files
(``PYTHONPATH=<checkout> python benchmarks/index_bench.py --homes DIR``).

Usage: python benchmarks/index_bench.py [--small 10000] [--large 100000] [--homes DIR]
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

import jupyter_memory
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
    home = workdir / f"home-{n}"
    if (home / "memories").is_dir():
        return home
    src = workdir / f"notes-{n}.jsonl"
    src.write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in make_notes(n)) + "\n", "utf-8"
    )
    with Memory(home=home, semantic=False) as mem:
        mem.hooks.import_jsonl(src)
    return home


def _open(home: Path) -> Memory:
    return Memory(home=home, semantic=False)


def _settled(mem: Memory) -> Memory:
    mem.hooks.user.index.connection()  # the first use: waits for the open's check, if any
    return mem


def _opened(home: Path) -> Memory:
    """Opened as a kernel opens a home, with the open's check (if any) done."""
    mem = _open(home)
    mem.hooks.user.ensure_synced()
    return _settled(mem)


def _first_look(home: Path) -> None:
    _opened(home).close()


def _drop_stamp(home: Path) -> None:
    with _opened(home) as mem:
        con = mem.hooks.user.index.connection()
        with transaction(con):
            journal.record(con, None)


def _replace_by_rename(home: Path, count: int, round_no: int) -> None:
    folder = home / "memories"
    for path in sorted(folder.glob("*.md"))[:count]:
        text = path.read_text("utf-8")
        tmp = path.with_name(f".{path.name}.edit")
        tmp.write_text(text.rstrip("\n") + f" edited{round_no}\n", "utf-8")
        tmp.replace(path)


def _edit_in_place(home: Path) -> str:
    """Rewrite one file in place with a word no other file has; returns the word."""
    word = f"inplace{time.time_ns()}"
    path = sorted((home / "memories").glob("*.md"))[0]
    text = path.read_text("utf-8").rstrip("\n") + f" {word}\n"
    with open(path, "r+", encoding="utf-8") as fh:  # VS Code, nano: truncate and write
        fh.truncate(0)
        fh.write(text)
    return word


def _clock(samples: list[tuple[float, float]]) -> dict[str, float]:
    return {
        "wall_ms": round(statistics.median(w for w, _ in samples), 1),
        "cpu_ms": round(statistics.median(c for _, c in samples), 1),
    }


def bench_rebuild(workdir: Path, n: int) -> dict[str, object]:
    home = _home(workdir, n)
    mem = _opened(home)
    out = {"files": n, **_timed(mem.hooks.rebuild_index)}
    mem.close()
    return out


def bench_reopen(home: Path, repeat: int = 5) -> dict[str, object]:
    _first_look(home)
    _first_look(home)  # the stamp recorded by a clean full look
    opened, at_once, after, unvouched = [], [], [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        mem = _open(home)
        mem.hooks.user.ensure_synced()
        opened.append(((time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000))
        _settled(mem).close()

        w, c = time.perf_counter(), time.process_time()
        mem = _open(home)
        mem.recall("refund", limit=5, record_access=False)
        at_once.append(((time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000))
        mem.close()

        mem = _opened(home)
        w, c = time.perf_counter(), time.process_time()
        mem.recall("refund", limit=5, record_access=False)
        after.append(((time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000))
        mem.close()

        _drop_stamp(home)
        w, c = time.perf_counter(), time.process_time()
        mem = _open(home)
        mem.hooks.user.ensure_synced()
        unvouched.append(((time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000))
        _settled(mem).close()
    edited = []
    for _ in range(3):
        _first_look(home)
        word = _edit_in_place(home)
        w, c = time.perf_counter(), time.process_time()
        mem = _open(home)
        hits = mem.recall(word, limit=5, record_access=False)
        edited.append(((time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000))
        assert len(hits) == 1, "the in-place edit was not seen"
        mem.close()
    return {
        "open": _clock(opened),
        "open_then_recall_at_once": _clock(at_once),
        "recall_after_the_check": _clock(after),
        "open_unvouched_full_look": _clock(unvouched),
        "reopen_after_1_in_place_edit_open_and_recall": _clock(edited),
    }


def bench_large(workdir: Path, n: int) -> dict[str, object]:
    home = _home(workdir, n)
    out: dict[str, object] = {"files": n, "reopen": bench_reopen(home)}

    runner, other = _opened(home), _opened(home)
    root = runner.hooks.user

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
    ap.add_argument("--homes", type=Path, default=None, help="build or reuse the homes here")
    args = ap.parse_args()
    workdir = args.homes or Path(tempfile.mkdtemp(prefix="jm-index-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        result = {
            "benchmark": "index",
            "code": str(Path(jupyter_memory.__file__).parent),
            "rebuild": bench_rebuild(workdir, args.small),
            "large": bench_large(workdir, args.large),
            "note": "2 shared cores: compare variants within this run",
        }
    finally:
        if args.homes is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
