"""Projects: the registry in ``projects.json`` and the focused project.

Registering a folder is a person's act (``%memory focus``, ``--project``, the
panel); an agent's name for a project arrives as a :class:`RegisteredProject`
and never registers one (docs/design.md invariant 9).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..exceptions import ParseError
from ..store.json_file import read_json, write_json
from ..store.layout import project_gitignore, project_root
from ..store.root import StoreRoot
from .paths import RegisteredProject, registered_project, resolve_project_dir

PROJECTS_FILE = "projects.json"

ProjectArg = str | os.PathLike[str]


class Projects:
    """The person's projects (id → folder) and which one is in focus."""

    def __init__(self, home: Path, user: StoreRoot) -> None:
        self.home = home
        self.user = user
        self.project_id: str | None = None
        self.project_dir: Path | None = None
        self.project_root: StoreRoot | None = None
        self._roots: dict[str, StoreRoot] = {}

    def known(self) -> dict[str, str]:
        data = read_json(self.home / PROJECTS_FILE, {}, root=self.home)
        if not isinstance(data, dict):
            raise ParseError(
                "must be a JSON object of project id → folder", path=self.home / PROJECTS_FILE
            )
        return {str(k): str(v) for k, v in data.items()}

    def resolve(self, project: ProjectArg) -> tuple[str, StoreRoot]:
        """The id and storage root of ``project``; a person's folder is registered on first use."""
        pid, folder = resolve_project_dir(project, self.known())
        root = self._roots.get(pid)
        if root is None:
            root = StoreRoot(project_root(folder), layer="project", gitignore=project_gitignore())
            self._roots[pid] = root
            known = self.known()
            # An agent's name for a project never registers one (RegisteredProject).
            if known.get(pid) != str(folder) and not isinstance(project, RegisteredProject):
                with self.user.locked():
                    known = self.known()
                    known[pid] = str(folder)
                    write_json(self.home / PROJECTS_FILE, known, root=self.home)
        return pid, root

    def register(self, project: ProjectArg) -> str:
        """A person's act: the id of a project folder (registering it) or of a known id."""
        return self.resolve(project)[0]

    def registered(self, project: str) -> RegisteredProject:
        """What an agent's ``project`` names: a registered id, or a registered folder's path.

        Anything else is refused (``PolicyError`` for a folder, ``NotFoundError``
        for an id); nothing is registered or created.
        """
        return registered_project(project, self.known())[0]

    def focus(self, project: ProjectArg | None) -> str | None:
        """Focus a project folder (or a known project id); ``None`` unfocuses."""
        if project is None:
            self.project_id = self.project_dir = self.project_root = None
            return None
        pid, root = self.resolve(project)
        self.project_id, self.project_root = pid, root
        self.project_dir = root.root.parent
        return pid

    def roots(self, project: ProjectArg | None = None) -> list[StoreRoot]:
        """The roots a read covers, project first: ``project``'s, or the focused one's, then User."""
        roots: list[StoreRoot] = []
        if project is not None:
            roots.append(self.resolve(project)[1])
        elif self.project_root is not None:
            roots.append(self.project_root)
        roots.append(self.user)
        return roots

    def cached_roots(self) -> list[StoreRoot]:
        """Every project root opened in this process (to close their indexes)."""
        return list(self._roots.values())
