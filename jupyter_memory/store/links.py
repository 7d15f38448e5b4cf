"""The one rule for links below a storage root (issue 19 C/D).

A root is the memory home, a project's ``.jupyter-memory/`` or a case
workspace. Below a root nothing is a symlink: not a subfolder (``memories/``,
``queue/``, ``cases/CASE-…``), not a file (a memory, ``knowledge.md``,
``INDEX.md``). A link there is never followed, whoever planted it (a cloned
repository can carry one):

- a write raises :class:`~jupyter_memory.exceptions.LinkedPathError` naming
  the link (:func:`refuse_link`);
- a read skips what it would reach through the link (:func:`first_link`) —
  a folder listing leaves the entry out and reports it, a single document
  reads as absent — so nothing from outside the governed store is indexed,
  recalled or shown;
- ``doctor`` lists every link it finds (:func:`links_below`).

The root's own last component counts too: a project's ``.jupyter-memory``
lies below the project folder, and a cloned repository can carry it as a
link. The memory home and a case workspace are resolved paths (a home moved
to another disk through a link is resolved first), so for them this never
fires. Every check is ``lstat`` per path component: microseconds.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from .._i18n import M_
from ..exceptions import LinkedPathError, UnsafeNameError

# doctor's walk is bounded: a case workspace can be a large project folder.
MAX_WALK_ENTRIES = 200_000


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def first_link(root: Path, path: Path) -> Path | None:
    """The first symlink from ``root`` down to ``path`` (both inclusive), if any."""
    if _is_link(root):
        return root
    try:
        rel = path.relative_to(root)
    except ValueError:
        raise UnsafeNameError(
            M_("{path} is not inside {root}", path=path, root=root), field="path"
        ) from None
    current = root
    for part in rel.parts:
        if part in ("", ".", ".."):
            raise UnsafeNameError(M_("{path} leaves {root}", path=path, root=root), field="path")
        current = current / part
        if _is_link(current):
            return current
    return None


def link_chain(root: Path, path: Path) -> tuple[str, ...]:
    """The paths :func:`first_link` checks from ``root`` down to ``path``, precomputed
    as strings for a check made on every read (:func:`chain_linked`)."""
    first_link(root, path)  # raises UnsafeNameError for a path outside ``root``
    chain = [root]
    for part in path.relative_to(root).parts:
        chain.append(chain[-1] / part)
    return tuple(os.fspath(p) for p in chain)


def chain_linked(chain: tuple[str, ...]) -> bool:
    """``True`` when a path of a :func:`link_chain` is a symlink (as :func:`linked`)."""
    for p in chain:
        try:
            if stat.S_ISLNK(os.lstat(p).st_mode):
                return True
        except OSError:
            return False
    return False


def refuse_link(root: Path, path: Path) -> Path:
    """``path`` when nothing on the way from ``root`` to it is a symlink; else the typed error."""
    link = first_link(root, path)
    if link is not None:
        raise LinkedPathError(link, root=root)
    return path


def linked(root: Path, path: Path) -> bool:
    """For readers: ``True`` when ``path`` is reached through a symlink (skip it)."""
    return first_link(root, path) is not None


def links_below(root: Path, parts: Iterable[str] | None = None) -> list[Path]:
    """Every symlink below ``root`` (or below ``root/<part>`` for each part), none followed.

    The walk stops at a link: what lies beyond it is not ours to list.
    """
    starts = [root / p for p in parts] if parts is not None else [root]
    found: set[Path] = set()
    seen = 0
    for start in starts:
        link = first_link(root, start)
        if link is not None:
            found.add(link)
            continue
        stack = [start]
        while stack and seen < MAX_WALK_ENTRIES:
            folder = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = list(it)
            except OSError:
                continue
            for entry in entries:
                seen += 1
                if entry.is_symlink():
                    found.add(Path(entry.path))
                elif entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
    return sorted(found)
