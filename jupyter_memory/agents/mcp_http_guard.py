"""The bearer-token check in front of ``jupyter-memory mcp --http`` (issue 27).

A plain ASGI middleware around the app the SDK builds (either major line),
so the check does not depend on the SDK's own OAuth machinery: every HTTP
request — the ``initialize`` handshake, a tool call, the GET event stream, a
DELETE — needs ``Authorization: Bearer <token>``. Without it, or with a
wrong one, the answer is ``401`` with ``WWW-Authenticate: Bearer`` and the
request never reaches the SDK: no session, no tool, no resource. The
SDK's Host/Origin checks and body cap still run after it.

The client the token stands for is put in the request's ``state``, where a
tool call reads it (:func:`client_key`) to count the proposal allowance per
credential.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ..exceptions import JupyterMemoryError

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

STATE_KEY = "jupyter_memory.client"
REALM = "jupyter-memory"
UNAUTHORIZED = -32001  # JSON-RPC's server-defined range; MCP servers commonly use it for this
INTERNAL_ERROR = -32603
HOW_TO = (
    "send Authorization: Bearer <token>; the person prints the token with "
    "`jupyter-memory mcp --print-token`"
)
log = logging.getLogger(__name__)


def _bearer(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").strip().partition(" ")
            return token.strip() if scheme.lower() == "bearer" and token.strip() else None
    return None


class BearerGuard:
    """``app`` for requests bearing a token ``client_of`` knows; 401 for every other."""

    def __init__(self, app: App, client_of: Callable[[str], str | None]) -> None:
        self.app = app
        self.client_of = client_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # the app's startup and shutdown, no client involved
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # the SDK serves no websocket: nothing else gets in
            await send({"type": "websocket.close", "code": 1008})
            return
        presented = _bearer(scope)
        try:
            client = self.client_of(presented) if presented is not None else None
        except JupyterMemoryError as exc:  # a damaged or unsafe token file: nobody gets in
            log.warning("jupyter-memory: %s", exc)
            await _answer(send, 500, _jsonrpc_error(INTERNAL_ERROR, f"credential unusable: {exc}"))
            return
        if client is None:
            challenge = f'Bearer realm="{REALM}"'
            if presented is not None:
                challenge += ', error="invalid_token"'
            body = _jsonrpc_error(UNAUTHORIZED, f"unauthorized: {HOW_TO}")
            await _answer(send, 401, body, ((b"www-authenticate", challenge.encode()),))
            return
        scope.setdefault("state", {})[STATE_KEY] = client
        await self.app(scope, receive, send)


def _jsonrpc_error(code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error body: an SDK client shows its message (mcp 2.x does) instead of a bare status."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}


async def _answer(
    send: Send, status: int, body: dict[str, Any], headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    data = json.dumps(body).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


def client_key(request: Any) -> str | None:
    """The client :class:`BearerGuard` let this HTTP request in as; ``None`` without one."""
    state = getattr(request, "scope", {}).get("state") if request is not None else None
    key = state.get(STATE_KEY) if isinstance(state, dict) else None
    return key if isinstance(key, str) else None
