"""Read the folder (or file) a person imports from: every problem named by file.

Nothing here stops at the first bad file: a file that cannot be read whole
(a link, unreadable, over the size cap, not UTF-8, with NUL bytes) is listed
with the reason and left out, and the rest is read. Links are not followed
(``store/links.py``): one pointing out of the folder would import what the
person did not choose, one inside it would import a file twice.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..._i18n import M_
from ...exceptions import ParseError
from ..links import first_link

MAX_SOURCE_FILE_BYTES = 1_000_000  # a note or rule file; our own memory files share the cap
# One mem0 export file. Room for the run's 100,000-item cap (12 MB at mem0's usual
# item size) with long texts; a 199 MB export is refused by its size before it is
# read (json.loads of it alone took 1.1 GB), not after.
MAX_EXPORT_JSON_BYTES = 64_000_000
MAX_SOURCE_FILES = 200_000


@dataclass(frozen=True)
class SourceFile:
    rel: str  # POSIX path relative to the imported folder
    text: str


@dataclass
class SourceListing:
    root: Path  # the imported folder (a single file's parent)
    files: list[SourceFile] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (rel path, reason)
    single_file: bool = False


def _outside(root: Path, link: Path) -> bool:
    try:
        target = link.resolve()
    except (OSError, RuntimeError):
        return True
    return not target.is_relative_to(root.resolve())


def _read(root: Path, path: Path, rel: str, max_bytes: int, out: SourceListing) -> None:
    link = first_link(root, path)
    if link is not None:
        why = "out of the folder" if _outside(root, link) else "inside the folder"
        out.problems.append((rel, f"a symlink pointing {why}: not followed"))
        return
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            out.problems.append((rel, "not a regular file"))
            return
        if info.st_size > max_bytes:
            out.problems.append((rel, f"{info.st_size} bytes, over the {max_bytes}-byte cap"))
            return
        data = path.read_bytes()
    except OSError as exc:
        out.problems.append((rel, f"cannot read: {exc.strerror or exc}"))
        return
    if b"\x00" in data:
        out.problems.append((rel, "contains NUL bytes: not a text file"))
        return
    try:
        out.files.append(SourceFile(rel, data.decode("utf-8")))
    except UnicodeDecodeError as exc:
        out.problems.append((rel, f"invalid UTF-8 at byte {exc.start}"))


def read_source(
    path: str | os.PathLike[str],
    *,
    wanted: Callable[[str], bool],
    max_bytes: int = MAX_SOURCE_FILE_BYTES,
    hidden_ok: frozenset[str] = frozenset(),
    progress: Callable[[int], None] | None = None,
) -> SourceListing:
    """Every wanted file below ``path`` (or ``path`` itself), read whole or reported.

    ``wanted`` sees each relative path; hidden folders (``.git``, ``.obsidian``)
    are not entered unless named in ``hidden_ok``. ``progress`` gets 1 per file.
    """
    target = Path(path).expanduser().absolute()
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        raise ParseError(M_("no such file or folder"), path=target) from None
    except OSError as exc:
        raise ParseError(
            M_("cannot read: {reason}", reason=exc.strerror or exc),
            path=target,
        ) from None
    if not stat.S_ISDIR(mode):
        out = SourceListing(target.parent, single_file=True)
        _read(target.parent, target, target.name, max_bytes, out)
        return out
    out = SourceListing(target)
    stack, seen = [target], 0
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            rel = folder.relative_to(target).as_posix()
            out.problems.append((rel, f"cannot list folder: {exc.strerror or exc}"))
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_SOURCE_FILES:
                raise ParseError(
                    M_(
                        "over {limit} entries: import a smaller folder",
                        limit=MAX_SOURCE_FILES,
                    ),
                    path=target,
                )
            full = Path(entry.path)
            rel = full.relative_to(target).as_posix()
            if entry.is_dir(follow_symlinks=False):
                if not entry.name.startswith(".") or entry.name in hidden_ok:
                    stack.append(full)
                continue
            if not wanted(rel):
                continue
            _read(target, full, rel, max_bytes, out)
            if progress is not None:
                progress(1)
    out.files.sort(key=lambda f: f.rel)
    return out
