"""Temporary files of a plain ``pytest`` run on tmpfs, as ``make test`` puts them.

The suite makes thousands of fsyncs; on a disk other work shares each one waits.
The Makefile points ``TMPDIR`` at a folder of the run in ``/dev/shm`` when it has
4 GB free; a person or an editor running ``pytest`` by hand gets the same here:
every ``tmp_path``, memory home, kernel, server and browser profile (children
inherit ``TMPDIR``). The files are real files on a local POSIX file system either
way (see the Makefile). A ``TMPDIR`` already set is left as it is. The folder is
removed when the run passes and named when it does not.

A run's folder (this module's or the Makefile's) holds an owner file naming the
run's pytest process: ``scripts/clean_test_tmp.py`` removes only folders whose
run has ended, and a test that fails after another process deleted the folder of
a run still going says so (:func:`vanished`) instead of failing for no reason seen.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

SHM = Path("/dev/shm")
MIN_FREE = 4 * 1024**3
PREFIX = "jupyter-memory-tests."
OWNER = ".owner-pid"  # in a run's folder: the pid of the pytest process using it


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


def run_folder() -> Path | None:
    """This run's temporary folder when it is one of ours (named ``PREFIX…``), else None."""
    tmp = os.environ.get("TMPDIR")
    return Path(tmp) if tmp and Path(tmp).name.startswith(PREFIX) else None


def mark_in_use(folder: Path | None) -> None:
    """Write the owner file: this process uses ``folder`` until it ends."""
    if folder is not None and folder.is_dir():
        (folder / OWNER).write_text(f"{os.getpid()}\n", encoding="utf-8")


def vanished(folder: Path | None) -> str | None:
    """The line to add to a failure when ``folder`` was deleted while the run went on."""
    if folder is None or (folder / OWNER).exists():
        return None
    return (
        f"this run's temporary folder {folder} was deleted by another process while the "
        "run went on (its owner file is gone): files a test had made vanished under it. "
        "Remove only the folders of runs that have ended: python scripts/clean_test_tmp.py"
    )
