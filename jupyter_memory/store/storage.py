"""Where a project's derived data and locks go: local disk or a network file system.

A project folder on NFS, SMB/CIFS or a FUSE mount (sshfs, …) is shared by
several machines. Two things are not safe there: SQLite in WAL mode (its
shared-memory file assumes one host) and ``fcntl``/``flock`` locks (NFS lock
daemons and FUSE file systems honour them badly or not at all). For such a
folder the derived index lives in a local cache of the user, keyed by the
project's path, and the root's lock is an exclusively created lock file
whole with its holder before it has a name (written to a temp file, then
hard-linked: ``link`` is atomic and exclusive on NFSv2+, SMB and FUSE), so a
holder that died is recognised and its lock broken (store/net_lock.py,
docs/teams.md).

Detection reads the mount table (Linux ``/proc/self/mounts``); the person can
override it per project (``jupyter-memory settings --project DIR --storage``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from .net_lock import EMPTY_STALE_S, FOREIGN_STALE_S, NET_LOCK_NAME, exclusive_create_lock

NETWORK_FS = frozenset(
    ("nfs", "nfs4", "cifs", "smb3", "smbfs", "afs", "9p", "ceph", "glusterfs", "lustre",
     "gpfs", "beegfs", "davfs", "ncpfs", "sshfs", "virtiofs")
)  # fmt: skip
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


__all__ = [
    "EMPTY_STALE_S",
    "FOREIGN_STALE_S",
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
