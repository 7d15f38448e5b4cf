"""Base handler: JSON in and out, service errors mapped to HTTP statuses.

Every route handler in this package subclasses :class:`MemoryHandler`; the
verbs carry ``@tornado.web.authenticated`` (checked by a test) and
``@authorized(...)`` with one of two resources, so a deployment can let a
person read the memory without letting them approve knowledge:

- ``jupyter_memory:read``    — list, read, search, status
- ``jupyter_memory:approve`` — apply, dismiss, save, reorganize, switches

A verb that touches the memory also carries ``@off_loop`` (innermost): its body
runs in the extension's worker pool under the request's deadline
(server/off_loop.py), so the server's event loop never waits on a lock, git or
an index sync; past the deadline the answer is ``503 busy``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, TypeVar

from jupyter_server.auth.decorator import authorized as _authorized
from jupyter_server.base.handlers import APIHandler
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError
from tornado import web

from ..core.names import validate_id, validate_project_id
from ..core.validation import validation_error
from ..exceptions import JupyterMemoryError
from .backend import MemoryBackend
from .errors import status_and_payload
from .jsonable import to_jsonable
from .off_loop import LaneName

READ = "jupyter_memory:read"
APPROVE = "jupyter_memory:approve"
# A knowledge file is capped at 8,000 characters by the service; a body this
# large is refused before it is even parsed.
MAX_BODY_BYTES = 1024 * 1024
LAYERS = ("user", "project")

BodyT = TypeVar("BodyT", bound=BaseModel)
_VerbT = TypeVar("_VerbT", bound=Callable[..., Any])


def authorized(action: str, resource: str) -> Callable[[_VerbT], _VerbT]:
    """jupyter_server's ``@authorized``, typed: its declared return type is a type
    variable mypy cannot bind from these arguments, which would leave every verb untyped."""
    decorator: Callable[[_VerbT], _VerbT] = _authorized(action=action, resource=resource)
    return decorator


# Every verb @off_loop made (a test checks that each route's verb is one, or async).
OFF_LOOP_VERBS: set[Callable[..., Awaitable[None]]] = set()


def off_loop(verb: Callable[..., None]) -> Callable[..., Awaitable[None]]:
    """Run a verb's body in the worker pool; its :meth:`~MemoryHandler.reply` is sent
    from the loop afterwards (tornado is not thread-safe)."""

    @functools.wraps(verb)
    async def run(self: MemoryHandler, *args: Any) -> None:
        self._deferred = True
        try:
            # No GET changes anything: it runs in the handler's read lane.
            read = self.request.method in ("GET", "HEAD")
            lane = self.read_lane if read else "write"
            what = f"{self.request.method} {self.request.path}"
            await self.backend.off_loop.run(lambda: verb(self, *args), lane=lane, what=what)
        finally:
            self._deferred = False
        if self._pending is not None:
            self.reply(*self._pending)

    OFF_LOOP_VERBS.add(run)
    return run


class ApiError(web.HTTPError):
    """An HTTP error whose JSON body says what went wrong and what to do."""

    def __init__(self, status: int, message: str, *, error: str, **extra: Any) -> None:
        # tornado %-formats log_message when it logs; keep stored text literal.
        super().__init__(status, message.replace("%", "%%"))
        self.payload = {"message": message, "error": error, **extra}


def api_error_from(exc: JupyterMemoryError) -> ApiError:
    """Translate a service exception into the status a client can act on."""
    status, payload = status_and_payload(exc)
    return ApiError(status, payload.pop("message"), **payload)


class MemoryHandler(APIHandler):
    """Shared plumbing for the ``/jupyter-memory/`` routes."""

    auth_resource = READ
    # The lane this handler's GET runs in (server/off_loop.py): "listing" for the one
    # read that costs seconds on a large queue, so it never holds up the others.
    read_lane: ClassVar[LaneName] = "read"
    # Set while an @off_loop body runs in a worker: reply() keeps its payload for the loop.
    _deferred = False
    _pending: tuple[Any, int] | None = None

    @property
    def backend(self) -> MemoryBackend:
        backend: MemoryBackend = self.settings["jupyter_memory"]
        return backend

    async def prepare(self) -> None:  # type: ignore[override]
        await super().prepare()
        # Strict bodies on every route (issue 19 F): writes validate theirs with
        # :meth:`body`; reads take none. Only once the caller is known, so an
        # unauthenticated request still gets its 403 from ``web.authenticated``.
        if self.current_user and self.request.method in ("GET", "HEAD", "DELETE"):
            self.refuse_body()

    # -- output ---------------------------------------------------------------------

    def reply(self, payload: Any, status: int = 200) -> None:
        if self._deferred:
            self._pending = (to_jsonable(payload), status)
            return
        self.set_status(status)
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(to_jsonable(payload), ensure_ascii=False))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, JupyterMemoryError):
            # Raised by the service: tornado already set 500; say what it really was.
            exc = api_error_from(exc)
            self.set_status(exc.status_code)
        if isinstance(exc, ApiError):
            self.set_header("Content-Type", "application/json")
            if "retry_after" in exc.payload:  # 503 busy: HTTP's own header says it too
                self.set_header("Retry-After", str(max(1, round(exc.payload["retry_after"]))))
            self.finish(json.dumps(exc.payload, ensure_ascii=False))
            return
        super().write_error(status_code, **kwargs)

    def log_exception(self, typ: Any, value: Any, tb: Any) -> None:
        if isinstance(value, JupyterMemoryError):
            value = api_error_from(value)
        # A busy answer is the server working as meant, not a fault to trace.
        if isinstance(value, ApiError) and (
            value.status_code < 500 or value.payload["error"] == "busy"
        ):
            self.log.info("jupyter-memory %s: %s", value.status_code, value.payload["message"])
            return
        super().log_exception(typ, value, tb)

    # -- input ----------------------------------------------------------------------

    def body(self, model: type[BodyT]) -> BodyT:
        raw = self.request.body or b""
        if len(raw) > MAX_BODY_BYTES:
            raise ApiError(
                413, f"request body is {len(raw)} bytes, over {MAX_BODY_BYTES}", error="too_large"
            )
        try:
            data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ApiError(
                422, f"body: request body is not JSON: {exc}", error="invalid", field="body"
            ) from None
        if not isinstance(data, dict):
            raise ApiError(
                422,
                f"body: must be a JSON object, not {type(data).__name__}",
                error="invalid",
                field="body",
            )
        try:
            return model.model_validate(data)
        except PydanticValidationError as exc:
            err = validation_error(exc, default="body")
            raise ApiError(422, str(err), error="invalid", field=err.field) from None

    def int_arg(self, name: str, default: int, low: int, high: int | None = None) -> int:
        """A whole-number query parameter in ``low..high``; a 422 naming it otherwise."""
        raw = self.get_argument(name, None)
        if raw is None or raw.strip() == "":
            return default
        bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
        try:
            value = int(raw.strip())
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise ApiError(
                422, f"{name}: must be a whole number {bounds}", error="invalid", field=name
            )
        return value

    def ids_arg(self, noun: str, most: int) -> list[str]:
        """``?ids=a,b``: one to ``most`` distinct ids in the asked order; a 422 naming ``ids``."""
        raw = self.get_argument("ids", "")
        ids = list(dict.fromkeys(i.strip() for i in raw.split(",") if i.strip()))
        if not ids:
            raise ApiError(422, f"ids: name at least one {noun} id", error="invalid", field="ids")
        if len(ids) > most:
            raise ApiError(
                422,
                f"ids: {len(ids)} {noun} ids, at most {most} per request",
                error="invalid",
                field="ids",
            )
        for value in ids:
            validate_id(value, field="ids")
        return ids

    def refuse_body(self) -> None:
        """A read takes no body: one that carries fields is refused, not ignored."""
        if (self.request.body or b"").strip():
            raise ApiError(
                422,
                f"body: {self.request.method} {self.request.path} takes no request body",
                error="invalid",
                field="body",
            )

    def layer_arg(self, layer: str) -> str:
        if layer not in LAYERS:
            raise ApiError(
                404,
                f"layer: unknown knowledge layer {layer!r}: use user or project",
                error="not_found",
                field="layer",
            )
        return layer

    def id_arg(self, value: str, field: str = "id") -> str:
        return validate_id(value, field=field)

    def project_arg(self, value: str | None = None, *, required: bool = False) -> str | None:
        """A known project id from ``?project=`` (or ``value``); never a path."""
        project = value if value is not None else self.get_argument("project", None)
        if project in (None, ""):
            if required:
                raise ApiError(
                    422,
                    "pick a project: this needs ?project=<id> (see GET /jupyter-memory/projects)",
                    error="project_required",
                    field="project",
                )
            return None
        assert project is not None
        validate_project_id(project, field="project")
        if project not in self.backend.memory.hooks.known_projects():
            raise ApiError(
                404,
                f"unknown project {project!r}: focus it once in a notebook "
                "(%memory focus <folder>) or add it with Pick project",
                error="not_found",
                field="project",
            )
        return project
