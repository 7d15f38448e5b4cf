"""An ACP agent process whose "model" is a script (the one allowed double), for the ACP walk.

It speaks the real Agent Client Protocol over stdio (the ``agent-client-protocol``
SDK, as Jupyter AI's ``jupyter-ai-acp-client`` expects of Claude Code or Codex),
and uses the MCP servers the client hands it in ``session/new`` the way real
agents do: it starts each stdio server in the session's working folder and talks
to it with the MCP SDK. Only the choices are scripted:

- every prompt: ``memory_context`` with the person's message as ``query``;
- a prompt holding ``remember``: ``propose_knowledge`` of ``JM_ACP_RULE``, quoting
  ``JM_ACP_QUOTE`` (the person's cell), through our stdio server;
- a prompt holding ``JM_ACP_CHAT_QUOTE``: ``propose_knowledge`` quoting it (the
  person's chat message) through the other server Jupyter AI hands every agent,
  jupyter-server-mcp over HTTP (its requests carry the chat's headers);
- the reply says what it did.

Each tool result goes, one JSON line per call, to the file ``JM_ACP_LOG`` (the
test reads what the agent's context held). Run by tests/agents/test_acp_walk.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from typing import Any

from acp import PROTOCOL_VERSION, run_agent, update_agent_message_text
from acp.schema import (
    AgentCapabilities,
    InitializeResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptResponse,
)
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SERVER_NAME = "jupyter-memory"


def _log(entry: dict[str, Any]) -> None:
    with open(os.environ["JM_ACP_LOG"], "a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")


def _text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


class ScriptedAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.sessions: dict[str, tuple[str, list[Any]]] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        # HTTP too, as Claude Code's adapter: Jupyter AI then hands its built-in server.
        capabilities = AgentCapabilities(mcp_capabilities=McpCapabilities(http=True))
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION, agent_capabilities=capabilities
        )

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> NewSessionResponse:
        session_id = uuid.uuid4().hex
        self.sessions[session_id] = (cwd, list(mcp_servers or []))
        _log({"event": "session", "cwd": cwd, "servers": [s.name for s in mcp_servers or []]})
        return NewSessionResponse(session_id=session_id)

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        said = "\n".join(getattr(block, "text", "") for block in prompt)
        cwd, servers = self.sessions[session_id]
        (server,) = [s for s in servers if s.name == SERVER_NAME and hasattr(s, "command")]
        params = StdioServerParameters(
            command=server.command,
            args=list(server.args),
            env={**os.environ, **{e.name: e.value for e in server.env}},
            cwd=cwd,
        )
        reply = []
        async with stdio_client(params) as (read, write), ClientSession(read, write) as mcp:
            await mcp.initialize()
            context = await mcp.call_tool("memory_context", {"query": said})
            _log({"event": "memory_context", "text": _text(context), "error": context.isError})
            reply.append(f"memory_context: {len(_text(context))} characters")
            if "remember" in said.lower():
                args = {
                    "text": os.environ["JM_ACP_RULE"],
                    "kind": "rule",
                    "evidence_quote": os.environ["JM_ACP_QUOTE"],
                }
                proposed = await mcp.call_tool("propose_knowledge", args)
                _log({"event": "propose", "text": _text(proposed), "error": proposed.isError})
                reply.append(f"proposed: {_text(proposed)}")
        chat_quote = os.environ["JM_ACP_CHAT_QUOTE"]
        if chat_quote in said:
            reply.append(await self._propose_over_http(servers, chat_quote))
        await self.conn.session_update(
            session_id=session_id, update=update_agent_message_text("\n".join(reply))
        )
        return PromptResponse(stop_reason="end_turn")

    async def _propose_over_http(self, servers: list[Any], quote: str) -> str:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        (http,) = [s for s in servers if getattr(s, "type", "") == "http"]
        headers = {h.name: h.value for h in http.headers}
        _log({"event": "http", "url": http.url, "headers": sorted(headers)})
        args = {"text": os.environ["JM_ACP_CHAT_RULE"], "kind": "info", "evidence_quote": quote}
        async with (
            create_mcp_http_client(headers=headers) as client,
            streamable_http_client(http.url, http_client=client) as (read, write, _),
            ClientSession(read, write) as mcp,
        ):
            await mcp.initialize()
            proposed = await mcp.call_tool("propose_knowledge", args)
        _log({"event": "propose-http", "text": _text(proposed), "error": proposed.isError})
        return f"proposed over HTTP: {_text(proposed)}"


if __name__ == "__main__":
    asyncio.run(run_agent(ScriptedAgent()))
