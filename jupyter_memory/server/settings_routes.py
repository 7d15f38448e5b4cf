"""Switches (Enabled, Automatic suggestions) and the projects known to the picker."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..exceptions import NotFoundError, UnsafeNameError
from ..service.memory import Memory
from .base import APPROVE, READ, MemoryHandler
from .bodies import ProjectBody, SettingsBody


class SettingsHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    def get(self) -> None:
        self.reply(self.backend.memory.settings)

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    def put(self) -> None:
        body = self.body(SettingsBody)
        changes = body.model_dump(exclude_none=True)
        memory = self.backend.memory
        result = memory.update_settings(**changes) if changes else memory.settings
        self.backend.changed("settings", "settings")
        self.reply(result)


class ProjectsHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    def get(self) -> None:
        known = self.backend.memory.known_projects()
        projects = [{"id": pid, "folder": folder} for pid, folder in sorted(known.items())]
        self.reply({"projects": projects})

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    def post(self) -> None:
        """Add a project by a folder under the server's root (the file browser's view)."""
        body = self.body(ProjectBody)
        root = self.backend.workspace
        folder = (root / body.path).resolve()
        if folder != root and root not in folder.parents:
            raise UnsafeNameError(
                f"{body.path!r} is outside the server's root folder", field="path"
            )
        if not folder.is_dir():
            raise NotFoundError(f"no folder {body.path!r} under the server's root")
        with Memory(home=self.backend.memory.home, project=folder) as memory:
            pid = memory.project_id
        self.backend.changed("projects", "project_added", project=pid)
        self.reply({"id": pid, "folder": str(folder)}, status=201)
