"""Private by default: what the store creates is 0600 (files) and 0700 (folders).

A memory home holds the person's words, and the index beside it holds the full text
of every memory (issue 27). The process umask decides nothing here: a folder is made
0700 and set so after ``mkdir``, a file is created 0600 (``mkstemp`` does that for
every durable write; SQLite and lock files are created here before their library
opens them, and SQLite gives a database's ``-wal``, ``-shm`` and ``-journal`` files the
database file's own mode). Only what we create is set: an existing file keeps its
mode until ``doctor --fix`` tightens it (:func:`loose_modes`, :func:`tighten`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def make_private_dirs(folder: Path, top: Path) -> None:
    """Create ``folder`` and its missing parents; those at or below ``top`` are 0700.

    Parents above ``top`` (the Jupyter data dir above the default home, say) are
    not ours and are created as any program would. ``FileExistsError`` from a
    racing creator is fine; other errors go to the caller.
    """
    missing: list[Path] = []
    probe = folder
    while not probe.is_dir():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for path in reversed(missing):
        ours = path == top or top in path.parents
        try:
            os.mkdir(path, DIR_MODE if ours else 0o777)
        except FileExistsError:
            continue
        if ours:
            os.chmod(path, DIR_MODE)  # the umask may have taken more than group and others


def create_private_file(path: Path) -> None:
    """Create ``path`` empty and 0600 unless it exists (before SQLite or a lock opens it)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, FILE_MODE)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def open_private(path: Path, flags: int) -> int:
    """``os.open(path, flags | O_CREAT)``; a file it creates is 0600 whatever the umask."""
    try:
        return os.open(path, flags & ~os.O_CREAT | _NOFOLLOW)
    except FileNotFoundError:
        pass
    fd = os.open(path, flags | os.O_CREAT | _NOFOLLOW, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    except OSError:
        os.close(fd)
        raise
    return fd


@dataclass(frozen=True)
class LooseMode:
    """A file or folder that group or others may read, write or enter."""

    path: Path
    mode: int  # permission bits as found
    folder: bool

    @property
    def wanted(self) -> int:
        return DIR_MODE if self.folder else FILE_MODE


def loose_modes(
    top: Path, keep: Callable[[tuple[str, ...]], bool] | None = None
) -> list[LooseMode]:
    """Every file and folder at or below ``top`` with group or other bits set, by path.

    Links are neither followed nor reported (doctor lists them apart, invariant 8).
    ``keep`` says, from a path's parts below ``top``, which to check (a project's shared
    files are git's: not checked); a folder it passes over is still walked. Strings,
    not paths, until something is found: a home or a checkout can hold 100k files.
    """
    found: list[LooseMode] = []
    try:
        st = os.lstat(top)
    except OSError:
        return found
    if not stat.S_ISDIR(st.st_mode):
        return found
    if stat.S_IMODE(st.st_mode) & 0o077 and (keep is None or keep(())):
        found.append(LooseMode(top, stat.S_IMODE(st.st_mode), True))
    stack: list[tuple[str, tuple[str, ...]]] = [(os.fspath(top), ())]
    while stack:
        folder, parts = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue  # unreadable or gone since: nothing to say about what we cannot see
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            is_dir = stat.S_ISDIR(st.st_mode)
            if is_dir:
                stack.append((entry.path, (*parts, entry.name)))
            elif not stat.S_ISREG(st.st_mode):
                continue  # a link, socket or fifo: not ours to judge
            mode = stat.S_IMODE(st.st_mode)
            if mode & 0o077 and (keep is None or keep((*parts, entry.name))):
                found.append(LooseMode(Path(entry.path), mode, is_dir))
    found.sort(key=lambda item: os.fspath(item.path))
    return found


def tighten(item: LooseMode) -> None:
    """Set the private mode on one path found loose, through a descriptor: never a link's target."""
    flags = (
        os.O_RDONLY
        | os.O_NONBLOCK
        | _NOFOLLOW
        | (getattr(os, "O_DIRECTORY", 0) if item.folder else 0)
    )
    fd = os.open(item.path, flags)
    try:
        os.fchmod(fd, item.wanted)
    finally:
        os.close(fd)


__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "LooseMode",
    "create_private_file",
    "loose_modes",
    "make_private_dirs",
    "open_private",
    "tighten",
]
