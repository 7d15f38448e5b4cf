"""Cheap change detection: a fingerprint of a few paths from ``stat`` alone.

The lab server polls this about once a second so that changes made by other
processes (a kernel's card click, the CLI, another server) reach the panel.
Reading no file contents keeps a poll in the microseconds.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

Stamp = tuple[int, int] | None


def stamp(path: Path) -> Stamp:
    """(mtime_ns, size) of a file or folder, ``None`` when it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def fingerprint(paths: Iterable[Path]) -> dict[str, Stamp]:
    """Stamp of each path; a folder's stamp changes when an entry is added,
    renamed or removed, which is how every durable write lands (temp + rename)."""
    return {str(p): stamp(p) for p in paths}


def folder_fingerprint(
    path: Path, *, inodes: bool = False
) -> tuple[Stamp, tuple[tuple[str, int, int] | tuple[str, int, int, int], ...]]:
    """The folder's stamp plus (name, mtime_ns, size) of each entry in it.

    Catches files rewritten in place (a hand edit), which leave the folder's
    own mtime alone; costs one ``scandir``, no reads. With ``inodes`` each entry
    carries its inode too: a file replaced by a rename within one timestamp tick
    with the same size still reads as changed (what a cache of parsed contents needs).
    """
    entries: list[tuple[str, int, int] | tuple[str, int, int, int]] = []
    try:
        with os.scandir(path) as it:
            for entry in it:
                try:
                    st = entry.stat()
                except OSError:
                    continue
                if inodes:
                    entries.append((entry.name, st.st_mtime_ns, st.st_size, st.st_ino))
                else:
                    entries.append((entry.name, st.st_mtime_ns, st.st_size))
    except OSError:
        pass
    return stamp(path), tuple(sorted(entries))
