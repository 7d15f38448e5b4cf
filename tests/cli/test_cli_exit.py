"""The ``jupyter-memory`` program ends without a last collection of everything it imported.

An interpreter's exit runs a garbage collection over every object still alive: for a
command, everything its imports made (pydantic's schemas, the models, the parsers).
That was ~35 ms of CPU of a 0.33 s recall on a small home (benchmarks/startup_bench.py).
The program's entry (:func:`jupyter_memory.cli.main.run`: the console script and
``python -m``) freezes what is left once the command is done, so the exit skips it; a
caller of :func:`~jupyter_memory.cli.main.main` in its own process (a test, a notebook)
keeps its collector as it was.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from jupyter_memory import Memory

PROBE = (
    "import gc, sys\n"
    "from jupyter_memory.cli import main as cli\n"
    "sys.argv = ['jupyter-memory', *sys.argv[1:]]\n"
    "code = cli.{entry}() or 0\n"
    "print('FROZEN', gc.get_freeze_count(), 'CODE', code)\n"
)


def _probe(entry: str, *argv: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(entry=entry), *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split("FROZEN", 1)[1].split()


def test_the_console_script_is_the_entry_that_freezes() -> None:
    (script,) = entry_points(group="console_scripts", name="jupyter-memory")
    assert script.value == "jupyter_memory.cli.main:run"


def test_a_command_run_as_the_program_leaves_its_objects_out_of_the_exit(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    with Memory(home=home, semantic=False) as m:
        m.remember("Refunds are netted per order")
    frozen, _, code = _probe("run", "--home", str(home), "recall", "refunds")
    assert code == "0" and int(frozen) > 10_000  # the command's imports, frozen
    # main() alone, as a test or a notebook calls it: the collector is left as it was.
    frozen, _, code = _probe("main", "--home", str(home), "recall", "refunds")
    assert code == "0" and frozen == "0"
