"""Who holds the network lock or its breaker, written so it is never seen half made.

A holder is ``{"host", "pid", "at", "started", "boot", "token"}``: the host
name, the process, when it took the lock, the process's start time (clock
ticks since boot, ``/proc/<pid>/stat``), the machine's boot id and a random
token of this one acquisition. A pid alone is reused; pid, start time and boot
id name one process for good, so a holder judged gone stays gone. The holder
is written and fsynced under a temp name of its writer before it is given the
lock's (or the breaker's) name, so the name never exists without it.

A lock or breaker of older versions names host, pid and time only: its pid is
asked, as before.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import secrets
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from .private import FILE_MODE
from .process_info import process_info

NET_LOCK_NAME = ".jupyter-memory.netlock"
# A lock held by another host longer than this is taken to be left by a crash:
# the longest write we do (a 10k-note import batch) takes well under a minute.
FOREIGN_STALE_S = 600.0
# A lock file without a holder this old was left by a writer of an older
# version, killed between creating the file and writing it (that takes
# microseconds); it names nobody, so no process can be asked.
EMPTY_STALE_S = 5.0
TEMP_PREFIX = f".{NET_LOCK_NAME}."
BOOT_ID_FILE = Path("/proc/sys/kernel/random/boot_id")
UPTIME_FILE = Path("/proc/uptime")

Holder = dict[str, object]


@functools.cache
def boot_id() -> str | None:
    """This boot of this machine (Linux), or ``None`` where it is not known."""
    try:
        return BOOT_ID_FILE.read_text(encoding="ascii").strip() or None
    except OSError:
        return None


@functools.cache
def _started(pid: int) -> int | None:
    info = process_info(pid)
    return info.started if info else None


def _uptime() -> float | None:
    try:
        return float(UPTIME_FILE.read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None


def new_holder() -> Holder:
    """This process, now, with a token of its own for one acquisition."""
    pid = os.getpid()  # asked each time: a forked child is another process
    return {
        "host": socket.gethostname(),
        "pid": pid,
        "at": time.time(),
        "started": _started(pid),
        "boot": boot_id(),
        "token": secrets.token_hex(8),
    }


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _process_alive(pid: int, started: object) -> bool:
    if not pid_alive(pid):
        return False
    if isinstance(started, int):
        info = process_info(pid)
        if info is not None and info.started != started:
            return False  # the pid was reused by a younger process
    return True


def holder_gone(data: object, age: float, foreign_after: float) -> bool:
    """Is the holder ``data`` (parsed JSON, ``age`` seconds old) no longer there?

    This host: its process is asked (pid and start time). This host's name
    in another boot: written before this machine booted, it is gone with that
    boot; written since, it is a second machine of the same name. Another host:
    no process can be asked, so the holder is taken to be gone after
    ``foreign_after`` seconds. No holder at all (an older version killed
    between create and write): after :data:`EMPTY_STALE_S`.
    """
    if not (isinstance(data, dict) and "host" in data):
        return age > EMPTY_STALE_S
    pid = data.get("pid")
    if data.get("host") != socket.gethostname() or not isinstance(pid, int):
        return age > foreign_after
    boot, mine = data.get("boot"), boot_id()
    if isinstance(boot, str) and mine is not None and boot != mine:
        uptime = _uptime()
        return age > foreign_after or (uptime is not None and age > uptime)
    return not _process_alive(pid, data.get("started"))


@dataclass(frozen=True)
class Seen:
    """A holder file as read: its JSON (``None`` if empty or torn), age and identity."""

    data: object
    age: float
    dev: int
    ino: int


def read_holder(path: Path) -> Seen | None:
    """Read the holder file at ``path``; ``None`` if it is not there or not readable now."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        st = os.fstat(fd)  # after the text: a holder written since is young
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        data = json.loads(b"".join(chunks))
    except ValueError:
        data = None
    return Seen(data, time.time() - st.st_mtime, st.st_dev, st.st_ino)


def host_key(host: str) -> str:
    return hashlib.sha256(host.encode("utf-8")).hexdigest()[:12]


def temp_path(root: Path, host: str, pid: int) -> Path:
    """A unique temp name of one process: ``.<lock>.<host hash>.<pid>.<random>.tmp``."""
    return root / f"{TEMP_PREFIX}{host_key(host)}.{pid}.{secrets.token_hex(6)}.tmp"


def create_with_holder(path: Path, holder: Holder, *, durable: bool = True) -> os.stat_result:
    """Create ``path`` (``O_EXCL``: FileExistsError if it is there) holding ``holder``.

    ``durable``: fsynced, so that after a power cut the lock names its holder.
    """
    fd = os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), FILE_MODE
    )
    try:
        os.write(fd, json.dumps(holder).encode("utf-8"))
        if durable:
            os.fsync(fd)
        return os.fstat(fd)
    finally:
        os.close(fd)


def write_holder_temp(root: Path, holder: Holder | None = None) -> Path:
    """Write a holder (this process's, by default) to a new temp file in ``root``, fsynced."""
    tmp = temp_path(root, socket.gethostname(), os.getpid())
    create_with_holder(tmp, holder if holder is not None else new_holder())
    return tmp


def remove_folder(folder: Path) -> None:
    """Remove a temp folder of ours and the holder file in it."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    with contextlib.suppress(OSError):
        os.rmdir(folder)


def remove_dead_temps(root: Path) -> None:
    """Delete lock temp files and folders of processes gone (this host) or older than
    FOREIGN_STALE_S."""
    mine, now = host_key(socket.gethostname()), time.time()
    with contextlib.suppress(OSError), os.scandir(root) as entries:
        for entry in entries:
            name = entry.name
            if not (name.startswith(TEMP_PREFIX) and name.endswith(".tmp")):
                continue
            host, _, rest = name[len(TEMP_PREFIX) : -len(".tmp")].partition(".")
            pid = rest.partition(".")[0]
            try:
                dead = host == mine and pid.isdigit() and not pid_alive(int(pid))
                if dead or now - entry.stat(follow_symlinks=False).st_mtime > FOREIGN_STALE_S:
                    if entry.is_dir(follow_symlinks=False):
                        remove_folder(Path(entry.path))  # a breaker never renamed
                    else:
                        os.unlink(entry.path)
            except OSError:
                continue
