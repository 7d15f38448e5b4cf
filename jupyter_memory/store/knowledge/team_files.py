"""The files that make a project folder a team project (issue 17, docs/teams.md).

* ``.jupyter-memory/project.json``: the project's shared settings, committed
  with it (``shared_queue``); every clone reads the same switch.
* ``.jupyter-memory/.gitattributes``: which of our files git merges with our
  drivers. Lines someone else added are kept.

Writes go through :mod:`..atomic` under the project root's lock (the caller's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..._i18n import M_
from ...exceptions import JupyterMemoryError, ParseError
from ..atomic import write_text_atomic
from ..json_file import read_json, write_json
from ..links import linked

PROJECT_SETTINGS = "project.json"
GITATTRIBUTES = ".gitattributes"
KNOWLEDGE_DRIVER = "jupyter-memory-knowledge"
PROPOSAL_DRIVER = "jupyter-memory-proposal"
ATTRIBUTE_LINES = (
    f"knowledge.md merge={KNOWLEDGE_DRIVER}",
    f"queue/*.md merge={PROPOSAL_DRIVER}",
)


def read_project_settings(root: Path) -> dict[str, Any]:
    data = read_json(root / PROJECT_SETTINGS, {}, root=root)
    if not isinstance(data, dict):
        raise ParseError(M_("must be a JSON object"), path=root / PROJECT_SETTINGS)
    return data


def write_project_settings(root: Path, changes: dict[str, Any]) -> dict[str, Any]:
    data = read_project_settings(root)
    data.update(changes)
    write_json(root / PROJECT_SETTINGS, data, root=root)
    return read_project_settings(root)


_seen: dict[Path, tuple[tuple[int, int] | None, bool]] = {}


def shared_queue_on(root: Path) -> bool:
    """The project's ``shared_queue`` switch, re-read only when ``project.json`` changed
    (the panel's watcher asks twice a second for every registered project)."""
    try:
        st = (root / PROJECT_SETTINGS).stat()
        stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = None
    hit = _seen.get(root)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        on = stamp is not None and read_project_settings(root).get("shared_queue") is True
    except JupyterMemoryError:
        on = False  # an unreadable project.json is reported by doctor, not here
    _seen[root] = (stamp, on)
    return on


def attributes_missing(root: Path) -> list[str]:
    """Our lines that ``.jupyter-memory/.gitattributes`` lacks."""
    path = root / GITATTRIBUTES
    if linked(root, path):
        return list(ATTRIBUTE_LINES)
    try:
        present = {" ".join(x.split()) for x in path.read_text(encoding="utf-8").splitlines()}
    except (FileNotFoundError, UnicodeDecodeError):
        present = set()
    return [line for line in ATTRIBUTE_LINES if line not in present]


def write_attributes(root: Path) -> bool:
    """Add our lines to ``.gitattributes`` (kept: anything else in it); ``True`` if written."""
    missing = attributes_missing(root)
    if not missing:
        return False
    path = root / GITATTRIBUTES
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = "# jupyter-memory: merge knowledge and proposals by item (docs/teams.md)\n"
    if old and not old.endswith("\n"):
        old += "\n"
    write_text_atomic(path, old + "".join(f"{line}\n" for line in missing), root=root)
    return True


__all__ = [
    "ATTRIBUTE_LINES",
    "KNOWLEDGE_DRIVER",
    "PROPOSAL_DRIVER",
    "attributes_missing",
    "read_project_settings",
    "shared_queue_on",
    "write_attributes",
    "write_project_settings",
]
