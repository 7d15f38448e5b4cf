"""End to end: a real ``jupyter server`` with Jupyter AI and jupyter-memory loaded.

Over real HTTP: jupyter-server-mcp's MCP server serves our
``jupyter_server_mcp.tools``; ``%%ai anything@Memory``'s REST route
(``/api/ai/message/Memory``) runs the Memory persona, whose request to the
model carries the approved block (and our MCP tools); the person's chat message
is kept as evidence. The model is the local OpenAI-compatible test server (the
one allowed double: no real LLM is reached). Marked ``jupyter_ai``: run by
``make test-integrations``; about 15 s on 2 cores, mostly Jupyter AI's import.

Why ``.jupyter/mcp_settings.json``: the ``%%ai`` route builds a throw-away
persona manager without the server's config, so its built-in MCP entry always
points at port 3001 (jupyter-ai-persona-manager 0.2.2). We run the MCP server on
a free port and name it in the project's MCP settings, the way a person adds one.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents_helpers import text_of
from openai_test_server import Scripted, llm_server

from jupyter_memory import Memory
from jupyter_memory.store.knowledge.person_text import PersonTextLog
from tests.support.servers import JupyterProcess, free_port, jupyter_process

pytestmark = pytest.mark.jupyter_ai

PROJECT_RULE = "Revenue excludes refunds (口径：收入不含退款)."
PENDING = "Fiscal year starts in April (pending, never approved)."
MODEL = "openai/memory-e2e-test"
REPLY = "好的：amounts are in CNY, revenue excludes refunds."
CHAT = "记住：金额单位为人民币 (amounts are in CNY)."
REMEMBERED = "Always dedupe orders on order_id"
DIGESTED = "DIGEST-ONLY the refunds join drops rows"
OUR_TOOLS = {
    "memory_context",
    "expand_knowledge_catalog",
    "propose_knowledge",
    "recall",
    "case_note",
    "case_index",
    "case_entry",
}


def _configure_model(api_base: str) -> None:
    """Jupyternaut's own settings file, in this test's isolated JUPYTER_DATA_DIR."""
    path = Path(os.environ["JUPYTER_DATA_DIR"]) / "jupyter_ai" / "config.json"
    path.parent.mkdir(parents=True)
    config = {"model_provider_id": MODEL, "fields": {MODEL: {"api_base": api_base}}}
    path.write_text(json.dumps(config), encoding="utf-8")


@pytest.fixture
def seeded(memory_home: Path, project_dir: Path) -> Path:
    with Memory(memory_home, project=project_dir) as mem:
        mem.save_knowledge("project", f"## Rules\n- {PROJECT_RULE}\n\n## Info\n")
        mem.propose(PENDING, "info", PENDING, layer="project")
        # Memories reach the persona by tier (issue 13): the person's, never a digest's.
        mem.remember(REMEMBERED)
        mem.remember(DIGESTED, source="session-digest", reviewed=False)
    return project_dir


@pytest.fixture
def llm() -> Iterator[Any]:
    with llm_server([Scripted(text=REPLY)]) as server:
        yield server


@pytest.fixture
def jupyter(seeded: Path, llm: Any, tmp_path: Path) -> Iterator[JupyterProcess]:
    mcp_port = free_port()
    dot = seeded / ".jupyter"
    dot.mkdir()
    mcp_url = f"http://127.0.0.1:{mcp_port}/mcp"
    servers = [{"type": "http", "name": "jupyter-memory-e2e", "url": mcp_url, "headers": []}]
    (dot / "mcp_settings.json").write_text(json.dumps({"mcp_servers": servers}), "utf-8")
    _configure_model(llm.url)
    env = dict(os.environ)
    env |= {
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # litellm would fetch it from the network
        "FASTMCP_SHOW_SERVER_BANNER": "false",
        "OPENAI_API_KEY": "sk-test-not-a-real-key",
        "PYTHONUNBUFFERED": "1",
    }
    with jupyter_process(
        seeded,
        tmp_path / "jupyter-server.log",
        env=env,
        args=[f"--MCPExtensionApp.mcp_port={mcp_port}"],
        extra_ports=(mcp_port,),
    ) as server:
        assert server.mcp_url == mcp_url
        yield server.ready()


async def _mcp_tools_and_context(url: str) -> tuple[set[str], str]:
    from mcp import ClientSession

    from jupyter_memory.agents import mcp_compat

    async with (
        mcp_compat.open_http_client(url) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        result = await session.call_tool("memory_context", {})
        assert not mcp_compat.is_error(result), text_of(result)
        # The case tools work in the extension's workspace (the server root here).
        case = await session.call_tool("case_index", {"case": "CASE-2026-001"})
        assert not mcp_compat.is_error(case), text_of(case)
        assert "Case Memory Index — CASE-2026-001" in text_of(case)
        return tools, text_of(result)


def test_a_real_jupyter_server_serves_our_tools_and_the_memory_persona(
    jupyter: JupyterProcess, llm: Any, memory_home: Path
) -> None:
    # Our own REST extension is loaded in the same server.
    code, settings = jupyter.request("GET", "/jupyter-memory/settings")
    assert code == 200 and settings["enabled"] is True, settings

    # jupyter-server-mcp serves our entry-point tools over streamable HTTP.
    tools, context = asyncio.run(_mcp_tools_and_context(jupyter.mcp_url))
    assert tools >= OUR_TOOLS, sorted(tools)
    assert PROJECT_RULE in context and "<approved-knowledge" in context
    assert PENDING not in context  # the queue never reaches an agent
    assert REMEMBERED in context and DIGESTED not in context

    # %%ai anything@Memory: the Memory persona answers through the (test) model.
    code, data = jupyter.request("POST", "/api/ai/message/Memory", {"message": CHAT})
    assert code == 200, data
    assert REPLY in data["response"], (data, jupyter.log.read_text(errors="replace")[-3000:])

    (request,) = [r for r in llm.requests if r.get("messages")]
    assert request["model"] == MODEL.split("/", 1)[1]
    system = "\n".join(
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        for m in request["messages"]
        if m["role"] == "system"
    )
    assert PROJECT_RULE in system and "<approved-knowledge" in system
    assert REMEMBERED in system and '<memory-tier tier="hot"' in system
    assert PENDING not in json.dumps(request, ensure_ascii=False)
    assert DIGESTED not in json.dumps(request, ensure_ascii=False)
    offered = {t["function"]["name"] for t in request.get("tools", [])}
    assert offered >= OUR_TOOLS, sorted(offered)
    assert any(CHAT in json.dumps(m, ensure_ascii=False) for m in request["messages"])

    # The person's chat message was kept as evidence for later agent proposals.
    assert CHAT in [record["text"] for record in PersonTextLog(memory_home).read()]
