"""Read a saved notebook's cells from disk (nbformat), cached by modification time.

Only cell type, id and source are returned: outputs are never read, so an
agent's or a program's output cannot become evidence.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ...exceptions import ParseError


@dataclass(frozen=True)
class NotebookCell:
    cell_type: str
    cell_id: str
    source: str


_CACHE: dict[str, tuple[int, list[NotebookCell]]] = {}


def find_notebook(session_name: str | None, cwd: Path) -> Path | None:
    """The notebook file behind ``JPY_SESSION_NAME`` (absolute, or relative to the kernel)."""
    if not session_name or not session_name.endswith(".ipynb"):
        return None
    raw = Path(session_name).expanduser()
    for candidate in (raw, cwd / raw, cwd / raw.name):
        if candidate.is_absolute() and candidate.is_file():
            return candidate.resolve()
    return None


def read_cells(path: Path) -> list[NotebookCell]:
    """All cells of the notebook at ``path``; ParseError names the file when it is broken."""
    import nbformat

    try:
        mtime = path.stat().st_mtime_ns
    except OSError as exc:
        raise ParseError(f"cannot read notebook: {exc.strerror}", path=path) from exc
    key = os.fspath(path)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] == mtime:
        return hit[1]
    try:
        nb = nbformat.read(key, as_version=4)  # type: ignore[no-untyped-call]
    except Exception as exc:  # nbformat raises several unrelated types
        raise ParseError(f"not a readable notebook: {exc}", path=path) from exc
    cells = [
        NotebookCell(
            str(cell.get("cell_type", "")),
            str(cell.get("id") or index),
            str(cell.get("source", "")),
        )
        for index, cell in enumerate(nb.get("cells", []))
    ]
    _CACHE[key] = (mtime, cells)
    return cells
