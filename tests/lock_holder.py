"""Another process holding one of our lock files (issue 27): the writer a request waits on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from filelock import FileLock, Timeout

HOLDER = """
import select, sys
from filelock import FileLock
lock = FileLock(sys.argv[1])
lock.acquire()
print("held", flush=True)
# Hold until the test says so (a line on stdin), or at most argv[2] seconds.
select.select([sys.stdin], [], [], float(sys.argv[2]))
lock.release()
"""


class Holder:
    """Holds ``lock_file`` (a ``root_lock`` file) in a child process until :meth:`release`."""

    def __init__(self, lock_file: Path, most: float = 10.0) -> None:
        self.lock_file = lock_file
        lock_file.parent.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(lock_file), str(most)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline() == "held\n"

    def still_holding(self) -> bool:
        """The lock is taken right now (by the holder: nothing else in the test takes it)."""
        try:
            FileLock(str(self.lock_file), timeout=0).acquire().lock.release()
        except Timeout:
            return True
        return False

    def release(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.write("go\n")
            self.proc.stdin.flush()
        self.proc.wait(timeout=30)
