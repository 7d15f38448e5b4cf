"""Read a saved notebook's cells from disk (nbformat), cached by modification time.

Only cell type, id and source are returned: outputs are never read, so an
agent's or a program's output cannot become evidence. :func:`project_notebooks`
lists the saved notebooks of a project folder for the agents' quote check.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..._i18n import M_
from ...exceptions import ParseError


@dataclass(frozen=True)
class NotebookCell:
    cell_type: str
    cell_id: str
    source: str


_CACHE: dict[str, tuple[int, list[NotebookCell]]] = {}

# A project folder can be large (data, virtual environments): the walk is bounded.
MAX_NOTEBOOKS = 200
MAX_CACHED = 400  # parsed notebooks kept in this process (two projects' worth)
MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024
MAX_WALK_ENTRIES = 50_000
SKIP_FOLDERS = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "env"})


def project_notebooks(folder: Path) -> list[Path]:
    """The saved notebooks below ``folder``, newest first, at most :data:`MAX_NOTEBOOKS`.

    Links are never followed (a link can point at anybody's text), hidden
    folders (``.ipynb_checkpoints``, ``.git``, ``.venv``) and package folders
    are skipped, and so are notebooks over :data:`MAX_NOTEBOOK_BYTES`.
    """
    found: list[tuple[int, Path]] = []
    for path, st in _walk(folder):
        if path.suffix == ".ipynb" and st.st_size <= MAX_NOTEBOOK_BYTES:
            found.append((st.st_mtime_ns, path))
    found.sort(key=lambda item: item[0], reverse=True)
    return [path for _, path in found[:MAX_NOTEBOOKS]]


def _walk(folder: Path) -> Iterator[tuple[Path, os.stat_result]]:
    try:
        if stat.S_ISLNK(os.lstat(folder).st_mode):
            return
    except OSError:
        return
    pending, seen = [folder], 0
    while pending:
        current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue  # unreadable folder: nothing in it is evidence
        for entry in entries:
            seen += 1
            if seen > MAX_WALK_ENTRIES:
                return
            if entry.name.startswith(".") or entry.is_symlink():
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                if entry.name not in SKIP_FOLDERS:
                    pending.append(Path(entry.path))
            elif stat.S_ISREG(st.st_mode):
                yield Path(entry.path), st


def find_notebook(session_name: str | None, cwd: Path) -> Path | None:
    """The notebook file behind ``JPY_SESSION_NAME`` (absolute, or relative to the kernel)."""
    if not session_name or not session_name.endswith(".ipynb"):
        return None
    raw = Path(session_name).expanduser()
    for candidate in (raw, cwd / raw, cwd / raw.name):
        if candidate.is_absolute() and candidate.is_file():
            return candidate.resolve()
    return None


def named_notebook(session_name: str | None, cwd: Path) -> Path | None:
    """The notebook ``JPY_SESSION_NAME`` names, absolute, even when it is no longer there.

    A kernel keeps the name it was started with: after a rename or a move in
    Jupyter the file is elsewhere, and the focus file says where (service/focus.py).
    """
    found = find_notebook(session_name, cwd)
    if found is not None or not session_name or not session_name.endswith(".ipynb"):
        return found
    raw = Path(session_name).expanduser()
    return raw if raw.is_absolute() else cwd / raw


def read_cells(path: Path) -> list[NotebookCell]:
    """All cells of the notebook at ``path``; ParseError names the file when it is broken."""
    import nbformat

    try:
        mtime = path.stat().st_mtime_ns
    except OSError as exc:
        raise ParseError(
            M_("cannot read notebook: {strerror}", strerror=exc.strerror), path=path
        ) from exc
    key = os.fspath(path)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] == mtime:
        return hit[1]
    try:
        nb = nbformat.read(key, as_version=4)  # type: ignore[no-untyped-call]
    except Exception as exc:  # nbformat raises several unrelated types
        raise ParseError(M_("not a readable notebook: {exc}", exc=exc), path=path) from exc
    cells = [
        NotebookCell(
            str(cell.get("cell_type", "")),
            str(cell.get("id") or index),
            str(cell.get("source", "")),
        )
        for index, cell in enumerate(nb.get("cells", []))
    ]
    if len(_CACHE) >= MAX_CACHED and key not in _CACHE:
        del _CACHE[next(iter(_CACHE))]  # the notebook parsed longest ago
    _CACHE[key] = (mtime, cells)
    return cells
