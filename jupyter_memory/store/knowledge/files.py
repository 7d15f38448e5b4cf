"""Knowledge files on disk: ``knowledge.md``, its ``knowledge.md.bak``, and ``settings.json``.

Reads never rewrite: a legacy or malformed file stays exactly as it is until
a person saves (invariant 7). Writes go through :mod:`.atomic`; the caller
holds the root's lock (``StoreRoot.locked()``) around read-modify-write.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._i18n import M_
from ...core.frontmatter_io import decode_file
from ...core.knowledge.format import KnowledgeDoc, parse_knowledge
from ...exceptions import ParseError, StoreError
from .. import git
from ..atomic import sha256_bytes, write_text_atomic
from ..json_file import read_json, write_json
from ..layout import RootLayout
from ..links import first_link, linked

if TYPE_CHECKING:
    from ...core.knowledge.merge import ConflictedKnowledge

BACKUP_SUFFIX = ".bak"


def knowledge_version(data: bytes) -> str:
    """The version of a knowledge file: the sha256 of its bytes (``b""`` when absent).

    The one definition every read, save and refusal uses. A content hash, not a
    time: two files with the same bytes are the same version, so a save on top
    of either loses nothing.
    """
    return sha256_bytes(data)


@dataclass(frozen=True)
class LoadedKnowledge:
    path: Path
    exists: bool
    text: str  # the file exactly as stored ("" when absent)
    doc: KnowledgeDoc
    updated: datetime | None
    version: str  # knowledge_version() of the stored bytes
    # A git merge left conflict blocks (issue 17): ``doc`` is then this clone's
    # side (the last clean version), and ``conflict`` holds both sides.
    conflict: ConflictedKnowledge | None = None


class KnowledgeFile:
    """The knowledge file of one root (user home or a project's ``.jupyter-memory``)."""

    def __init__(self, layout: RootLayout) -> None:
        self.root = layout.root
        self.path = layout.knowledge
        self.backup_path = self.path.with_name(self.path.name + BACKUP_SUFFIX)
        self._cache: tuple[tuple[int, int, int], LoadedKnowledge] | None = None

    def load(self, *, fresh: bool = False) -> LoadedKnowledge:
        """The parsed file (cached by mtime, size and inode: every write is a rename); :class:`ParseError` names the line.

        ``fresh`` skips the cache: a read-modify-write under the lock must see
        the bytes on disk, and an inode reused within one timestamp tick by
        another process's rename could otherwise pass for the cached file.
        """
        link = first_link(self.root, self.path)
        if link is not None:
            raise ParseError(
                M_("{link} is a symlink; refusing to follow it", link=link), path=self.path
            )
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._cache = None
            return LoadedKnowledge(
                self.path, False, "", KnowledgeDoc(), None, knowledge_version(b"")
            )
        except OSError as exc:
            raise ParseError(
                M_("cannot read: {reason}", reason=exc.strerror or exc),
                path=self.path,
            ) from exc
        key = (st.st_mtime_ns, st.st_size, st.st_ino)
        if not fresh and self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise ParseError(
                M_("cannot read: {reason}", reason=exc.strerror or exc),
                path=self.path,
            ) from exc
        # The merge reader (and the identity rules under it) loads with the first
        # knowledge file, not with the settings a start reads (service/settings.py).
        from ...core.knowledge.merge import has_conflict_markers, parse_conflicted

        text = decode_file(data, path=self.path)
        marked = has_conflict_markers(text)
        conflict = None
        if marked and git.merge_left_unmerged(self.path) is not False:
            conflict = parse_conflicted(text, path=str(self.path))
        doc = parse_knowledge(conflict.ours if conflict else text, path=str(self.path))
        updated = datetime.fromtimestamp(st.st_mtime, tz=timezone.utc)
        loaded = LoadedKnowledge(
            self.path, True, text, doc, updated, knowledge_version(data), conflict
        )
        # A file with marker lines is not cached: whether it is conflicted is git's
        # answer (the index), which changes without the file changing (`git add`).
        self._cache = None if marked else (key, loaded)
        return loaded

    def write(self, text: str) -> str:
        """Durably replace the file (caller holds the lock); returns its sha256."""
        self._cache = None
        return write_text_atomic(self.path, text, root=self.root)

    def write_backup(self, text: str) -> str:
        return write_text_atomic(self.backup_path, text, root=self.root)

    def read_backup(self) -> str | None:
        if linked(self.root, self.backup_path):
            return None  # never followed; doctor lists the link
        try:
            return decode_file(self.backup_path.read_bytes(), path=self.backup_path)
        except FileNotFoundError:
            return None


class SettingsFile:
    """``settings.json`` of the user home; unknown keys written by others are kept."""

    def __init__(self, layout: RootLayout) -> None:
        self.root = layout.root
        self.path = layout.settings

    def read(self) -> dict[str, Any]:
        data = read_json(self.path, {}, root=self.root)
        if not isinstance(data, dict):
            raise ParseError(M_("settings must be a JSON object"), path=self.path)
        return data

    def update(self, changes: dict[str, Any]) -> dict[str, Any]:
        """Merge ``changes`` into the stored settings (caller holds the lock)."""
        data = self.read()
        data.update(changes)
        write_json(self.path, data, root=self.root)
        back = self.read()
        if any(back.get(k) != v for k, v in changes.items()):
            raise StoreError(M_("settings read-back differs from what was written"), path=self.path)
        return back
