"""Output piped into a reader that stops early (``| head -1``) ends the command quietly.

Before, ``jupyter-memory recall refunds | head -1`` printed a ``BrokenPipeError``
traceback once ``head`` had its line. Now the command stops without a word on
stderr, with the status a process ended by SIGPIPE has (141), as the shell's own
tools do.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from jupyter_memory import Memory


def test_a_reader_that_closes_early_gets_no_traceback(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory(home=home) as m:
        for i in range(40):
            m.remember(f"Refunds note {i}: 退款 are netted per order, then summed per region")
    exe = shutil.which("jupyter-memory", path=str(Path(sys.executable).parent))
    assert exe, "the jupyter-memory command is not installed in this venv"
    for argv in (["recall", "refunds", "--limit", "40"], ["list"], ["context"]):
        proc = subprocess.Popen(
            [exe, *argv, "--home", str(home)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the reader is gone before the first line is written
        err = proc.stderr.read().decode("utf-8")
        code = proc.wait(timeout=120)
        assert err == "", (argv, err)
        assert code == 141, (argv, code)
