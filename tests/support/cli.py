"""Run the ``jupyter-memory`` command's ``main()`` in the test's own process.

For tests about what a command says or does, not about the process boundary: no
interpreter start and package import per call (a third of a second each). The
answer has the shape of ``subprocess.run(..., capture_output=True, text=True)``'s,
so a test can keep one real-process call beside these.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest


def run_main(
    argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``main(argv)`` with ``env`` set and in ``cwd`` for the call; its exit code and output."""
    from jupyter_memory.cli.main import main

    raw = (io.BytesIO(), io.BytesIO())
    out, err = (io.TextIOWrapper(b, encoding="utf-8") for b in raw)
    with pytest.MonkeyPatch.context() as mp:
        for name, value in (env or {}).items():
            mp.setenv(name, value)
        if cwd is not None:
            mp.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse's --help and usage errors
                code = exc.code if isinstance(exc.code, int) else 1
    out.flush(), err.flush()
    stdout, stderr = (b.getvalue().decode("utf-8") for b in raw)
    return subprocess.CompletedProcess(list(argv), code, stdout, stderr)
