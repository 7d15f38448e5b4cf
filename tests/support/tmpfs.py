"""Temporary files of a plain ``pytest`` run on tmpfs, as ``make test`` puts them.

The suite makes thousands of fsyncs; on a disk other work shares each one waits.
The Makefile points ``TMPDIR`` at a folder of the run in ``/dev/shm`` when it has
4 GB free; a person or an editor running ``pytest`` by hand gets the same here:
every ``tmp_path``, memory home, kernel, server and browser profile (children
inherit ``TMPDIR``). The files are real files on a local POSIX file system either
way (see the Makefile). A ``TMPDIR`` already set is left as it is. The folder is
removed when the run passes and named when it does not.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

SHM = Path("/dev/shm")
MIN_FREE = 4 * 1024**3
PREFIX = "jupyter-memory-tests."


def use_tmpfs() -> Path | None:
    """Point ``TMPDIR`` at a new folder on tmpfs; the folder, or None where it cannot."""
    if os.environ.get("TMPDIR") or not SHM.is_dir() or not os.access(SHM, os.W_OK):
        return None
    try:
        if shutil.disk_usage(SHM).free < MIN_FREE:
            return None
        folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=SHM))
    except OSError:
        return None
    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    return folder


def done_with(folder: Path, passed: bool) -> str | None:
    """Remove ``folder`` after a passing run; else the line that says where it is."""
    if os.environ.get("TMPDIR") == str(folder):
        del os.environ["TMPDIR"]
        tempfile.tempdir = None
    if passed:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    return f"this run's temporary files are in {folder} (tmpfs: remove it when done)"
