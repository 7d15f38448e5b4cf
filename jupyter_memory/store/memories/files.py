"""Memory files of one root: list, read, write and delete ``memories/*.md``.

The only code that reads or writes memory files. Writes go through
:mod:`.atomic`; a symlink — the ``memories/`` folder itself or a file in it —
is never followed (:mod:`.links`): a listing skips it, a read or write of a
name reached through it is refused.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from ...core.frontmatter_io import MAX_FILE_BYTES, parse_memory, render_memory
from ...core.memories.models import MemoryEntry
from ...exceptions import ParseError, UnsafeNameError
from ..atomic import delete_durable, ensure_dir, write_text_atomic
from ..layout import RootLayout
from ..links import first_link, links_below


class FileStat(NamedTuple):
    name: str
    mtime_ns: int
    size: int


class MemoryFiles:
    def __init__(self, layout: RootLayout) -> None:
        self.layout = layout
        self.root = layout.root
        self.folder = layout.memories

    def path_of(self, name: str) -> Path:
        if "/" in name or "\\" in name or name.startswith(".") or not name.endswith(".md"):
            raise UnsafeNameError(f"not a memory file name: {name!r}", field="path")
        return self.folder / name

    def scan(self, stale_temps: list[Path] | None = None) -> Iterator[FileStat]:
        """Every ``*.md`` regular file (symlinks skipped) with its stat.

        Leftover ``.*.tmp`` files of killed writers are collected into
        ``stale_temps`` (the caller, holding the lock, removes them).
        """
        if first_link(self.root, self.folder) is not None or not self.folder.is_dir():
            return  # a linked memories/ folder is not ours: nothing in it is indexed
        with os.scandir(self.folder) as it:
            for de in it:
                name = de.name
                if name.startswith("."):
                    if stale_temps is not None and name.endswith(".tmp"):
                        stale_temps.append(self.folder / name)
                    continue
                if not name.endswith(".md"):
                    continue
                st = de.stat(follow_symlinks=False)
                if not stat.S_ISREG(st.st_mode):  # symlinks and folders are never followed
                    continue
                yield FileStat(name, st.st_mtime_ns, st.st_size)

    def symlinks(self) -> list[Path]:
        """Every symlink below the root, ``memories/`` itself included (for doctor)."""
        return links_below(self.root)

    def read(self, name: str) -> MemoryEntry:
        path = self.path_of(name)
        link = first_link(self.root, path)
        if link is not None:
            raise ParseError(f"{link} is a symlink; refusing to follow it", path=path)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise ParseError(f"cannot open: {exc.strerror or exc}", path=path) from exc
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
        entry = parse_memory(data, path=path)
        entry.path = name
        return entry

    def write(self, name: str, entry: MemoryEntry) -> tuple[str, FileStat]:
        """Write durably; returns (sha256 of the file, its stat). Caller holds the lock."""
        ensure_dir(self.folder, root=self.root)
        path = self.path_of(name)
        digest = write_text_atomic(path, render_memory(entry), root=self.root)
        st = path.stat()
        return digest, FileStat(name, st.st_mtime_ns, st.st_size)

    def delete(self, name: str) -> bool:
        return delete_durable(self.path_of(name), root=self.root)

    def exists(self, name: str) -> bool:
        return self.path_of(name).exists()
