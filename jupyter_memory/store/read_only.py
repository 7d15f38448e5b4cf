"""Is a store on a read-only file system (a read-only mount, a snapshot, a CD)?

Reads there take no lock and write nothing (no lock file, no index sync, no
access counts): the index is opened as SQLite's ``immutable`` file and answers
as it was last written (docs/storage.md, "Full and read-only disks"). Mode bits
are not looked at: root ignores them, and a folder a person cannot write to
by its mode still gets the usual "permission denied" error naming it.
"""

from __future__ import annotations

import os
from pathlib import Path


def on_read_only_fs(path: Path) -> bool:
    """True when ``path`` (or, while it does not exist, its nearest parent) is on a read-only mount."""
    for folder in (path, *path.parents):
        try:
            return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
        except FileNotFoundError:
            continue
        except OSError:
            return False
    return False
