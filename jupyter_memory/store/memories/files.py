"""Memory files of one root: list, read, write and delete ``memories/*.md``.

The only code that reads or writes memory files. Writes go through
:mod:`.atomic`; a symlink — the ``memories/`` folder itself or a file in it —
is never followed (:mod:`.links`): a listing skips it, a read or write of a
name reached through it is refused.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple, Protocol

from ..._i18n import M_, Message
from ...core.frontmatter_io import MAX_FILE_BYTES, parse_memory, render_memory
from ...core.memories.models import MemoryEntry
from ...exceptions import ParseError, UnsafeNameError
from ..atomic import delete_durable, ensure_dir, write_text_atomic
from ..layout import RootLayout
from ..links import first_link, links_below
from .folder_journal import own_write

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FLAGS = getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _read_capped(fd: int) -> bytes:
    """Up to MAX_FILE_BYTES + 1 bytes (one more tells the parser it is over the cap).

    Sized by ``fstat``: asking for the cap at once allocates a megabyte per
    file, which cost more than parsing it.
    """
    want = min(os.fstat(fd).st_size, MAX_FILE_BYTES) + 1
    data = os.read(fd, want)
    if len(data) < want:  # the usual case: the whole file, EOF seen
        return data
    chunks = [data]  # it grew since fstat: read on to EOF or the cap
    got = len(data)
    while got <= MAX_FILE_BYTES:
        more = os.read(fd, MAX_FILE_BYTES + 1 - got)
        if not more:
            break
        chunks.append(more)
        got += len(more)
    return b"".join(chunks)


def _symlink(link: object) -> Message:
    return M_("{link} is a symlink; refusing to follow it", link=link)


def _cannot_open(exc: OSError) -> Message:
    return M_("cannot open: {reason}", reason=exc.strerror or str(exc))


def _check_name(name: str) -> None:
    if "/" in name or "\\" in name or name.startswith(".") or not name.endswith(".md"):
        raise UnsafeNameError(M_("not a memory file name: {name!r}", name=name), field="path")


class Reader(Protocol):
    """Reads one memory file by its name (:meth:`MemoryFiles.read`, :meth:`MemoryFiles.reader`)."""

    def __call__(self, name: str) -> MemoryEntry: ...


class FileStat(NamedTuple):
    name: str
    mtime_ns: int
    size: int


class MemoryFiles:
    def __init__(self, layout: RootLayout) -> None:
        self.layout = layout
        self.root = layout.root
        self.folder = layout.memories
        self._folder_str = str(self.folder)

    def path_str(self, name: str) -> str:
        """The path of an indexed name as a string (recall shows one per hit; no Path)."""
        return f"{self._folder_str}{os.sep}{name}"

    def path_of(self, name: str) -> Path:
        _check_name(name)
        return self.folder / name

    def scan(
        self, stale_temps: list[Path] | None = None, hard_linked: list[str] | None = None
    ) -> Iterator[FileStat]:
        """Every ``*.md`` regular file (symlinks skipped) with its stat.

        Leftover ``.*.tmp`` files of killed writers are collected into
        ``stale_temps`` (the caller, holding the lock, removes them); the names
        of files with more than one link into ``hard_linked`` (a write through
        a link outside the folder is one no watch on the folder sees).
        """
        if first_link(self.root, self.folder) is not None or not self.folder.is_dir():
            return  # a linked memories/ folder is not ours: nothing in it is indexed
        # Listed through a folder descriptor, each entry is stat'ed relative to
        # it (no path walk per file): a first look at 100k files stats them all.
        # A folder that cannot be opened raises: an empty listing would drop every row.
        fd = os.open(self.folder, os.O_RDONLY | _DIR_FLAGS)
        new, is_reg = tuple.__new__, stat.S_ISREG
        try:
            with os.scandir(fd) as it:
                for de in it:
                    name = de.name
                    if name[0] == ".":
                        if stale_temps is not None and name.endswith(".tmp"):
                            stale_temps.append(self.folder / name)
                        continue
                    if not name.endswith(".md"):
                        continue
                    try:
                        st = de.stat(follow_symlinks=False)
                    except FileNotFoundError:  # removed since it was listed
                        continue
                    if not is_reg(st.st_mode):  # symlinks and folders are never followed
                        continue
                    if hard_linked is not None and st.st_nlink > 1:
                        hard_linked.append(name)
                    yield new(FileStat, (name, st.st_mtime_ns, st.st_size))
        finally:
            os.close(fd)

    def symlinks(self) -> list[Path]:
        """Every symlink below the root, ``memories/`` itself included (for doctor)."""
        return links_below(self.root)

    def read(self, name: str) -> MemoryEntry:
        """Parse one memory file; a file or folder reached through a link is refused.

        The folder is opened with ``O_NOFOLLOW`` and the file relative to it,
        also ``O_NOFOLLOW``: the same refusal as a per-component ``lstat`` walk
        with two fewer system calls and no path objects (a rebuild reads every
        file, and this was a third of its time).
        """
        _check_name(name)
        path = f"{self._folder_str}{os.sep}{name}"  # for messages: no Path per file
        if _is_link(self.root):
            raise ParseError(_symlink(self.root), path=path)
        try:
            dir_fd = os.open(self.folder, os.O_RDONLY | _DIR_FLAGS)
        except OSError as exc:
            if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and _is_link(self.folder)):
                raise ParseError(_symlink(self.folder), path=path) from None
            if exc.errno == errno.ENOENT:
                raise FileNotFoundError(errno.ENOENT, "no such file", str(path)) from None
            raise ParseError(_cannot_open(exc), path=path) from exc
        try:
            return self._read_at(dir_fd, name, path)
        finally:
            os.close(dir_fd)

    @contextlib.contextmanager
    def reader(self) -> Iterator[Reader]:
        """:meth:`read` for every file in a row (a rebuild), the folder opened once.

        The same checks, refusals and messages as :meth:`read`, without its
        two system calls per file for the root and the folder: the folder's
        descriptor, opened ``O_NOFOLLOW``, is the folder every file is read
        from, wherever a link may point later. A root or folder that cannot be
        read this way leaves :meth:`read` itself to say why, file by file.
        """
        dir_fd = -1
        if not _is_link(self.root):
            with contextlib.suppress(OSError):
                dir_fd = os.open(self.folder, os.O_RDONLY | _DIR_FLAGS)
        if dir_fd < 0:
            yield self.read
            return
        folder, sep, read_at = self._folder_str, os.sep, self._read_at

        def read(name: str) -> MemoryEntry:
            _check_name(name)
            return read_at(dir_fd, name, f"{folder}{sep}{name}")

        try:
            yield read
        finally:
            os.close(dir_fd)

    def _read_at(self, dir_fd: int, name: str, path: str) -> MemoryEntry:
        try:
            fd = os.open(name, os.O_RDONLY | _NOFOLLOW, dir_fd=dir_fd)
        except FileNotFoundError:
            raise
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise ParseError(_symlink(path), path=path) from None
            raise ParseError(_cannot_open(exc), path=path) from exc
        try:
            data = _read_capped(fd)
        finally:
            os.close(fd)
        return parse_memory(data, path=path)  # its path is the base name: ``name``

    def write(self, name: str, entry: MemoryEntry) -> tuple[str, FileStat]:
        """Write durably; returns (sha256 of the file, its stat). Caller holds the lock."""
        ensure_dir(self.folder, root=self.root)
        path = self.path_of(name)
        text = render_memory(entry)
        with own_write(self.layout, name):  # the index may then vouch for the folder
            digest = write_text_atomic(path, text, root=self.root)
        st = path.stat()
        return digest, FileStat(name, st.st_mtime_ns, st.st_size)

    def delete(self, name: str) -> bool:
        path = self.path_of(name)
        with own_write(self.layout, name):
            return delete_durable(path, root=self.root)

    def exists(self, name: str) -> bool:
        return self.path_of(name).exists()
