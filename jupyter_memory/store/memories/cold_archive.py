"""Move memory files to ``memories/.old/`` and back (spec 003, ARCHIVE tier).

Archiving is reversible: the file is renamed, not rewritten, so its bytes stay
exactly as they were. The index row goes with it (the index scan skips dot
folders), and restoring renames the file back and lets the index pick it up.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from ..._i18n import M_
from ...core.frontmatter_io import parse_memory
from ...core.memories.models import MemoryEntry
from ...exceptions import NotFoundError, ParseError, StoreError
from ..atomic import delete_durable, move_durable, sha256_bytes
from ..layout import RootLayout
from ..links import linked
from .files import MemoryFiles
from .search_index import IndexSyncReport, SearchIndex


class StoreRoot(Protocol):
    """What the archive uses of a storage root (``store/root.py`` imports this package)."""

    layer: str
    layout: RootLayout
    files: MemoryFiles
    index: SearchIndex

    @property
    def root(self) -> Path: ...

    def locked(self) -> AbstractContextManager[None]: ...

    def ensure_index_current(self) -> None: ...

    def ensure_synced(self, *, force: bool = False) -> IndexSyncReport | None: ...


def archive_file(root: StoreRoot, name: str) -> Path:
    """Move one memory file into ``.old/``; returns its new path."""
    with root.locked():
        root.ensure_index_current()
        src = root.files.path_of(name)
        dst = root.layout.archive / name
        if dst.exists():
            raise StoreError(M_("an archived file with this name already exists"), path=dst)
        move_durable(src, dst, root=root.root)
        root.index.remove(name)
        if src.exists() or not dst.exists():
            raise StoreError(M_("archive move did not complete"), path=src)
    root.ensure_synced(force=True)
    return dst


def archived(root: StoreRoot) -> list[tuple[str, str]]:
    """``(memory id, file name)`` of every readable archived file."""
    folder = root.layout.archive
    if not folder.is_dir() or linked(root.root, folder):
        return []
    out = []
    for path in sorted(folder.glob("*.md")):
        if path.is_symlink():
            continue  # listed by doctor, never read
        try:
            entry = parse_memory(path.read_bytes(), path=path)
        except (OSError, ParseError):
            continue
        out.append((entry.meta.id, path.name))
    return out


def delete_archived(root: StoreRoot, memory_id: str) -> tuple[MemoryEntry, str] | None:
    """Forget a memory that is in the cold archive: (its entry, the file's sha256), or None."""
    for found_id, name in archived(root):
        if found_id != memory_id:
            continue
        path = root.layout.archive / name
        with root.locked():
            data = path.read_bytes()
            entry = parse_memory(data, path=path)
            delete_durable(path, root=root.root)
            # the archive took the row out of the index; its terms may still be in segments
            root.ensure_index_current()
            root.index.scrub()
            if path.exists():
                raise StoreError(M_("file still present after delete"), path=path)
        return entry, sha256_bytes(data)
    return None


def restore_file(root: StoreRoot, memory_id: str) -> Path:
    """Move an archived memory back into ``memories/``; returns its path."""
    for found_id, name in archived(root):
        if found_id != memory_id:
            continue
        with root.locked():
            dst = root.files.path_of(name)
            if dst.exists():
                raise StoreError(M_("a memory file with this name exists already"), path=dst)
            move_durable(root.layout.archive / name, dst, root=root.root)
        root.ensure_synced(force=True)
        return dst
    raise NotFoundError(
        M_(
            "no archived memory with id {memory_id!r} in the {layer} layer",
            memory_id=memory_id,
            layer=root.layer,
        )
    )
