"""Which conversation a stdio MCP server serves: the client process that started it.

An MCP client starts one stdio server per session and may restart it; the
server cannot see the chat, but it can see its client: the parent process,
named by pid and start time so a reused pid is another client. Launchers
between the client and the server (a shell, ``uv``/``uvx``, ``pipx``, ``env``)
are looked through, so a server restarted through a new launcher process
still finds the same client. ``jupyter-memory mcp --conversation KEY`` names a
conversation explicitly instead (docs/agents.md).
"""

from __future__ import annotations

import os

from ..store.process_info import process_info

LAUNCHERS = frozenset(
    {"sh", "bash", "dash", "zsh", "fish", "env", "uv", "uvx", "pipx", "pixi", "conda", "mamba"}
)
MAX_HOPS = 8


def stdio_conversation(agent: str, *, client_pid: int | None = None) -> str:
    """``mcp-stdio:<agent>:<client pid>:<client start time>`` (start time only where /proc is)."""
    pid = os.getppid() if client_pid is None else client_pid
    info = process_info(pid)
    for _ in range(MAX_HOPS):
        if info is None or info.name not in LAUNCHERS or info.parent <= 1:
            break
        parent = process_info(info.parent)
        if parent is None:
            break
        info = parent
    if info is None:
        return f"mcp-stdio:{agent}:{pid}"
    return f"mcp-stdio:{agent}:{info.pid}:{info.started}"
