"""The ACP walk: an external agent in a Jupyter AI chat gets the memory and proposes into it.

Real processes end to end: a Jupyter server with Jupyter AI, jupyter-ai-acp-client
and jupyter-memory; ``jupyter-memory install jupyter-ai --project DIR`` writes our
stdio MCP server into ``DIR/.jupyter/mcp_settings.json``; a chat beside the
person's notebook; an ACP persona (a local persona file, as a person adds one)
whose agent process speaks the real protocol (tests/agents/acp_scripted_agent.py,
only its "model" is scripted). The person writes to the agent over the chat's
own WebSocket (what the chat panel sends); the agent receives our server from
Jupyter AI's configuration in ``session/new``, starts it, calls
``memory_context`` and ``propose_knowledge`` quoting the person's cell; the
proposal's card appears in the chat (a message of the chat document whose
``mime_model`` carries our proposal MIME type, the one the lab draws: the
browser side is tests/agents/test_chat_cards_browser.py); it is applied; the
agent's next ``memory_context`` carries the rule. In that turn the agent quotes
the person's chat message through the other server Jupyter AI hands it,
jupyter-server-mcp over HTTP (our tools there; the chat named by the headers
Jupyter AI stamps), and that proposal's card shows in the chat too. Marked ``jupyter_ai``:
``make test-integrations``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_socket import ChatSocket, card_ids

from jupyter_memory import Memory
from tests.support.servers import JupyterProcess, free_port, jupyter_process

pytestmark = pytest.mark.jupyter_ai

AGENT = Path(__file__).with_name("acp_scripted_agent.py")
QUOTE = "refunds never count as revenue"
RULE = "Revenue excludes refunds."
CHAT_QUOTE = "amounts are always in CNY"
CHAT_RULE = "Amounts are in CNY."
CELL = f"# note: {QUOTE}\ndf = orders[orders.status != 'refund']"
PERSONA = f"""
import sys
from jupyter_ai_persona_manager import PersonaDefaults
from jupyter_ai_acp_client.base_acp_persona import BaseAcpPersona


class ScriptedAgentPersona(BaseAcpPersona):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, executable=[sys.executable, {str(AGENT)!r}], **kwargs)

    @property
    def defaults(self):
        return PersonaDefaults(
            name="Scripted",
            description="An ACP agent whose model is a script (tests).",
            avatar_path={str(AGENT)!r},
            system_prompt="unused",
        )
"""


def _notebook(path: Path) -> None:
    cell = {"cell_type": "code", "id": "c1", "metadata": {}, "source": CELL}
    cell |= {"outputs": [], "execution_count": None}
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb), encoding="utf-8")


@pytest.fixture
def walk(tmp_path: Path) -> Iterator[tuple[JupyterProcess, Path, Path, Path]]:
    root, home, jhome = tmp_path / "root", tmp_path / "memory", tmp_path / "home"
    project = root / "sales-q3"
    for d in (project, home, jhome):
        d.mkdir(parents=True)
    _notebook(project / "orders.ipynb")
    (project / "walk.chat").write_text(json.dumps({"messages": [], "users": {}}), "utf-8")
    with Memory(home=home) as mem:
        mem.focus(project, notebook=str(project / "orders.ipynb"))  # the person's focus
    env = {
        **os.environ,
        "HOME": str(jhome),
        "JUPYTER_MEMORY_HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(jhome / ".jupyter"),
        "JUPYTER_DATA_DIR": str(jhome / ".local/share/jupyter"),
        "JUPYTER_RUNTIME_DIR": str(jhome / ".runtime"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "FASTMCP_SHOW_SERVER_BANNER": "false",
        "JM_ACP_LOG": str(tmp_path / "agent.jsonl"),
        "JM_ACP_QUOTE": QUOTE,
        "JM_ACP_RULE": RULE,
        "JM_ACP_CHAT_QUOTE": CHAT_QUOTE,
        "JM_ACP_CHAT_RULE": CHAT_RULE,
    }
    # What the person runs: our server into the configuration Jupyter AI hands its agents.
    install = [sys.executable, "-m", "jupyter_memory.cli.main", "install", "jupyter-ai"]
    done = subprocess.run(
        [*install, "--project", str(project)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    personas = project / ".jupyter" / "personas"
    personas.mkdir()
    (personas / "scripted_persona.py").write_text(PERSONA, encoding="utf-8")
    mcp_port = free_port()
    args = ["--JupyterMemoryServer.poll_interval=0.5", f"--MCPExtensionApp.mcp_port={mcp_port}"]
    log = tmp_path / "jupyter-server.log"
    with jupyter_process(root, log, env=env, args=args, extra_ports=(mcp_port,)) as server:
        yield server.ready(timeout=60), home, project, tmp_path / "agent.jsonl"


def _log(path: Path, event: str) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line["event"] == event]


def test_an_acp_agent_gets_the_memory_proposes_from_the_cell_and_the_card_shows_in_the_chat(
    walk: Any,
) -> None:
    server, home, project, agent_log = walk

    async def scenario() -> None:
        chat = ChatSocket(server, "sales-q3/walk.chat")
        await chat.open()
        await chat.until(
            lambda: any(u.get("display_name") == "Scripted" for u in chat.users.values())
        )
        agent = chat.persona("Scripted")

        await chat.send("Please remember what I noted in my cell about refunds.", agent)
        await chat.until(lambda: bool(chat.cards()), timeout=90)
        (card,) = chat.cards()
        assert card["evidence_quote"] == QUOTE and card["text"] == RULE
        assert card["status"] == "pending" and card["project"] == "sales-q3"
        assert card["from_cell"] is True  # found in the person's saved notebook
        (session,) = _log(agent_log, "session")
        # Ours from the chat's settings, beside Jupyter AI's built-in jupyter-server-mcp.
        assert "jupyter-memory" in session["servers"] and session["cwd"] == str(project)
        (first,) = _log(agent_log, "memory_context")
        assert not first["error"] and RULE not in first["text"]
        (proposed,) = _log(agent_log, "propose")
        assert not proposed["error"], proposed

        # The person applies it (the card's Project button: the same REST call).
        code, applied = server.request(
            "POST",
            f"/jupyter-memory/queue/{card['id']}/apply",
            {"to": "project", "project": "sales-q3"},
        )
        assert code == 200, applied

        # Next turn: the person's chat message is quoted through Jupyter AI's own
        # MCP server (our tools there, the chat named by its headers): a card too.
        await chat.send(f"What are the rules for revenue? By the way, {CHAT_QUOTE}.", agent)
        await chat.until(lambda: len(_log(agent_log, "memory_context")) == 2, timeout=90)
        await chat.until(lambda: len(chat.cards()) == 2, timeout=90)
        second_card = chat.cards()[1]
        assert second_card["text"] == CHAT_RULE and second_card["evidence_quote"] == CHAT_QUOTE
        await chat.until(lambda: len(chat.replies(agent)) == 2, timeout=90)
        (over_http,) = _log(agent_log, "propose-http")  # the agent's turn has ended
        assert not over_http["error"], over_http
        # The chat file keeps the card message, so a reload shows it again (decided).
        code, saved = server.request("GET", "/api/contents/sales-q3/walk.chat?content=1")
        assert code == 200, saved
        assert card["id"] in card_ids(json.loads(saved["content"])), saved["content"]

    asyncio.run(scenario())
    second = _log(agent_log, "memory_context")[1]
    assert RULE in second["text"] and "<approved-knowledge" in second["text"]
    with Memory(home=home) as mem:
        (applied,) = [p for p in mem.queue(include_decided=True) if p.evidence_quote == QUOTE]
        assert applied.status == "applied" and applied.applied_project == "sales-q3"
        # Made by our stdio server that the agent started: its conversation is the agent's.
        assert (applied.conversation or "").startswith("mcp-stdio:"), applied.conversation
        (chat_made,) = [p for p in mem.queue() if p.evidence_quote == CHAT_QUOTE]
        # Made through jupyter-server-mcp for this chat (X-Jupyter-Chat-Id).
        assert (chat_made.conversation or "").startswith("jupyter-ai-chat:"), chat_made
