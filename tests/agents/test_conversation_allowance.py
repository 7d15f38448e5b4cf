"""The 5-proposal allowance belongs to a real conversation (issue 13, defect 4).

A Jupyter AI chat is its chat file (the persona and the tools of that chat
share one allowance, other chats have their own, a restarted server keeps the
count); a ``%%ask`` conversation lasts until ``%%ask --new`` or a new kernel
session (tests/magics/test_ask_conversations.py). The stdio MCP client
session is covered by test_mcp_proposal_allowance, an HTTP client's token by
test_mcp_http_token.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from jupyter_memory import Memory
from jupyter_memory.agents.chat_focus import access_for_chat, chat_conversation
from jupyter_memory.exceptions import PolicyError
from jupyter_memory.service.agent_access import AgentAccess

QUOTE = "revenue always excludes refunds"
TEXTS = [f"Revenue rule number {i} excludes refunds in report {i * 11}." for i in range(12)]


def _seed(home: Path) -> None:
    with Memory(home) as mem:
        AgentAccess(mem).record_person_text(f"Note for later: {QUOTE}.", role="user")


def _propose(access: AgentAccess, i: int) -> dict[str, Any]:
    return access.propose(TEXTS[i], "rule", QUOTE)


def test_each_jupyter_ai_chat_file_is_one_conversation(memory_home: Path, tmp_path: Path) -> None:
    _seed(memory_home)
    work = tmp_path / "analysis"
    work.mkdir()
    chat_a, chat_b = str(work / "orders.chat"), str(work / "churn.chat")
    with Memory(memory_home) as mem:
        # One server process: one base access, whatever chat calls.
        server = AgentAccess(mem, agent="jupyter-ai", conversation="jupyter-ai-server-1")
        in_a = access_for_chat(server, work, chat_path=chat_a)
        assert in_a.conversation == chat_conversation(chat_a) != chat_conversation(chat_b)
        for i in range(5):
            assert _propose(in_a, i)["status"] == "queued"
        with pytest.raises(PolicyError, match="rate limit"):
            _propose(access_for_chat(server, work, chat_path=chat_a), 5)
        in_b = access_for_chat(server, work, chat_path=chat_b)
        assert _propose(in_b, 6)["status"] == "queued"
    # The server restarts (a new base access): chat A's allowance is still spent.
    with Memory(memory_home) as mem:
        restarted = AgentAccess(mem, agent="jupyter-ai", conversation="jupyter-ai-server-2")
        with pytest.raises(PolicyError, match="rate limit"):
            _propose(access_for_chat(restarted, work, chat_path=chat_a), 7)
        # Without a chat (a script, %%ai's throw-away chat): the server's own allowance.
        assert access_for_chat(restarted, None).conversation == "jupyter-ai-server-2"


@pytest.mark.jupyter_ai
def test_the_persona_and_the_tools_of_one_chat_share_its_allowance(
    memory_home: Path, tmp_path: Path
) -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        from jupyterlab_chat.ychat import YChat

        from jupyter_memory.agents import jupyter_ai_tools
        from jupyter_memory.agents.jupyter_ai_persona import MemoryPersona
    except ImportError as exc:
        pytest.fail(f"Jupyter AI is missing: pip install 'jupyter-memory[jupyter-ai]': {exc}")
    work = tmp_path / "analysis"
    work.mkdir()
    base = AgentAccess(Memory(memory_home), agent="jupyter-ai", conversation="server-1")
    jupyter_ai_tools.reset_shared_access(base)
    try:
        personas = []
        for name in ("orders.chat", "churn.chat"):
            persona = MemoryPersona(chat=YChat())
            persona.get_chat_path = lambda relative=False, n=name: str(work / n)
            persona.get_chat_dir = lambda: str(work)
            personas.append(persona)
        a, b = (p.chat_access() for p in personas)
        assert a.conversation == chat_conversation(str(work / "orders.chat"))
        assert b.conversation == chat_conversation(str(work / "churn.chat"))
        assert a.conversation != b.conversation != base.conversation
    finally:
        jupyter_ai_tools.reset_shared_access(None)


@pytest.mark.anyio
async def test_the_preinject_notice_reaches_an_mcp_client_in_the_tool_result(
    memory_home: Path,
) -> None:
    from agents_helpers import data_of, stdio_session

    from jupyter_memory.core.knowledge.format import Entry, KnowledgeDoc, render_knowledge
    from jupyter_memory.service.knowledge.preinject import NOTICE

    entries = tuple(
        Entry(f"Note that {('orders', 'refunds')[i % 2]} must pass check {i} in region {i * 3}")
        for i in range(80)
    )
    with Memory(memory_home) as mem:
        mem.save_knowledge("user", render_knowledge(KnowledgeDoc(entries, ())))
    async with stdio_session(memory_home, "--conversation", "notice-1") as s:
        first = data_of(await s.call_tool("memory_context", {}))
        assert NOTICE in first and first.index(NOTICE) < first.index("<approved-knowledge")
        again = data_of(await s.call_tool("memory_context", {}))
        assert NOTICE not in again and 'mode="catalog"' in again


def test_the_preinject_notice_reaches_the_chat_through_the_jupyter_ai_tool(
    memory_home: Path,
) -> None:
    import asyncio

    from jupyter_memory.agents import jupyter_ai_tools
    from jupyter_memory.core.knowledge.format import Entry, KnowledgeDoc, render_knowledge
    from jupyter_memory.service.knowledge.preinject import NOTICE

    # Filler pays for the labels: a reorganize never makes the file longer (issue 32).
    entries = tuple(
        Entry(f"Note that {('收入', '订单')[i % 2]} must pass check {i} in region {i * 3}")
        for i in range(80)
    )
    mem = Memory(memory_home)
    mem.save_knowledge("user", render_knowledge(KnowledgeDoc(entries, ())))
    jupyter_ai_tools.reset_shared_access(AgentAccess(mem, agent="jupyter-ai", conversation="t1"))
    try:
        first = asyncio.run(jupyter_ai_tools.memory_context())
        assert NOTICE in first and first.index(NOTICE) < first.index("<approved-knowledge")
        assert "Reorganized" in first and mem.hooks.knowledge_doc("user").has_groups
        assert NOTICE not in asyncio.run(jupyter_ai_tools.memory_context())
    finally:
        jupyter_ai_tools.reset_shared_access(None)


@pytest.mark.jupyter_ai
def test_the_memory_persona_says_the_preinject_notice_in_its_chat(
    memory_home: Path, tmp_path: Path
) -> None:
    import asyncio

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        from jupyterlab_chat.ychat import YChat

        from jupyter_memory.agents import jupyter_ai_tools
        from jupyter_memory.agents.jupyter_ai_persona import MemoryPersona
    except ImportError as exc:
        pytest.fail(f"Jupyter AI is missing: pip install 'jupyter-memory[jupyter-ai]': {exc}")
    from jupyter_memory.core.knowledge.format import Entry, KnowledgeDoc, render_knowledge
    from jupyter_memory.service.knowledge.preinject import NOTICE

    entries = tuple(
        Entry(f"Note that {('orders', 'refunds')[i % 2]} must pass check {i} in region {i * 3}")
        for i in range(80)
    )
    mem = Memory(memory_home)
    mem.save_knowledge("user", render_knowledge(KnowledgeDoc(entries, ())))
    jupyter_ai_tools.reset_shared_access(AgentAccess(mem, agent="jupyter-ai", conversation="s1"))
    try:
        chat = YChat()
        persona = MemoryPersona(chat=chat)
        persona.get_chat_path = lambda relative=False: str(tmp_path / "orders.chat")
        persona.get_chat_dir = lambda: str(tmp_path)

        async def answer_twice() -> None:
            await persona.prepare_injection()
            await asyncio.sleep(0.1)  # the notices are posted on the loop
            await persona.prepare_injection()
            await asyncio.sleep(0.1)

        asyncio.run(answer_twice())
        bodies = [m.body for m in chat.get_messages()]
        assert sum(NOTICE in b for b in bodies) == 1  # once per conversation
        assert any(b.startswith("Reorganized") for b in bodies)
        assert mem.hooks.knowledge_doc("user").has_groups
    finally:
        jupyter_ai_tools.reset_shared_access(None)
