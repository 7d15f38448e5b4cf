"""The one place that knows mcp 1.x from mcp 2.x.

mcp 2.x renamed ``FastMCP`` to ``MCPServer`` (``mcp.server.mcpserver``), moved
HTTP host/port from the constructor to ``run()``, and switched result fields to
snake_case. Jupyter AI 3.2 pins ``mcp<2`` through fastmcp, so we accept both
(``mcp>=1.24,<3``) and keep every difference here.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

# jsonschema, which the SDK imports, imports ``rfc3987_syntax`` for its ``iri`` format
# checker, and that module builds an Earley parser of RFC 3987 as it is imported: ~2.5
# CPU-s, more than the whole rest of an MCP server's start (python-jsonschema/jsonschema
# issue 1428). The SDK validates without format checks and no tool schema of ours names
# that format, so the SDK is imported with the module kept out, as if it were not
# installed (jsonschema then leaves ``iri`` unchecked, as it does without it).
IRI_PARSER = "rfc3987_syntax"


@contextmanager
def _without_the_iri_parser() -> Iterator[None]:
    """Keep ``rfc3987_syntax`` out while jsonschema is first imported; a process that
    imported jsonschema before (a Jupyter server: jupyter_events) is left as it is."""
    if "jsonschema" in sys.modules or IRI_PARSER in sys.modules:
        yield
        return
    sys.modules[IRI_PARSER] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        yield
    finally:
        # Only jsonschema's import saw it missing: a later import finds the real one.
        if sys.modules.get(IRI_PARSER, False) is None:
            del sys.modules[IRI_PARSER]


with _without_the_iri_parser():
    try:  # mcp 2.x
        from mcp.server.mcpserver import Context
        from mcp.server.mcpserver import MCPServer as _Server
        from mcp.server.mcpserver.exceptions import ToolError

        MCP_MAJOR = 2
    except ImportError:  # mcp 1.x
        from mcp.server.fastmcp import Context  # type: ignore[no-redef,assignment,unused-ignore]  # as below
        from mcp.server.fastmcp import FastMCP as _Server  # type: ignore[no-redef,assignment,unused-ignore]  # redefines the 2.x name when mcp 2.x is installed
        from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef,assignment,unused-ignore]  # as above

        MCP_MAJOR = 1

__all__ = [
    "MCP_MAJOR",
    "Context",
    "ToolError",
    "field",
    "http_request",
    "is_error",
    "new_server",
    "open_http_client",
    "open_memory_client",
    "run_http",
    "run_stdio",
    "structured",
]


class _GuardedServer(_Server):  # type: ignore[misc,valid-type,unused-ignore]  # the class differs by line
    """The SDK's server, its streamable HTTP app wrapped by ``http_guard`` when one is set.

    Both lines build that app in ``streamable_http_app`` and serve it with
    their own uvicorn settings, so wrapping it there keeps everything else
    (Host/Origin checks, body cap, log level) the SDK's own.
    """

    http_guard: Callable[[Any], Any] | None = None

    def streamable_http_app(self, *args: Any, **kwargs: Any) -> Any:
        app = super().streamable_http_app(*args, **kwargs)
        return app if self.http_guard is None else self.http_guard(app)


def new_server(name: str, instructions: str) -> Any:
    # WARNING keeps the SDK's per-request INFO lines off stderr; stdout is the
    # protocol channel of a stdio server and nothing else may write there.
    return _GuardedServer(name, instructions=instructions, log_level="WARNING")


def http_request(ctx: Any) -> Any:
    """The HTTP request a tool call came in (a Starlette ``Request``), from the
    ``Context`` the SDK injects; ``None`` over stdio or outside a request."""
    try:
        request_context = ctx.request_context
    except (AttributeError, LookupError, ValueError):  # 1.x raises ValueError outside a request
        return None
    return getattr(request_context, "request", None)


def run_stdio(server: Any) -> None:
    server.run("stdio")


def run_http(server: Any, host: str, port: int, guard: Callable[[Any], Any]) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp``, every request through ``guard(app)``."""
    server.http_guard = guard
    if MCP_MAJOR >= 2:
        server.run("streamable-http", host=host, port=port)
    else:
        server.settings.host = host
        server.settings.port = port
        server.run("streamable-http")


# -- client side (tests, benchmarks) ------------------------------------------------------


@asynccontextmanager
async def open_http_client(url: str, token: str | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """``(read, write)`` streams of a streamable HTTP connection, on either version.

    ``token``: sent as ``Authorization: Bearer …`` on every request, as a
    client configured for ``jupyter-memory mcp --http`` does.
    """
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client  # 1.x: httpx, 2.x: httpx2

    headers = {"Authorization": f"Bearer {token}"} if token is not None else None
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        # 1.x yields (read, write, get_session_id); 2.x yields (read, write).
        yield streams[0], streams[1]


@asynccontextmanager
async def open_memory_client(server: Any) -> AsyncIterator[Any]:
    """An initialized client session talking to ``server`` in this process (tests)."""
    if MCP_MAJOR >= 2:
        from mcp import Client  # type: ignore[attr-defined,unused-ignore]  # mcp 2.x only

        async with Client(server) as client:
            yield client
    else:
        from mcp.shared.memory import create_connected_server_and_client_session

        async with create_connected_server_and_client_session(server) as session:
            yield session


def field(obj: Any, snake: str) -> Any:
    """Read a result field by its 2.x snake_case name, falling back to 1.x camelCase."""
    if hasattr(obj, snake):
        return getattr(obj, snake)
    head, *rest = snake.split("_")
    return getattr(obj, head + "".join(part.title() for part in rest))


def is_error(result: Any) -> bool:
    return bool(field(result, "is_error"))


def structured(result: Any) -> Any:
    """A tool result's structured content, unwrapping the ``{"result": …}`` of non-dict returns."""
    content = field(result, "structured_content")
    if isinstance(content, dict) and set(content) == {"result"}:
        return content["result"]
    return content
