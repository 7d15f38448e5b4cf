"""Where a project's derived data and locks go: local disk or a network file system.

A project folder on NFS, SMB/CIFS or a FUSE mount (sshfs, …) is shared by
several machines. Two things are not safe there: SQLite in WAL mode (its
shared-memory file assumes one host) and ``fcntl``/``flock`` locks (NFS lock
daemons and FUSE file systems honour them badly or not at all). For such a
folder the derived index lives in a local cache of the user, keyed by the
project's path, and the root's lock is an exclusively created lock file
whole with its holder before it has a name (written to a temp file, then
hard-linked: ``link`` is atomic and exclusive on NFSv2+, SMB and FUSE), so a
holder that died is recognised and its lock broken (docs/teams.md).

Detection reads the mount table (Linux ``/proc/self/mounts``); the person can
override it per project (``jupyter-memory settings --project DIR --storage``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .._i18n import M_
from ..exceptions import LockTimeoutError, StoreError
from .atomic import LOCK_TIMEOUT_S, ensure_dir, fsync_dir

NETWORK_FS = frozenset(
    ("nfs", "nfs4", "cifs", "smb3", "smbfs", "afs", "9p", "ceph", "glusterfs", "lustre",
     "gpfs", "beegfs", "davfs", "ncpfs", "sshfs", "virtiofs")
)  # fmt: skip
NET_LOCK_NAME = ".jupyter-memory.netlock"
# A lock held by another host longer than this is taken to be left by a crash:
# the longest write we do (a 10k-note import batch) takes well under a minute.
FOREIGN_STALE_S = 600.0
MOUNTS_FILE = Path("/proc/self/mounts")
STORAGE_CHOICES = ("auto", "local", "network")


@dataclass(frozen=True)
class Storage:
    """How one project root keeps its index and locks, and why."""

    kind: str  # "local" or "network"
    reason: str
    index_dir: Path | None = None  # None: <root>/.index
    lock: str = "fcntl"  # "fcntl" (filelock) or "exclusive-create"

    def to_dict(self) -> dict[str, str | None]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "index_dir": str(self.index_dir) if self.index_dir else None,
            "lock": self.lock,
        }


def _unescape(field: str) -> str:
    # /proc/mounts escapes space, tab, newline and backslash as octal.
    return (
        field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n")
        .replace("\\134", "\\")
    )  # fmt: skip


def mount_of(path: Path, mounts_file: Path = MOUNTS_FILE) -> tuple[str, str] | None:
    """(mount point, file-system type) of the mount holding ``path``, or ``None`` if unknown."""
    try:
        lines = mounts_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    target = os.path.realpath(path)
    best: tuple[str, str] | None = None
    for line in lines:
        parts = line.split()
        if len(parts) < 3:
            continue
        point, fstype = _unescape(parts[1]), parts[2]
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best[0])):
            best = (point, fstype)
    return best


def is_network_fs(fstype: str) -> bool:
    return fstype in NETWORK_FS or fstype.startswith("fuse") or fstype.startswith("nfs")


def cache_home() -> Path:
    """The user's local cache for derived data: ``$JUPYTER_MEMORY_CACHE``, else XDG."""
    explicit = os.environ.get("JUPYTER_MEMORY_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "jupyter-memory"


def cache_index_dir(project_root: Path) -> Path:
    """The local index folder of one project root, keyed by its absolute path."""
    resolved = str(Path(os.path.abspath(project_root)))
    key = hashlib.sha256(resolved.encode("utf-8")).hexdigest()[:16]
    name = Path(resolved).parent.name or "project"
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)[:40]
    return cache_home() / "index" / f"{safe}-{key}"


def choose_storage(project_root: Path, override: str | None = None) -> Storage:
    """Local or network storage for a project root; ``override`` is the person's setting."""
    if override == "network":
        kind, reason = "network", "set by the person (settings --storage network)"
    elif override == "local":
        return Storage("local", "set by the person (settings --storage local)")
    else:
        found = mount_of(project_root if project_root.exists() else project_root.parent)
        if found is None:
            return Storage("local", "mount table not readable; taken as a local disk")
        point, fstype = found
        if not is_network_fs(fstype):
            return Storage("local", f"{fstype} file system at {point}")
        kind, reason = "network", f"{fstype} network file system at {point}"
    return Storage(kind, reason, cache_index_dir(project_root), "exclusive-create")


# -- the lock for network folders ------------------------------------------------------
#
# Taking the lock: the holder (host, process, time) is written and fsynced to a
# temp file of this process in the same folder, which is then hard-linked to
# the lock's name. link(2) fails with EEXIST when the name is taken (the
# classic NFS-safe exclusive create), so the lock file never exists without
# its holder. On NFS a retried LINK whose first reply was lost answers EEXIST
# though it worked: the temp file's link count of 2 says it did.

_held: dict[str, int] = {}
_held_guard = threading.RLock()
_owner: dict[str, int] = {}
# A lock file without a holder this old was left by a writer of an older
# version, killed between creating the file and writing it (that takes
# microseconds); it names nobody, so no process can be asked.
EMPTY_STALE_S = 5.0
# link(2) not offered by this file system (some SMB and FUSE mounts): the lock
# is created with O_EXCL and then written, and EMPTY_STALE_S covers a crash.
_NO_LINK = frozenset(
    e for e in (errno.EPERM, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", None), errno.ENOSYS)
    if e is not None
)  # fmt: skip
_TEMP_PREFIX = f".{NET_LOCK_NAME}."


def _holder() -> dict[str, object]:
    return {"host": socket.gethostname(), "pid": os.getpid(), "at": time.time()}


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _host_key(host: str) -> str:
    return hashlib.sha256(host.encode("utf-8")).hexdigest()[:12]


def _temp_path(root: Path, host: str, pid: int) -> Path:
    """A unique temp file of one process: ``.<lock>.<host hash>.<pid>.<random>.tmp``."""
    return root / f"{_TEMP_PREFIX}{_host_key(host)}.{pid}.{secrets.token_hex(6)}.tmp"


def _create_with_holder(path: Path) -> None:
    """Create ``path`` (``O_EXCL``: FileExistsError if it is there) holding this process, fsynced."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        os.write(fd, json.dumps(_holder()).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_holder_temp(root: Path) -> Path:
    """Write this process's holder to a new temp file in ``root``, fsynced."""
    tmp = _temp_path(root, socket.gethostname(), os.getpid())
    _create_with_holder(tmp)
    return tmp


def _create_failed(path: Path, exc: OSError) -> StoreError:
    return StoreError(
        M_("cannot create lock file: {reason}", reason=exc.strerror or exc), path=path
    )


def _take_by_open(path: Path) -> bool:
    """Take the lock where link(2) is missing: O_EXCL create, then write."""
    try:
        _create_with_holder(path)
    except FileExistsError:
        return False
    except OSError as exc:
        raise _create_failed(path, exc) from exc
    return True


def _try_take(root: Path, path: Path) -> bool:
    """Take the lock if it is free; ``False`` if another holder has it."""
    if os.path.lexists(path):
        return False  # held: no temp file written for nothing while waiting
    try:
        tmp = _write_holder_temp(root)
    except OSError as exc:
        raise _create_failed(path, exc) from exc
    try:
        try:
            os.link(tmp, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                if os.stat(tmp).st_nlink == 2:  # NFS: the link was made, its reply lost
                    return True
            if exc.errno == errno.EEXIST:
                return False
            if exc.errno in _NO_LINK:
                return _take_by_open(path)
            raise _create_failed(path, exc) from exc
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _remove_dead_temps(root: Path) -> None:
    """Delete lock temp files of processes gone (same host) or older than FOREIGN_STALE_S."""
    mine, now = _host_key(socket.gethostname()), time.time()
    with contextlib.suppress(OSError), os.scandir(root) as entries:
        for entry in entries:
            name = entry.name
            if not (name.startswith(_TEMP_PREFIX) and name.endswith(".tmp")):
                continue
            host, _, rest = name[len(_TEMP_PREFIX) : -len(".tmp")].partition(".")
            pid = rest.partition(".")[0]
            try:
                dead = host == mine and pid.isdigit() and not _pid_alive(int(pid))
                if dead or now - entry.stat(follow_symlinks=False).st_mtime > FOREIGN_STALE_S:
                    os.unlink(entry.path)
            except OSError:
                continue


def _stale(path: Path) -> bool:
    """Is the lock file at ``path`` left by a holder that is gone?"""
    try:
        text = path.read_text(encoding="utf-8")
        # The age is read after the text: a holder written since is young.
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return False  # unreadable right now; look again
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not (isinstance(data, dict) and "host" in data):
        # Empty or torn: an older version's writer killed between create and write.
        return age > EMPTY_STALE_S
    if data.get("host") == socket.gethostname() and isinstance(data.get("pid"), int):
        return not _pid_alive(data["pid"])
    return age > FOREIGN_STALE_S


def _break_stale(path: Path) -> bool:
    """Remove a stale lock file; the check is repeated under a breaker folder.

    Without it two waiters could both judge the old file stale, and the second
    would remove the lock the first had just taken.
    """
    breaker = path.with_name(path.name + ".break")
    try:
        os.mkdir(breaker)
    except FileExistsError:
        with contextlib.suppress(OSError):
            if time.time() - breaker.stat().st_mtime > 30:  # left by a crash while breaking
                breaker.rmdir()
        return False
    except OSError:
        return False
    try:
        if _stale(path):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            return True
        return False
    finally:
        with contextlib.suppress(OSError):
            breaker.rmdir()


@contextlib.contextmanager
def exclusive_create_lock(root: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """The root's write lock on a network folder: a lock file made whole by a hard link.

    Re-entrant within a thread (a nested ``locked()`` of the same root). A
    lock file whose holder process is gone (same host), that is older than
    :data:`FOREIGN_STALE_S` (another host), or that names no holder and is
    older than :data:`EMPTY_STALE_S` is removed and taken.
    """
    ensure_dir(root)
    path = root / NET_LOCK_NAME
    key = str(path)
    me = threading.get_ident()
    with _held_guard:
        if _held.get(key) and _owner.get(key) == me:
            _held[key] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield
        finally:
            with _held_guard:
                _held[key] -= 1
        return
    deadline = time.monotonic() + timeout
    delay = 0.002
    while not _try_take(root, path):
        if _stale(path) and _break_stale(path):
            continue
        if time.monotonic() > deadline:
            raise LockTimeoutError(
                M_(
                    "another writer held the lock for more than {timeout:.0f}s ({path}; "
                    "remove it if its holder is gone)",
                    timeout=timeout,
                    path=path,
                ),
                path=root,
            )
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    _remove_dead_temps(root)
    with _held_guard:
        _held[key], _owner[key] = 1, me
    try:
        yield
    finally:
        with _held_guard:
            _held.pop(key, None)
            _owner.pop(key, None)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        with contextlib.suppress(OSError):
            fsync_dir(root)


__all__ = [
    "EMPTY_STALE_S",
    "NET_LOCK_NAME",
    "STORAGE_CHOICES",
    "Storage",
    "cache_home",
    "cache_index_dir",
    "choose_storage",
    "exclusive_create_lock",
    "is_network_fs",
    "mount_of",
]
