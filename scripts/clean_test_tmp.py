"""Remove the test runs' temporary folders in /dev/shm whose run has ended.

``make test`` and a plain ``pytest`` put a run's files in
``/dev/shm/jupyter-memory-tests.*`` (tests/support/tmpfs.py); a failed run
leaves its folder for a look. On a machine several people share, removing
them all deletes the files of runs still going, and their tests fail with
files vanished under them. This removes a folder only when the pytest process
its owner file names is gone; a folder without one (a run of an older
version, or one starting) is listed and left.

    python scripts/clean_test_tmp.py            # remove ended runs' folders
    python scripts/clean_test_tmp.py --dry-run  # only say what it would do
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

SHM = Path("/dev/shm")
PREFIX = "jupyter-memory-tests."  # tests/support/tmpfs.py
OWNER = ".owner-pid"


def owner(folder: Path) -> int | None:
    try:
        return int((folder / OWNER).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="say what would be removed")
    parser.add_argument("--where", type=Path, default=SHM, help="the folder holding the runs'")
    args = parser.parse_args(argv)
    for folder in sorted(args.where.glob(PREFIX + "*")):
        pid = owner(folder)
        if pid is None:
            print(f"kept {folder}: no owner file (a run starting, or of an older version)")
        elif running(pid):
            print(f"kept {folder}: its run (pid {pid}) is still going")
        elif args.dry_run:
            print(f"would remove {folder} (its run, pid {pid}, has ended)")
        else:
            shutil.rmtree(folder, ignore_errors=True)
            print(f"removed {folder} (its run, pid {pid}, had ended)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
