"""One focus, everywhere: which project a notebook, a chat or an MCP session works in.

A project is a folder holding ``.jupyter-memory/`` that the person registered.
The rules, the same for every surface (docs/notebooks.md, "Which project"):

- **A notebook**: the person's explicit choice for that notebook path
  (``%memory focus``, the panel), kept in the memory home; else the nearest
  registered project at or above the notebook's folder (as git finds ``.git``);
  else none.
- **A folder** (a Jupyter AI chat's folder, an MCP client's working folder):
  the choice made for the notebook in that very folder that was focused last;
  else the nearest registered project at or above the folder; else none.

Inference never registers: a ``.jupyter-memory/`` folder the person never
registered (cloned, or written by an agent) is only reported as
``unregistered`` so the person can focus it; it is never used
(docs/design.md invariant 9). Recording a choice is the person's act only;
agents reach :meth:`NotebookFocus.for_folder` and nothing that writes. A
choice belongs to the notebook, not to its name: a rename or a move in
Jupyter (a folder's too) carries it along, a delete ends it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..store.focus_file import FocusRecord, NotebookFocusFile
from ..store.layout import PROJECT_DIR_NAME
from .paths import RegisteredProject

EXPLICIT = "explicit"  # the person chose it for this notebook
BESIDE = "beside"  # the person chose it for a notebook in the same folder
FOLDER = "folder"  # the nearest registered project at or above the folder
NONE = "none"


@dataclass(frozen=True)
class FocusResolution:
    """The project in use, and why (``source``: explicit, beside, folder or none)."""

    project: RegisteredProject | None
    folder: Path | None
    source: str
    notebook: str | None = None
    unregistered: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "folder": os.fspath(self.folder) if self.folder else None,
            "source": self.source,
            "notebook": self.notebook,
            "unregistered": os.fspath(self.unregistered) if self.unregistered else None,
        }


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


def notebook_key(notebook: str | os.PathLike[str]) -> Path:
    """The one spelling of a notebook path every process uses (absolute, links resolved)."""
    return _real(notebook)


class NotebookFocus:
    """Reads and records the person's focus per notebook, over the registry ``known()``."""

    def __init__(self, home: Path, known: Any) -> None:
        self.file = NotebookFocusFile(home)
        self._known = known
        # Resolving each registered folder's links costs a stat per component.
        self._registered_cache: tuple[tuple[tuple[str, str], ...], dict[Path, str]] | None = None

    def _registered(self) -> dict[Path, str]:
        known = self._known()
        key = tuple(sorted(known.items()))
        if self._registered_cache is not None and self._registered_cache[0] == key:
            return self._registered_cache[1]
        out: dict[Path, str] = {}
        for pid, folder in known.items():
            out.setdefault(_real(folder), pid)
        self._registered_cache = (key, out)
        return out

    def _usable(self, pid: str | None, known: dict[str, str]) -> Path | None:
        folder = known.get(pid) if pid is not None else None
        return Path(folder) if folder is not None and Path(folder).is_dir() else None

    def nearest(self, folder: Path) -> FocusResolution:
        """The nearest registered project at or above ``folder``; never registers one."""
        registered = self._registered()
        unregistered: Path | None = None
        for candidate in (folder, *folder.parents):
            pid = registered.get(candidate)
            if pid is not None and candidate.is_dir():
                return FocusResolution(RegisteredProject(pid), candidate, FOLDER)
            if unregistered is None and (candidate / PROJECT_DIR_NAME).is_dir():
                unregistered = candidate
        return FocusResolution(None, None, NONE, unregistered=unregistered)

    def _chosen(
        self, record: FocusRecord, source: str, known: dict[str, str]
    ) -> FocusResolution | None:
        if record.project is None:
            return FocusResolution(None, None, source, notebook=record.notebook)
        folder = self._usable(record.project, known)
        if folder is None:
            return None  # unregistered since, or its folder is gone: infer instead
        return FocusResolution(RegisteredProject(record.project), folder, source, record.notebook)

    def for_notebook(self, notebook: str | os.PathLike[str]) -> FocusResolution:
        """The person's choice for this notebook, else the project its folder sits in."""
        path = notebook_key(notebook)
        record = self.file.get(path)
        if record is not None:
            chosen = self._chosen(record, EXPLICIT, self._known())
            if chosen is not None:
                return chosen
        return self.nearest(path.parent)

    def for_folder(self, folder: str | os.PathLike[str]) -> FocusResolution:
        """For a chat or an MCP session in ``folder``: the last choice beside it, else the folder's project."""
        path = _real(folder)
        known = self._known()
        for record in self.file.in_folder(path):
            chosen = self._chosen(record, BESIDE, known)
            if chosen is not None:
                return chosen
        return self.nearest(path)

    def record(self, notebook: str | os.PathLike[str], project: str | None, at: str) -> FocusRecord:
        """The person's act: keep ``project`` (a registered id, or ``None``) for ``notebook``."""
        return self.file.set(notebook_key(notebook), project, at)

    def moved(self, old: str | os.PathLike[str], new: str | os.PathLike[str], at: str) -> int:
        """A notebook or a folder was renamed or moved: the person's choices go with it."""
        return self.file.move(notebook_key(old), notebook_key(new), at)

    def deleted(self, path: str | os.PathLike[str]) -> int:
        """A notebook or a folder was deleted: its choices go (a new file there starts afresh)."""
        return self.file.forget(notebook_key(path))

    def where_now(self, notebook: str | os.PathLike[str]) -> Path | None:
        """Where a rename or move took ``notebook``, else ``None`` (never moved, or unknown)."""
        return self.file.moved_to(notebook_key(notebook))
