"""The person's focus per notebook, kept in the memory home: ``focus/notebooks.json``.

The kernel, the Jupyter server (panel, Jupyter AI) and an MCP server started
by an editor are different processes; they agree on a notebook's project by
reading this one small file. Shape::

    {"notebooks": {"/abs/path/report.ipynb": {"project": "sales-q3", "at": "2026-…", "seq": 7}},
     "moved": {"/abs/path/Untitled.ipynb": {"to": "/abs/path/report.ipynb", "at": "2026-…"}}}

``project`` is a registered project id, or ``null`` when the person said
"no project" for that notebook; ``seq`` orders the choices (the newest has the
highest), since two choices can share a clock reading. Writes are atomic under the folder's own
inter-process lock (the ``recent/`` files' pattern), so a kernel and the
server setting two notebooks at once both land. The file is bounded: the
:data:`KEEP_NOTEBOOKS` most recently focused notebooks are kept.

A notebook (or a folder of them) renamed or moved in Jupyter takes its
records along (:meth:`NotebookFocusFile.move`, from the server's contents
events), and ``moved`` says where each old path went (the last
:data:`KEEP_MOVES`), so a kernel started under the old name finds its
notebook: its ``JPY_SESSION_NAME`` still names the old path. Like every
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
KEEP_MOVES = 500


def _below(key: str, prefix: str) -> str | None:
    """``key`` relative to ``prefix`` ("" for itself, "/x.ipynb" inside it), else ``None``."""
    if key == prefix:
        return ""
    if key.startswith(prefix.rstrip(os.sep) + os.sep):
        return key[len(prefix.rstrip(os.sep)) :]
    return None


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
        self._cache: tuple[tuple[int, int], dict[str, dict[str, Any]], dict[str, Any]] | None = None
        # The records per folder, built once per parse (the parsed dict it came from).
        self._folders: tuple[dict[str, dict[str, Any]], dict[str, list[FocusRecord]]] | None = None

    def stamp(self) -> tuple[int, int] | None:
        """(mtime_ns, size) of the file, or ``None``: a cheap "did anything change" check."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def _parsed(self) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        """The parsed file (notebooks, moved), shared with the cache: read it, never change it."""
        # Every agent call resolves a focus: re-parse only when the file changed.
        stamp = self.stamp()
        if stamp is not None and self._cache is not None and self._cache[0] == stamp:
            return self._cache[1], self._cache[2]
        notebooks, moved = self._parse()
        if stamp is not None:
            self._cache = (stamp, notebooks, moved)
        return notebooks, moved

    def _notebooks(self) -> dict[str, dict[str, Any]]:
        return self._parsed()[0]

    def _write(self, notebooks: dict[str, dict[str, Any]], moved: dict[str, Any]) -> None:
        data: dict[str, Any] = {"notebooks": notebooks}
        if moved:
            data["moved"] = dict(list(moved.items())[-KEEP_MOVES:])  # the newest moves
        write_json(self.path, data, root=self.home)

    def _parse(self) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        data = read_json(self.path, {}, root=self.home)
        notebooks = data.get("notebooks", {}) if isinstance(data, dict) else None
        if not isinstance(notebooks, dict):
            raise ParseError(
                M_('must be a JSON object {{"notebooks": {{path: record}}}}'), path=self.path
            )
        moved = data.get("moved", {})
        if not isinstance(moved, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("to"), str) for v in moved.values()
        ):
            raise ParseError(
                M_('moved: must be an object {{old path: {{"to": new path}}}}'), path=self.path
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
        return notebooks, moved

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
            parsed, moved = self._parsed()
            notebooks = dict(parsed)
            seq = max((v["seq"] for v in notebooks.values()), default=0) + 1
            notebooks[key] = {"project": project, "at": at, "seq": seq}
            if len(notebooks) > KEEP_NOTEBOOKS:
                newest = sorted(notebooks.items(), key=lambda kv: kv[1]["seq"], reverse=True)
                notebooks = dict(newest[:KEEP_NOTEBOOKS])
            self._write(notebooks, moved)
        return FocusRecord(key, project, at, seq)

    def move(self, old: Path, new: Path, at: str) -> int:
        """``old`` (a notebook, or a folder of them) was renamed or moved to ``new``.

        Every record at or below ``old`` goes to the same place below ``new``,
        keeping its choice and its order; ``moved`` notes where ``old`` went
        (earlier moves into ``old`` now point at ``new``, so one look-up is
        enough). Answers how many records moved.
        """
        src, dst = os.fspath(old), os.fspath(new)
        with root_lock(self.folder, within=self.home):
            parsed, parsed_moved = self._parsed()
            notebooks: dict[str, dict[str, Any]] = {}
            count = 0
            for key, value in parsed.items():
                rest = _below(key, src)
                if rest is None:
                    notebooks.setdefault(key, value)
                else:
                    notebooks[dst + rest] = value  # over a stale record left at the new path
                    count += 1
            moved: dict[str, Any] = {}
            for key, value in parsed_moved.items():
                if _below(key, dst) is not None:
                    continue  # that path is in use again: nothing there moved away
                rest = _below(value["to"], src)
                moved[key] = value if rest is None else {"to": dst + rest, "at": at}
            moved.pop(src, None)  # newest last: the bound keeps the newest moves
            moved[src] = {"to": dst, "at": at}
            self._write(notebooks, moved)
        return count

    def forget(self, path: Path) -> int:
        """``path`` (a notebook or a folder) was deleted: its records go; answers how many."""
        gone = os.fspath(path)
        with root_lock(self.folder, within=self.home):
            parsed, parsed_moved = self._parsed()
            notebooks = {k: v for k, v in parsed.items() if _below(k, gone) is None}
            moved = {k: v for k, v in parsed_moved.items() if _below(v["to"], gone) is None}
            count = len(parsed) - len(notebooks)
            if count or len(moved) != len(parsed_moved):
                self._write(notebooks, moved)
        return count

    def moved_to(self, path: Path) -> Path | None:
        """Where a rename or move took ``path`` (itself, or a folder above it), else ``None``."""
        moved = self._parsed()[1]
        key = os.fspath(path)
        for candidate in (key, *map(os.fspath, path.parents)):
            found = moved.get(candidate)
            if found is not None:
                return Path(found["to"] + key[len(candidate) :])
        return None
