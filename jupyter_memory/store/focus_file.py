"""The person's focus per notebook, kept in the memory home: ``focus/notebooks.json``.

The kernel, the Jupyter server (panel, Jupyter AI) and an MCP server started
by an editor are different processes; they agree on a notebook's project by
reading this one small file. Shape::

    {"notebooks": {"/abs/path/report.ipynb": {"project": "sales-q3", "at": "2026-…", "seq": 7}}}

``project`` is a registered project id, or ``null`` when the person said
"no project" for that notebook; ``seq`` orders the choices (the newest has the
highest), since two choices can share a clock reading. Writes are atomic under the folder's own
inter-process lock (the ``recent/`` files' pattern), so a kernel and the
server setting two notebooks at once both land. The file is bounded: the
:data:`KEEP_NOTEBOOKS` most recently focused notebooks are kept. Like every
file below the home, it is never reached through a link (invariant 8):
reading through one reads as absent, writing raises ``LinkedPathError``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._i18n import M_
from ..exceptions import ParseError
from .atomic import root_lock
from .json_file import read_json, write_json

FOLDER = "focus"
FILE_NAME = "notebooks.json"
KEEP_NOTEBOOKS = 2000


@dataclass(frozen=True)
class FocusRecord:
    """What the person chose for one notebook, and when (ISO time, UTC)."""

    notebook: str
    project: str | None
    at: str
    seq: int


class NotebookFocusFile:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.folder = home / FOLDER
        self.path = self.folder / FILE_NAME
        self._cache: tuple[tuple[int, int], dict[str, dict[str, Any]]] | None = None
        # The records per folder, built once per parse (the parsed dict it came from).
        self._folders: tuple[dict[str, dict[str, Any]], dict[str, list[FocusRecord]]] | None = None

    def stamp(self) -> tuple[int, int] | None:
        """(mtime_ns, size) of the file, or ``None``: a cheap "did anything change" check."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def _notebooks(self) -> dict[str, dict[str, Any]]:
        """The parsed file, shared with the cache: read it, never change it."""
        # Every agent call resolves a focus: re-parse only when the file changed.
        stamp = self.stamp()
        if stamp is not None and self._cache is not None and self._cache[0] == stamp:
            return self._cache[1]
        notebooks = self._parse()
        if stamp is not None:
            self._cache = (stamp, notebooks)
        return notebooks

    def _raw(self) -> dict[str, dict[str, Any]]:
        """A copy of the parsed file, to change and write back."""
        return dict(self._notebooks())

    def _parse(self) -> dict[str, dict[str, Any]]:
        data = read_json(self.path, {}, root=self.home)
        notebooks = data.get("notebooks", {}) if isinstance(data, dict) else None
        if not isinstance(notebooks, dict):
            raise ParseError(
                M_('must be a JSON object {{"notebooks": {{path: record}}}}'), path=self.path
            )
        for key, value in notebooks.items():
            if not isinstance(value, dict):
                raise ParseError(M_("notebook {key!r}: must be an object", key=key), path=self.path)
            project = value.get("project")
            if project is not None and not isinstance(project, str):
                raise ParseError(
                    M_("notebook {key!r}: project must be a project id or null", key=key),
                    path=self.path,
                )
            if not isinstance(value.get("at"), str):
                raise ParseError(
                    M_("notebook {key!r}: at must be an ISO time", key=key), path=self.path
                )
            seq = value.get("seq")
            if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
                raise ParseError(
                    M_("notebook {key!r}: seq must be a whole number", key=key), path=self.path
                )
        return notebooks

    @staticmethod
    def _record(key: str, value: dict[str, Any]) -> FocusRecord:
        return FocusRecord(key, value.get("project"), value["at"], value["seq"])

    def records(self) -> list[FocusRecord]:
        """Every record, most recent first; a damaged file is a clear error naming it."""
        out = [self._record(k, v) for k, v in self._notebooks().items()]
        out.sort(key=lambda r: r.seq, reverse=True)
        return out

    def get(self, notebook: Path) -> FocusRecord | None:
        key = os.fspath(notebook)
        value = self._notebooks().get(key)
        return None if value is None else self._record(key, value)

    def in_folder(self, folder: Path) -> list[FocusRecord]:
        """Records of the notebooks directly inside ``folder``, most recent first."""
        notebooks = self._notebooks()
        index = self._folders
        if index is None or index[0] is not notebooks:
            # A chat's or an MCP call's focus asks one folder of a file of up to
            # 2,000 notebooks: group them once per parse, not per call.
            by_folder: dict[str, list[FocusRecord]] = {}
            for k, v in notebooks.items():
                by_folder.setdefault(os.path.dirname(k), []).append(self._record(k, v))
            for found in by_folder.values():
                found.sort(key=lambda r: r.seq, reverse=True)
            index = (notebooks, by_folder)
            self._folders = index
        return list(index[1].get(os.fspath(folder), []))

    def set(self, notebook: Path, project: str | None, at: str) -> FocusRecord:
        """Record the person's choice for ``notebook`` (absolute path); keeps the newest ones."""
        key = os.fspath(notebook)
        with root_lock(self.folder, within=self.home):
            notebooks = self._raw()
            seq = max((v["seq"] for v in notebooks.values()), default=0) + 1
            notebooks[key] = {"project": project, "at": at, "seq": seq}
            if len(notebooks) > KEEP_NOTEBOOKS:
                newest = sorted(notebooks.items(), key=lambda kv: kv[1]["seq"], reverse=True)
                notebooks = dict(newest[:KEEP_NOTEBOOKS])
            write_json(self.path, {"notebooks": notebooks}, root=self.home)
        return FocusRecord(key, project, at, seq)
