"""Projects: the registry in ``projects.json`` and the focused project.

Registering a folder is a person's act (``%memory focus``, ``--project``, the
panel); an agent's name for a project arrives as a :class:`RegisteredProject`
and never registers one (docs/design.md invariant 9). The person's focus per
notebook, and how a chat or an MCP session finds the same project, is
:mod:`.focus`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from .._i18n import M_
from ..exceptions import ParseError
from ..store.json_file import read_json, write_json
from ..store.layout import project_gitignore, project_root
from ..store.root import StoreRoot
from ..store.storage import choose_storage
from .focus import FocusResolution, NotebookFocus
from .paths import RegisteredProject, registered_project, resolve_project_dir

PROJECTS_FILE = "projects.json"

ProjectArg = str | os.PathLike[str]


class Projects:
    """The person's projects (id → folder) and which one is in focus."""

    def __init__(
        self,
        home: Path,
        user: StoreRoot,
        *,
        storage_of: Callable[[Path], str | None] | None = None,
    ) -> None:
        self.home = home
        # The person's storage choice for a project folder (auto/local/network).
        self._storage_of = storage_of
        self.user = user
        self.project_id: str | None = None
        self.project_dir: Path | None = None
        self.project_root: StoreRoot | None = None
        self._roots: dict[str, StoreRoot] = {}
        self.notebooks = NotebookFocus(home, self.known)
        # How this process's focus was decided (explicit, beside, folder, none).
        self.source = "none"
        self._followed: tuple[str, object] | None = None

    def known(self) -> dict[str, str]:
        """The registered projects: id → folder (``projects.json``)."""
        data = read_json(self.home / PROJECTS_FILE, {}, root=self.home)
        if not isinstance(data, dict):
            raise ParseError(
                M_("must be a JSON object of project id → folder"), path=self.home / PROJECTS_FILE
            )
        return {str(k): str(v) for k, v in data.items()}

    def resolve(self, project: ProjectArg) -> tuple[str, StoreRoot]:
        """The id and storage root of ``project``; a person's folder is registered on first use."""
        pid, folder = resolve_project_dir(project, self.known())
        root = self._roots.get(pid)
        if root is None:
            override = self._storage_of(folder) if self._storage_of is not None else None
            root = StoreRoot(
                project_root(folder),
                layer="project",
                gitignore=project_gitignore(),
                storage=choose_storage(project_root(folder), override),
            )
            root.progress = self.user.progress  # the person's progress display, as for User
            self._roots[pid] = root
            known = self.known()
            # An agent's name for a project never registers one (RegisteredProject).
            if known.get(pid) != str(folder) and not isinstance(project, RegisteredProject):
                with self.user.locked():
                    known = self.known()
                    known[pid] = str(folder)
                    write_json(self.home / PROJECTS_FILE, known, root=self.home)
        return pid, root

    def folder_of(self, pid: str) -> Path | None:
        """A registered project's folder (``None`` when the id is not registered here)."""
        folder = self.known().get(pid)
        return Path(folder) if folder is not None else None

    def register(self, project: ProjectArg) -> str:
        """A person's act: the id of a project folder (registering it) or of a known id."""
        return self.resolve(project)[0]

    def registered(self, project: str) -> RegisteredProject:
        """What an agent's ``project`` names: a registered id, or a registered folder's path.

        Anything else is refused (``PolicyError`` for a folder, ``NotFoundError``
        for an id); nothing is registered or created.
        """
        return registered_project(project, self.known())[0]

    def focus(
        self,
        project: ProjectArg | None,
        *,
        notebook: ProjectArg | None = None,
        at: str | None = None,
    ) -> str | None:
        """Focus a project folder (or a known project id); ``None`` unfocuses.

        With ``notebook`` (the person's act in that notebook, or in the panel
        for it), the choice is kept for that notebook path in the memory home,
        so the chats and agents beside it resolve the same project.
        """
        if project is None:
            self.project_id = self.project_dir = self.project_root = None
            pid = None
        else:
            pid, root = self.resolve(project)
            self.project_id, self.project_root = pid, root
            self.project_dir = root.root.parent
        self.source = "explicit"
        if notebook is not None:
            self.notebooks.record(notebook, pid, at or datetime.now(timezone.utc).isoformat())
        return pid

    def follow(self, notebook: ProjectArg) -> str | None:
        """Work in the person's focus for ``notebook``, re-read only when the focus file changed.

        The choice can be made in another process (the panel), so the kernel
        follows it; when nothing changed this costs one ``stat``.
        """
        stamp = self.notebooks.file.stamp()
        if self._followed is not None and self._followed == (os.fspath(notebook), stamp):
            return self.project_id
        self.adopt(self.notebooks.for_notebook(notebook))
        self._followed = (os.fspath(notebook), stamp)
        return self.project_id

    def adopt(self, resolution: FocusResolution) -> str | None:
        """Work in a resolved focus (already registered, or none); never registers."""
        if resolution.project is None:
            self.project_id = self.project_dir = self.project_root = None
        else:
            self.focus(resolution.project)
        self.source = resolution.source
        return self.project_id

    def roots(self, project: ProjectArg | None = None) -> list[StoreRoot]:
        """The roots a read covers, project first: ``project``'s, or the focused one's, then User."""
        roots: list[StoreRoot] = []
        if project is not None:
            roots.append(self.resolve(project)[1])
        elif self.project_root is not None:
            roots.append(self.project_root)
        roots.append(self.user)
        return roots

    def forget_root(self, project: ProjectArg) -> None:
        """Close and drop a project's opened root (its storage choice changed)."""
        pid, _ = resolve_project_dir(project, self.known())
        root = self._roots.pop(pid, None)
        if root is not None:
            root.close()
            if self.project_id == pid:
                self.focus(pid)

    def cached_roots(self) -> list[StoreRoot]:
        """Every project root opened in this process (to close their indexes)."""
        return list(self._roots.values())
