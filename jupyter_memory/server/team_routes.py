"""GET /jupyter-memory/team?project=ID: a team project as this clone sees it (issue 17).

The panel shows what ``doctor`` says about it: a clone without our git merge
driver (and the one command that fixes it), an unresolved knowledge conflict,
proposals decided differently in two clones, and where the index and locks go.
"""

from __future__ import annotations

from tornado import web

from .base import READ, MemoryHandler, authorized, off_loop


class TeamHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        project = self.project_arg(required=True)
        self.reply(self.backend.memory.hooks.team_status(project).to_dict())
