"""Write an export (basic-memory notes, a plain AGENTS.md) without overwriting anything.

An export goes to files a person names; one that already exists with other
content is refused before anything is written, so an export never clobbers
a note or a hand-written AGENTS.md (invariant 7).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from ..._i18n import M_
from ...exceptions import UnsafeNameError, ValidationError
from ..atomic import ensure_dir, write_many_atomic, write_text_atomic


def _inside(folder: Path, rel: str) -> Path:
    pure = PurePosixPath(rel)
    if pure.is_absolute() or any(p in ("", ".", "..") for p in pure.parts) or "\\" in rel:
        raise UnsafeNameError(M_("{rel!r} leaves the export folder", rel=rel), field="path")
    return folder.joinpath(*pure.parts)


def _same(path: Path, data: bytes) -> bool | None:
    """None: no such file; else whether it holds exactly ``data``."""
    try:
        return path.read_bytes() == data
    except FileNotFoundError:
        return None


def write_export_folder(folder: Path, files: list[tuple[str, str]]) -> list[str]:
    """Write new files below ``folder``; an existing different file refuses them all."""
    folder = folder.expanduser().absolute()
    items: list[tuple[Path, bytes]] = []
    seen: set[Path] = set()
    for rel, text in files:
        path = _inside(folder, rel)
        if path in seen:
            raise ValidationError(
                M_("two memories would be written to {rel}", rel=rel), field="path"
            )
        seen.add(path)
        data = text.encode("utf-8")
        same = _same(path, data)
        if same is False:
            raise ValidationError(
                M_("{path} exists with other content: export into an empty folder", path=path),
                field="path",
            )
        if same is None:
            items.append((path, data))
    ensure_dir(folder)
    write_many_atomic(items, root=folder)
    return [p.relative_to(folder).as_posix() for p, _ in items]


def write_export_file(path: Path, text: str) -> bool:
    """Write ``text`` to a new file; False when it already holds exactly that text."""
    path = path.expanduser().absolute()
    same = _same(path, text.encode("utf-8"))
    if same is False:
        raise ValidationError(M_("{path} exists: choose a new file name", path=path), field="path")
    if same:
        return False
    write_text_atomic(path, text)
    return True
