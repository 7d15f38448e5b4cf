"""Which project a Jupyter AI chat works in: the focus of the notebooks beside it.

A chat file sits in a folder; the project is what the person focused for the
notebook in that folder they focused last, else the registered project the
folder is in, else none (``Memory.hooks.focus_of(folder=...)``, docs/agents.md). It
is read, never chosen: nothing here registers a project or changes a focus
(docs/design.md invariant 9).

One chat is one conversation: its chat file names the key its 5-proposal
allowance and its pre-inject reorganize are counted under
(:func:`chat_conversation`), shared by the ``Memory`` persona and the tools
that chat's agents call, and kept in the memory home across server restarts.

The tools learn their chat from the request: Jupyter AI's persona manager
stamps ``X-Jupyter-Chat-Id`` on every request to the MCP servers it hands a
persona (jupyter-ai-persona-manager 0.2.2, for jupyter-server-mcp's client
routing); the model writes tool arguments, never these headers. The chat id
names a persona manager, which knows its chat file.
"""

from __future__ import annotations

import copy
import hashlib
import os
import threading
from pathlib import Path
from typing import Any

from ..service.agent_access import AgentAccess

CHAT_ID_HEADER = "x-jupyter-chat-id"

_lock = threading.Lock()
# One access per project the chats of this server work in (a handful).
_by_project: dict[str | None, AgentAccess] = {}


def server_root() -> Path | None:
    """The Jupyter server's root folder, when this runs inside a server."""
    try:
        from jupyter_server.serverapp import ServerApp

        if ServerApp.initialized():
            return Path(os.path.expanduser(ServerApp.instance().root_dir))
    except Exception:  # noqa: BLE001 - no server (tests, scripts): no default project
        return None
    return None


def case_workspace() -> Path | None:
    """The folder holding cases/ for the agents in this server: the lab panel's
    (the jupyter-memory extension's ``workspace`` setting, else the server root)."""
    try:
        from jupyter_server.serverapp import ServerApp

        if ServerApp.initialized():
            backend = ServerApp.instance().web_app.settings.get("jupyter_memory")
            workspace = getattr(backend, "workspace", None)
            if isinstance(workspace, Path):
                return workspace
    except Exception:  # noqa: BLE001 - no server or no web app yet: the root, if any
        return server_root()
    return server_root()


CHAT_IDLE_SETTING = "jupyter_memory_chat_idle_minutes"  # c.JupyterMemoryServer.chat_idle_minutes


def chat_idle_seconds(default_minutes: float) -> float:
    """How long a chat stays quiet before its turn ends: the server's setting, if any."""
    try:
        from jupyter_server.serverapp import ServerApp

        if ServerApp.initialized():
            minutes = ServerApp.instance().web_app.settings.get(CHAT_IDLE_SETTING)
            if isinstance(minutes, (int, float)) and minutes > 0:
                return float(minutes) * 60.0
    except Exception:  # noqa: BLE001 - no server or no web app yet: the default
        return default_minutes * 60.0
    return default_minutes * 60.0


def _persona_managers() -> dict[str, Any]:
    from jupyter_server.serverapp import ServerApp

    settings = ServerApp.instance().web_app.settings
    managers = settings.get("jupyter-ai", {}).get("persona-managers", {})
    return managers if isinstance(managers, dict) else {}


def chat_conversation(chat_path: str | os.PathLike[str]) -> str:
    """The conversation key of the chat in file ``chat_path`` (docs/agents.md)."""
    digest = hashlib.sha256(os.path.abspath(os.fspath(chat_path)).encode()).hexdigest()
    return f"jupyter-ai-chat:{digest[:24]}"


def request_chat_path() -> str | None:
    """The file of the chat whose persona makes the current MCP tool call, if it says."""
    try:
        from fastmcp.server.dependencies import get_http_headers

        chat_id = get_http_headers().get(CHAT_ID_HEADER)
        if not chat_id:
            return None
        manager = _persona_managers().get(chat_id)
        return str(manager.get_chat_path()) if manager is not None else None
    except Exception:  # noqa: BLE001 - no fastmcp request or no Jupyter AI: no chat known
        return None


def request_chat_folder() -> str | None:
    """The folder of the chat whose persona makes the current MCP tool call, if it says."""
    path = request_chat_path()
    return os.path.dirname(path) if path else None


def access_for_chat(
    base: AgentAccess,
    chat_folder: str | os.PathLike[str] | None,
    *,
    chat_path: str | os.PathLike[str] | None = None,
) -> AgentAccess:
    """``base``'s agent, in the project of the chat's folder, in the chat's conversation.

    Without a chat (a script, ``%%ai``'s throw-away chat), the server's root
    folder decides the project the same way and the conversation is
    ``base``'s (the server process); without a server, ``base`` as it is.
    """
    access = _access_in_folder(base, chat_folder)
    if chat_path is None:
        return access
    in_chat = copy.copy(access)  # shares the Memory; only the conversation differs
    in_chat.conversation = chat_conversation(chat_path)
    in_chat.chat_file = os.fspath(chat_path)  # the person's messages there are evidence
    return in_chat


def _access_in_folder(base: AgentAccess, chat_folder: str | os.PathLike[str] | None) -> AgentAccess:
    folder = Path(chat_folder) if chat_folder else server_root()
    if folder is None:
        return base
    found = base.memory.hooks.focus_of(folder=folder)
    if found.project == base.project:
        return base
    with _lock:
        access = _by_project.get(found.project)
        if access is None or access.memory.home != base.memory.home:
            from ..service.memory import Memory

            mem = Memory(home=base.memory.home)
            mem.hooks.adopt_focus(found)  # a registered project, or none: never registers
            access = AgentAccess(
                mem,
                agent=base.agent,
                project=found.project,
                conversation=base.conversation,
                workspace=base.workspace,
            )
            _by_project[found.project] = access
        return access


def forget_chat_accesses() -> None:
    """Close the per-project accesses (a new memory home; tests)."""
    with _lock:
        for access in _by_project.values():
            access.memory.close()
        _by_project.clear()
