"""The one place that knows mcp 1.x from mcp 2.x.

mcp 2.x renamed ``FastMCP`` to ``MCPServer`` (``mcp.server.mcpserver``), moved
HTTP host/port from the constructor to ``run()``, and switched result fields to
snake_case. Jupyter AI 3.2 pins ``mcp<2`` through fastmcp, so we accept both
(``mcp>=1.24,<3``) and keep every difference here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

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
    "is_error",
    "new_server",
    "open_http_client",
    "open_memory_client",
    "run_http",
    "run_stdio",
    "session_key",
    "structured",
]


def new_server(name: str, instructions: str) -> Any:
    # WARNING keeps the SDK's per-request INFO lines off stderr; stdout is the
    # protocol channel of a stdio server and nothing else may write there.
    return _Server(name, instructions=instructions, log_level="WARNING")


def session_key(ctx: Any) -> str | None:
    """The client session a tool call belongs to, from the ``Context`` the SDK injects.

    Over streamable HTTP its ``mcp-session-id`` (the transport has checked it
    names a live session); otherwise the session object of the connection.
    ``None`` outside a request.
    """
    try:
        request_context = ctx.request_context
    except (AttributeError, LookupError, ValueError):  # 1.x raises ValueError outside a request
        return None
    headers = getattr(getattr(request_context, "request", None), "headers", None)
    sid = headers.get("mcp-session-id") if headers is not None else None
    if sid:
        return str(sid)[:64]
    session = getattr(request_context, "session", None)
    return f"connection-{id(session):x}" if session is not None else None


def run_stdio(server: Any) -> None:
    server.run("stdio")


def run_http(server: Any, host: str, port: int) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp``."""
    if MCP_MAJOR >= 2:
        server.run("streamable-http", host=host, port=port)
    else:
        server.settings.host = host
        server.settings.port = port
        server.run("streamable-http")


# -- client side (tests, benchmarks) ------------------------------------------------------


@asynccontextmanager
async def open_http_client(url: str) -> AsyncIterator[tuple[Any, Any]]:
    """``(read, write)`` streams of a streamable HTTP connection, on either version."""
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as streams:
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
