"""Switches (Enabled, Automatic suggestions) and the projects known to the picker."""

from __future__ import annotations

from typing import Any

from tornado import web

from ..exceptions import NotFoundError, UnsafeNameError
from ..service.memory import Memory
from .base import APPROVE, READ, MemoryHandler, authorized, off_loop
from .bodies import ProjectBody, SettingsBody


def switches(settings: dict[str, Any], memory: Memory) -> dict[str, Any]:
    """The switches the panel shows; the LLM endpoint config (a key) stays on the server.

    ``llm_budget`` and today's ``llm_spend`` against it (issue 32) come along.
    """
    spend = memory.hooks.llm_spend().to_dict()
    return {
        "enabled": settings["enabled"],
        "auto_suggestions": settings["auto_suggestions"],
        "agents_md_autosync": settings["agents_md_autosync"],
        "llm_configured": bool(settings.get("llm")),
        "llm_budget": dict(settings["llm_budget"]),
        "llm_spend": {k: spend[k] for k in ("day", "calls", "tokens", "spent")},
    }


class SettingsHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        memory = self.backend.memory
        self.reply(switches(memory.settings, memory))

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def put(self) -> None:
        body = self.body(SettingsBody)
        changes = body.model_dump(exclude_none=True)
        memory = self.backend.memory
        if not changes:
            self.reply(switches(memory.settings, memory))
            return
        result = memory.update_settings(**changes)
        self.backend.changed("settings", "settings")
        self.reply(switches(result, memory))


class ProjectsHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        known = self.backend.memory.hooks.known_projects()
        projects = [{"id": pid, "folder": folder} for pid, folder in sorted(known.items())]
        self.reply({"projects": projects})

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
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
