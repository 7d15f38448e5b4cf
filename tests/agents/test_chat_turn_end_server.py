"""A chat turn's end inside Jupyter AI's persona manager (issue 32's timer, in a real server).

A Jupyter server with Jupyter AI and jupyter-memory; the person writes to the
``Memory`` persona over the chat's WebSocket (the chat panel's transport, so
the message goes through Jupyter AI's router and persona manager); the persona
answers through the model; the chat stays quiet for
``c.JupyterMemoryServer.chat_idle_minutes``; the turn's end reads the person's
message once with the LLM (never the reply), and what it found is said in the
chat by the persona and shown as a card in the chat (agents/chat_cards.py). The
model is tests/openai_test_server.py (the one allowed double). Marked
``jupyter_ai``: ``make test-integrations``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_socket import ChatSocket
from openai_test_server import Scripted, llm_server

from jupyter_memory import Memory
from tests.support.servers import JupyterProcess, free_port, jupyter_process

pytestmark = pytest.mark.jupyter_ai

MODEL = "openai/memory-turn-test"
REPLY = "Noted: weekly charts will start on Monday."
SAID = "our weeks always start on Monday, keep that in mind"
FOUND = json.dumps(
    {"proposals": [{"text": "Weeks start on Monday", "kind": "rule", "evidence_quote": SAID}]}
)


@pytest.fixture
def llm() -> Iterator[Any]:
    # The persona's reply, then the turn end's extraction and its digest.
    with llm_server([Scripted(text=REPLY), Scripted(text=FOUND), Scripted(text=FOUND)]) as server:
        yield server


@pytest.fixture
def chat_server(tmp_path: Path, llm: Any) -> Iterator[tuple[JupyterProcess, Path]]:
    root, home, jhome = tmp_path / "root", tmp_path / "memory", tmp_path / "home"
    for d in (root, home, jhome):
        d.mkdir()
    (root / "talk.chat").write_text(json.dumps({"messages": [], "users": {}}), "utf-8")
    data = jhome / ".local/share/jupyter"
    config = {"model_provider_id": MODEL, "fields": {MODEL: {"api_base": llm.url}}}
    (data / "jupyter_ai").mkdir(parents=True)
    (data / "jupyter_ai" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with Memory(home=home) as mem:  # the memory's own LLM: the same test model
        mem.update_settings(llm={"base_url": llm.url, "model": "memory-turn-test"})
    env = {
        **os.environ,
        "HOME": str(jhome),
        "JUPYTER_MEMORY_HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(jhome / ".jupyter"),
        "JUPYTER_DATA_DIR": str(data),
        "JUPYTER_RUNTIME_DIR": str(jhome / ".runtime"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "FASTMCP_SHOW_SERVER_BANNER": "false",
        "OPENAI_API_KEY": "sk-test-not-a-real-key",
    }
    mcp_port = free_port()
    args = [
        "--JupyterMemoryServer.poll_interval=0.5",
        "--JupyterMemoryServer.chat_idle_minutes=0.03",  # about 2 s of quiet ends the turn
        f"--MCPExtensionApp.mcp_port={mcp_port}",
    ]
    log = tmp_path / "jupyter-server.log"
    with jupyter_process(root, log, env=env, args=args, extra_ports=(mcp_port,)) as server:
        yield server.ready(timeout=60), home


def test_the_memory_personas_turn_ends_after_the_quiet_and_its_suggestion_shows_in_the_chat(
    chat_server: Any, llm: Any
) -> None:
    server, home = chat_server

    async def scenario() -> ChatSocket:
        chat = ChatSocket(server, "talk.chat")
        await chat.open()
        await chat.until(
            lambda: any(u.get("display_name") == "Memory" for u in chat.users.values())
        )
        memory = chat.persona("Memory")
        await chat.send(SAID, memory)
        await chat.until(lambda: any(REPLY in r for r in chat.replies(memory)), timeout=90)
        # The quiet after the reply is the turn's end: the persona says what it found.
        await chat.until(
            lambda: any("wait in the Agent Memory panel" in r for r in chat.replies(memory)),
            timeout=90,
        )
        await chat.until(lambda: bool(chat.cards()), timeout=60)
        return chat

    try:
        chat = asyncio.run(scenario())
    except TimeoutError:
        said = [
            r["body"][:200] for r in json.loads((server.root / "talk.chat").read_text())["messages"]
        ]
        pytest.fail(f"chat: {said}; model asked {len(llm.requests)} times", pytrace=False)
    (card,) = chat.cards()
    assert card["text"] == "Weeks start on Monday" and card["evidence_quote"] == SAID
    # One extraction over the person's words, never the persona's reply.
    extraction = json.dumps(llm.requests[1], ensure_ascii=False)
    assert SAID in extraction and REPLY not in extraction
    with Memory(home=home) as mem:
        (proposal,) = mem.queue()
        assert (
            proposal.id == card["id"]
            and proposal.conversation == f"chat:{server.root / 'talk.chat'}"
        )
        assert mem.hooks.llm_spend().uses["extraction"]["calls"] == 1
