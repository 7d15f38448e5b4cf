"""User and Project knowledge: read, save (8,000-character cap), Library status, reorganize."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from .base import APPROVE, READ, ApiError, MemoryHandler
from .bodies import EmptyBody, KnowledgeBody


class _LayerHandler(MemoryHandler):
    def target(self, layer: str) -> tuple[str, str | None]:
        layer = self.layer_arg(layer)
        return layer, self.project_arg(required=layer == "project")


class KnowledgeHandler(_LayerHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    def get(self, layer: str) -> None:
        layer, project = self.target(layer)
        memory = self.backend.memory
        self.reply(
            {
                "layer": layer,
                "project": project,
                "text": memory.knowledge(layer, project=project),
                "status": memory.library_status(layer, project=project),
            }
        )

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    def put(self, layer: str) -> None:
        layer, project = self.target(layer)
        body = self.body(KnowledgeBody)
        memory = self.backend.memory
        saved = memory.save_knowledge(layer, body.text, project=project)
        self.backend.changed("knowledge", "save", layer=layer, project=project)
        self.reply(
            {
                "layer": layer,
                "project": project,
                "saved": saved,
                "text": memory.knowledge(layer, project=project),
                "status": memory.library_status(layer, project=project),
            }
        )


class StatusHandler(_LayerHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    def get(self, layer: str) -> None:
        layer, project = self.target(layer)
        self.reply(self.backend.memory.library_status(layer, project=project))


class ReorganizeHandler(_LayerHandler):
    """POST starts a reorganize job (202); GET reports its progress."""

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    def post(self, layer: str) -> None:
        layer, project = self.target(layer)
        self.body(EmptyBody)
        job = self.backend.jobs.start(layer, project)
        self.reply(job.view(), status=202)

    @web.authenticated
    @authorized(action="read", resource=READ)
    def get(self, layer: str) -> None:
        layer, project = self.target(layer)
        job = self.backend.jobs.get(layer, project)
        if job is None:
            raise ApiError(404, "no reorganize has run for this file", error="not_found")
        self.reply(job.view())
