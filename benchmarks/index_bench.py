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
  ``git pull`` does), seen by a new process's open and a running re-check;
* ``watcher_process`` (issue 33): the same re-open with no watcher (the
  baseline: every figure above is taken with ``JUPYTER_MEMORY_WATCHER=off``)
  and then beside the home's watcher process (store/memories/watch_daemon.py),
  in this process and in new processes as a CLI call opens (their imports
  done first: the figure is the open and its first recall); what the watcher
  process costs (seconds until it vouches, its CPU for that first check, its
  memory, one question); and an open right after an in-place edit (the
  watcher says dirty: the open checks itself) and one after its re-check.

CPU times include every thread of the process. Wall times on a shared machine
are noisy: compare the variants of one run. ``--homes DIR`` keeps the built
homes there, so that another checkout can be measured on the same files
(``PYTHONPATH=<checkout> python benchmarks/index_bench.py --homes DIR``).

Usage: python benchmarks/index_bench.py [--small 10000] [--large 100000] [--homes DIR]
       [--only reopen]
``--only reopen``: the large home's re-open and watcher-process figures only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from index_corpus import make_notes

import jupyter_memory
from jupyter_memory import Memory
from jupyter_memory.store.layout import RootLayout
from jupyter_memory.store.memories import folder_journal as journal
from jupyter_memory.store.memories import watch_daemon
from jupyter_memory.store.memories.folder_watch import Answer, ask
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


# A new process as a CLI call is: its imports first (a tiny home opened and recalled),
# then the open of the home and its first recall, timed.
_CLI_LIKE = textwrap.dedent(
    """
    import json, sys, tempfile, time
    from jupyter_memory import Memory
    with tempfile.TemporaryDirectory() as d, Memory(home=d, semantic=False) as m:
        m.remember("warm up note")
        m.recall("warm", limit=5, record_access=False)
    w, c = time.perf_counter(), time.process_time()
    mem = Memory(home=sys.argv[1], semantic=False)
    hits = mem.recall("refund", limit=5, record_access=False)
    wall, cpu = (time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000
    mem.close()
    print(json.dumps([wall, cpu, len(hits)]))
    """
)


def _cli_like(home: Path, rounds: int) -> dict[str, float]:
    samples = []
    for _ in range(rounds):
        done = subprocess.run(
            [sys.executable, "-c", _CLI_LIKE, str(home)],
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
        wall, cpu, hits = json.loads(done.stdout)
        assert hits == 5, done.stdout
        samples.append((wall, cpu))
    return _clock(samples)


def _stop_watcher_process(layout: RootLayout) -> None:
    pid = watch_daemon.running_pid(layout)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        while watch_daemon.running_pid(layout) is not None:
            time.sleep(0.01)


def _proc_figures(pid: int) -> dict[str, float]:
    """CPU (user + system, every thread) and resident memory of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    rss = next(
        int(line.split()[1])
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if line.startswith("VmRSS:")
    )
    return {"cpu_ms": (int(fields[11]) + int(fields[12])) * 1000 / tick, "rss_mb": rss / 1024}


def bench_watcher_process(home: Path, repeat: int = 5) -> dict[str, object]:
    """The re-open without a watcher, then beside the home's watcher process, one run."""
    layout = RootLayout(home)
    _stop_watcher_process(layout)
    assert os.environ[watch_daemon.ENV] == "off"  # main(): no process starts one on its own
    _first_look(home)
    baseline = _cli_like(home, 3)
    at_once = []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        with _open(home) as mem:
            mem.recall("refund", limit=5, record_access=False)
        at_once.append(((time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000))

    started = time.perf_counter()
    assert watch_daemon.spawn(layout), "the watcher process did not start"
    while ask(layout) is not Answer.CLEAN:
        time.sleep(0.05)
    to_clean = time.perf_counter() - started
    pid = watch_daemon.running_pid(layout)
    assert pid is not None
    startup = _proc_figures(pid)
    asks = []
    for _ in range(50):
        w = time.perf_counter()
        assert ask(layout) is Answer.CLEAN
        asks.append((time.perf_counter() - w) * 1000)
    watched_at_once = []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        with _open(home) as mem:
            mem.recall("refund", limit=5, record_access=False)
            assert mem.hooks.user.index._check.pending is None  # type: ignore[attr-defined]
        watched_at_once.append(((time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000))
    watched_cli = _cli_like(home, 3)

    word = _edit_in_place(home)
    edit_at = time.perf_counter()
    w, c = time.perf_counter(), time.process_time()
    with _open(home) as mem:  # the watcher saw the edit: this open checks every file
        assert len(mem.recall(word, limit=5, record_access=False)) == 1
    edited = _clock([((time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000)])
    while ask(layout) is not Answer.CLEAN:  # it checks again, once quiet (RECHECK_S)
        time.sleep(0.25)
    again = time.perf_counter()
    w, c = time.perf_counter(), time.process_time()
    with _open(home) as mem:
        assert len(mem.recall(word, limit=5, record_access=False)) == 1
    clean_again = _clock([((time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000)])
    figures = _proc_figures(pid)
    _stop_watcher_process(layout)
    base, watched = _clock(at_once), _clock(watched_at_once)
    return {
        "no_watcher_open_then_recall_at_once": base,
        "no_watcher_new_process_open_then_recall": baseline,
        "watcher_process_open_then_recall_at_once": watched,
        "watcher_process_new_process_open_then_recall": watched_cli,
        "watched_over_unwatched_wall": round(watched["wall_ms"] / base["wall_ms"], 3),
        "watched_over_unwatched_new_process_wall": round(
            watched_cli["wall_ms"] / baseline["wall_ms"], 3
        ),
        "watcher_process_start_until_it_vouches_s": round(to_clean, 2),
        "watcher_process_first_check": {k: round(v, 1) for k, v in startup.items()},
        "one_question_ms_p50": round(statistics.median(asks), 3),
        "open_right_after_an_in_place_edit": edited,
        "in_place_edit_until_vouched_again_s": round(again - edit_at, 2),
        "open_after_the_watcher_checked_again": clean_again,
        "watcher_process_at_end": {k: round(v, 1) for k, v in figures.items()},
    }


def bench_large(workdir: Path, n: int) -> dict[str, object]:
    home = _home(workdir, n)
    out: dict[str, object] = {"files": n, "reopen": bench_reopen(home)}
    out["watcher_process"] = bench_watcher_process(home)
    out.update(_bench_rechecks(home))
    return out


def _bench_rechecks(home: Path) -> dict[str, object]:
    out: dict[str, object] = {}

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
    ap.add_argument("--only", choices=["reopen"], default=None)
    args = ap.parse_args()
    workdir = args.homes or Path(tempfile.mkdtemp(prefix="jm-index-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    load_before = [round(x, 2) for x in os.getloadavg()]
    # Every figure is taken without a watcher but those of bench_watcher_process, which
    # starts the home's watcher process itself (an open of these homes would start one).
    os.environ[watch_daemon.ENV] = "off"
    try:
        result: dict[str, object] = {
            "benchmark": "index",
            "code": str(Path(jupyter_memory.__file__).parent),
        }
        if args.only == "reopen":
            home = _home(workdir, args.large)
            result["reopen"] = {"files": args.large, **bench_reopen(home)}
            result["watcher_process"] = bench_watcher_process(home)
        else:
            result["rebuild"] = bench_rebuild(workdir, args.small)
            result["large"] = bench_large(workdir, args.large)
        result["loadavg_before_after"] = [load_before, [round(x, 2) for x in os.getloadavg()]]
        result["note"] = "2 shared cores: compare variants within this run"
    finally:
        if args.homes is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
