"""Undo and look before acting (issue 32): revert an Apply, Process all's plan, the
recently applied list the panel reverts from, and Reorganize of the editor's unsaved text."""

from __future__ import annotations

from tornado import web

from .base import APPROVE, READ, MemoryHandler, authorized, off_loop
from .bodies import ReorganizeTextBody, RevertBody
from .jsonable import to_jsonable

RECENT_APPLIED = 20
MAX_RECENT_APPLIED = 200


class RevertHandler(MemoryHandler):
    """``POST queue/{id}/revert``: the entry leaves its file; 409 when there is nothing to undo."""

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self, proposal_id: str) -> None:
        self.id_arg(proposal_id)
        body = self.body(RevertBody)
        result = self.backend.memory.revert(proposal_id, then=body.then)
        self.backend.changed("queue", "revert", id=proposal_id)
        self.reply(to_jsonable(result.to_dict()))


class AppliedHandler(MemoryHandler):
    """``GET queue/applied?limit=N``: the latest applied proposals, newest first (to revert)."""

    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        limit = self.int_arg("limit", RECENT_APPLIED, 1, MAX_RECENT_APPLIED)
        every = self.backend.proposal_states_all()
        applied = [p for p in every if p.get("status") == "applied"]
        applied.sort(key=lambda p: str(p.get("decided_at") or ""), reverse=True)
        self.reply({"items": applied[:limit], "count": len(applied)})


class ProcessAllPlanHandler(MemoryHandler):
    """``GET queue/process-all/plan``: what Process all would apply, per layer and project."""

    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        self.reply(self.backend.memory.hooks.process_all_plan().to_dict())


class ReorganizeTextHandler(MemoryHandler):
    """``POST knowledge/{layer}/reorganize-text``: what Reorganize makes of unsaved text.

    Nothing is written: the editor shows the diff and the person saves it, or not.
    Authorized as a write: only someone who may save the file needs it.
    """

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self, layer: str) -> None:
        layer = self.layer_arg(layer)
        project = self.project_arg(required=layer == "project")
        body = self.body(ReorganizeTextBody)
        result = self.backend.memory.hooks.reorganize_text(layer, body.text, project=project)
        self.reply(to_jsonable(result.to_dict()))
