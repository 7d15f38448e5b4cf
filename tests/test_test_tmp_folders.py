"""A test run's temporary folder on a shared machine (tests/support/tmpfs.py, scripts/clean_test_tmp.py).

Deleting every ``/dev/shm/jupyter-memory-tests.*`` folder removed the files of runs
still going, and their tests failed with files vanished under them (a CI run lost
its memory home between two steps of a test). A run's folder names its owner; the
clean script removes only ended runs' folders; a failure after a deletion says so.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support import tmpfs

ROOT = Path(__file__).resolve().parents[1]


def _run_folder(where: Path, name: str, pid: int | None) -> Path:
    folder = where / f"{tmpfs.PREFIX}{name}"
    folder.mkdir()
    (folder / "pytest-of-root").mkdir()
    if pid is not None:
        (folder / tmpfs.OWNER).write_text(f"{pid}\n", encoding="utf-8")
    return folder


def _ended_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_the_clean_script_removes_only_the_folders_of_ended_runs(tmp_path: Path) -> None:
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        going = _run_folder(tmp_path, "going", live.pid)
        ended = _run_folder(tmp_path, "ended", _ended_pid())
        unmarked = _run_folder(tmp_path, "unmarked", None)
        other = tmp_path / "someone-elses"
        other.mkdir()
        out = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "clean_test_tmp.py"), "--where", str(tmp_path)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        live.kill()
        live.wait()
    assert going.is_dir() and unmarked.is_dir() and other.is_dir()
    assert not ended.exists()
    assert f"kept {going}: its run (pid {live.pid}) is still going" in out
    assert f"kept {unmarked}: no owner file" in out


def test_a_failure_after_the_run_folder_was_deleted_says_so(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / f"{tmpfs.PREFIX}mine"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    assert tmpfs.run_folder() == folder
    tmpfs.mark_in_use(folder)
    assert (folder / tmpfs.OWNER).read_text(encoding="utf-8").strip().isdigit()
    assert tmpfs.vanished(folder) is None
    (folder / tmpfs.OWNER).unlink()  # as `rm -rf` by another person leaves it
    note = tmpfs.vanished(folder)
    assert note is not None and str(folder) in note and "clean_test_tmp.py" in note
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # not one of ours: never marked nor judged
    assert tmpfs.run_folder() is None and tmpfs.vanished(None) is None
