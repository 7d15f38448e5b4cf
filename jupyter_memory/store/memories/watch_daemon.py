"""A watcher process of its own, so that short-lived processes on a large home stat nothing.

Every first look of a process stats every file (:mod:`.open_check`): an
in-place edit shows nowhere else. At 100k files that is 0.3–1.2 s, and a CLI
call or an MCP stdio server pays it on every start. Neither the journal
(:mod:`.folder_journal`: names only) nor any folder-level count of the file
system can prove that no file was rewritten in place; only a stat of each file
or a watch that was in place while it happened can (docs/storage.md). A
watcher in a long-running process (:mod:`.folder_watch`) vouches for other
processes' opens while that process lives; this module gives a large home
such a watcher when none runs:

* an open that found no watcher to ask (and so checks every file itself) on a
  home of at least :data:`MIN_FILES` files starts ``python -c … <root>`` in a
  session of its own (:func:`spawn`), detached through ``/bin/sh``: the open
  does not wait for it, and it outlives the open;
* that process (:func:`main`) runs a :class:`~.folder_watch.FolderWatcher`,
  the one the Jupyter server runs, and answers the questions of every later
  open; it reads the index and the folder and writes nothing but its answers
  in ``.index/watch/``;
* it runs only while it is the folder's answering watcher (two started at
  once: one stays), and ends when the watch ends (the folder removed or moved,
  a lost event), after :data:`IDLE_S` without a question, or when killed —
  however it ends, its locks go with it and the next open checks for itself.

``JUPYTER_MEMORY_WATCHER``: ``off`` starts none; a number sets the file count
from which one is started (default :data:`MIN_FILES`: below it the open's own
check costs about as much as starting a process).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

from ..layout import RootLayout
from ..private import make_private_dirs, open_private
from ..read_only import on_read_only_fs
from . import folder_journal as journal
from .files import MemoryFiles
from .folder_watch import FolderWatcher, watch_dir, watched
from .sqlite_db import read_pointer

ENV = "JUPYTER_MEMORY_WATCHER"
MIN_FILES = 5_000  # the open's own check: ~25–50 ms here; a process start: about as much
IDLE_S = 2 * 3600.0  # a working session; a question resets it
_PID = "daemon"  # the watcher process's pid (for doctor, tests and a person's `kill`)

# Run by the new process: the package found where this process found it, after
# the interpreter's own paths (never shadowing them).
_MAIN = (
    "import sys; sys.path.append(sys.argv[1]);"
    " from jupyter_memory.store.memories.watch_daemon import main;"
    " sys.exit(main(sys.argv[2]))"
)


def min_files() -> int | None:
    """From how many files a home gets a watcher process; None: never."""
    raw = os.environ.get(ENV, "").strip().lower()
    if raw == "off":
        return None
    if raw.isdigit():
        return int(raw)
    return MIN_FILES


def wanted(files: int) -> bool:
    least = min_files()
    return least is not None and files >= least


def spawn(layout: RootLayout) -> bool:
    """Start the home's watcher process unless one watches already; never raises."""
    try:
        if not journal.trusted(layout) or watched(layout) or on_read_only_fs(layout.index_root):
            return False
        package = str(Path(__file__).resolve().parents[3])
        # sh starts it in the background and exits at once: the process is nobody's
        # child to wait for, in a session of its own (Ctrl-C of a CLI call spares it).
        run = '"$@" </dev/null >/dev/null 2>&1 &'
        argv = [sys.executable, "-c", _MAIN, package, str(layout.root)]
        done = subprocess.run(
            ["/bin/sh", "-c", run, "sh", *argv],
            cwd="/",
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
            check=False,
        )
        return done.returncode == 0
    except (OSError, subprocess.SubprocessError, ValueError):
        return False  # no watcher: every open checks for itself, as without this module


def running_pid(layout: RootLayout) -> int | None:
    """The pid of the home's watcher process while it runs."""
    try:
        fd = os.open(watch_dir(layout) / _PID, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            return int(text) if text.isdigit() else None
        return None  # free: none runs
    finally:
        os.close(fd)


def main(root: str, idle_s: float = IDLE_S) -> int:
    """The watcher process of ``root``'s user-level layout (a local folder)."""
    layout = RootLayout(Path(root))
    if not journal.trusted(layout) or not layout.memories.is_dir():
        return 0
    pid_path = watch_dir(layout) / _PID
    try:
        make_private_dirs(watch_dir(layout), layout.index_root)
        # Held read-only (the disk may be remounted read-only while this runs).
        pid_fd = open_private(pid_path, os.O_RDONLY)
    except OSError:
        return 0  # no .index/watch to write in (a read-only home, a removed one)
    try:
        fcntl.flock(pid_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(pid_fd)
        return 0  # another watcher process runs for this home
    try:
        fd = open_private(pid_path, os.O_WRONLY | os.O_TRUNC)
        try:
            os.write(fd, f"{os.getpid()}\n".encode())
        finally:
            os.close(fd)
    except OSError:
        os.close(pid_fd)
        return 0

    def in_use() -> Path | None:
        name = read_pointer(layout)
        return None if name is None else layout.index_dir / name

    watcher = FolderWatcher(layout, in_use, MemoryFiles(layout).read)
    try:
        if not watcher.start() or not watcher.answering:
            return 0  # cannot watch, or another process's watcher answers already
        while (left := idle_s - (time.monotonic() - watcher.asked_at)) > 0:
            if watcher.wait(min(left, 60.0)):
                break  # the watch ended (the folder went, a lost event)
        return 0
    finally:
        watcher.close()
        os.close(pid_fd)  # the pid left in the file is read only while its lock is held
