"""User and Project knowledge: read, save (8,000-character cap), Library status, reorganize,
and the editor's merge."""

from __future__ import annotations

from tornado import web

from ..core.knowledge.merge import merge_for_editor
from ..exceptions import ParseError
from .base import APPROVE, READ, ApiError, MemoryHandler, authorized, off_loop
from .bodies import EmptyBody, KnowledgeBody, KnowledgeMergeBody


class _LayerHandler(MemoryHandler):
    def target(self, layer: str) -> tuple[str, str | None]:
        layer = self.layer_arg(layer)
        return layer, self.project_arg(required=layer == "project")


class KnowledgeHandler(_LayerHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self, layer: str) -> None:
        layer, project = self.target(layer)
        self.reply(self._read(layer, project))

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def put(self, layer: str) -> None:
        """Compare-and-swap: the save names the version it edits; a stale one is 409."""
        layer, project = self.target(layer)
        body = self.body(KnowledgeBody)
        if body.base is None:
            # Without it an editor opened before an Apply would erase the Apply.
            raise ApiError(
                422,
                "base: required: the version of the text you edited "
                f"(GET /jupyter-memory/knowledge/{layer} returns it as 'version')",
                error="invalid",
                field="base",
            )
        memory = self.backend.memory
        saved = memory.save_knowledge(layer, body.text, project=project, base=body.base)
        self.backend.changed("knowledge", "save", layer=layer, project=project)
        self.reply({**self._read(layer, project), "saved": saved.to_dict()})

    def _read(self, layer: str, project: str | None) -> dict[str, object]:
        # One read: the text, its version and its status come from the same bytes.
        read = self.backend.memory.read_knowledge(layer, project=project)
        return {
            "layer": layer,
            "project": project,
            "text": read.text,
            "version": read.version,
            "status": read.status.to_dict(),
            # Both sides of a git merge conflict (issue 17): the panel's merge editor.
            "conflict": read.conflict,
        }


class StatusHandler(_LayerHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self, layer: str) -> None:
        layer, project = self.target(layer)
        self.reply(self.backend.memory.hooks.library_status(layer, project=project).to_dict())


class ReorganizeHandler(_LayerHandler):
    """POST starts a reorganize job (202); GET reports its progress."""

    # The job itself runs in a subprocess (server/reorganize_jobs.py); the project
    # check reads the memory, so it runs in the pool; the job starts on the loop.

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    async def post(self, layer: str) -> None:
        layer, project = await self.backend.off_loop.run(lambda: self.target(layer))
        self.body(EmptyBody)
        job = self.backend.jobs.start(layer, project)
        self.reply(job.view(), status=202)

    @web.authenticated
    @authorized(action="read", resource=READ)
    async def get(self, layer: str) -> None:
        layer, project = await self.backend.off_loop.run(lambda: self.target(layer), lane="read")
        job = self.backend.jobs.get(layer, project)
        if job is None:
            raise ApiError(404, "no reorganize has run for this file", error="not_found")
        self.reply(job.view())


class KnowledgeMergeHandler(_LayerHandler):
    """``POST knowledge/{layer}/merge``: the editor's text merged by item with newer text.

    The same merge git's driver makes (core/knowledge/merge.py), so the panel has no
    merge of its own; items both sides changed come back in both versions for the
    person to choose. Nothing is read or written: authorized as a write, since only
    someone who may save the file needs it. A side that does not parse is a 422
    naming it (``field``) and its line.
    """

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def post(self, layer: str) -> None:
        self.layer_arg(layer)
        body = self.body(KnowledgeMergeBody)
        try:
            merged = merge_for_editor(body.base, body.ours, body.theirs)
        except ParseError as exc:
            side = exc.path.name if exc.path is not None else "body"
            raise ApiError(422, str(exc), error="invalid", field=side) from exc
        self.reply(merged.to_dict())
