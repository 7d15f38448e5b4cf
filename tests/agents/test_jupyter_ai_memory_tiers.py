"""Jupyter AI: the tools and the Memory persona get memories by tier and a read-only recall (issue 13).

The tool functions run everywhere; the persona needs Jupyter AI (marked
``jupyter_ai``, run by ``make test-integrations`` in ``.venv-integrations``).
"""

from __future__ import annotations

import asyncio
import importlib
import os
from datetime import datetime, timedelta, timezone
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.agents import jupyter_ai_tools
from jupyter_memory.service.agent_access import AgentAccess

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
NEEDS_JAI = "Jupyter AI is missing: pip install 'jupyter-memory[jupyter-ai]' (or run make test-integrations)"


@pytest.fixture
def shared(memory_home: Path, project_dir: Path):
    clock = [NOW - timedelta(days=40)]
    mem = Memory(memory_home, project=project_dir, clock=lambda: clock[0])
    # 40 days old and semantic (attention ≈ 0.67): WARM, loaded when the chat is about it.
    mem.remember("Churn counts ninety days without orders.", title="Churn", type="semantic")
    mem.remember("收入口径不含退款。", title="收入口径", type="semantic", tags=["finance"])
    clock[0] = NOW
    mem.remember("Always dedupe orders on order_id")  # HOT
    mem.remember("DIGEST-3 refunds arrive late", source="session-digest", reviewed=False)
    mem.remember("OTHER-AGENT-4 orders scratch", agent="codex", reviewed=True)
    access = AgentAccess(mem, agent="jupyter-ai", project=mem.project_id, conversation="c1")
    jupyter_ai_tools.reset_shared_access(access)
    yield access
    jupyter_ai_tools.reset_shared_access(None)


def test_the_tools_carry_the_tiers_and_recall_takes_the_filters(
    shared: AgentAccess,
) -> None:
    plain = asyncio.run(jupyter_ai_tools.memory_context())
    about = asyncio.run(jupyter_ai_tools.memory_context(query="how is churn counted?"))
    # Without a conversation attention decides (both WARM); with one, only what it is about.
    assert "Churn counts ninety days" in plain and "收入口径不含退款" in plain
    assert "Churn counts ninety days" in about and "收入口径不含退款" not in about
    assert "Always dedupe orders on order_id" in plain and "Always dedupe" in about
    for block in (plain, about):
        assert "DIGEST-3" not in block and "OTHER-AGENT-4" not in block
    hits = asyncio.run(jupyter_ai_tools.recall(query="收入", tags=["finance"], level="full"))
    assert [h["title"] for h in hits] == ["收入口径"]
    everything = asyncio.run(jupyter_ai_tools.recall(query="orders refunds", limit=50))
    assert not any("DIGEST-3" in h["text"] or "OTHER-AGENT-4" in h["text"] for h in everything)
    with pytest.raises(ValueError, match="tier"):
        asyncio.run(jupyter_ai_tools.recall(tier="forever"))


@pytest.mark.jupyter_ai
def test_the_persona_prompt_picks_warm_memories_by_the_message(shared: AgentAccess) -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    for module in ("jupyter_ai_persona_manager", "jupyter_ai_jupyternaut", "jupyterlab_chat"):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            pytest.fail(f"{NEEDS_JAI}: {exc}")
    from jupyterlab_chat.models import Message
    from jupyterlab_chat.ychat import YChat

    (ep,) = [e for e in entry_points(group="jupyter_ai.personas") if e.name == "memory"]
    persona = ep.load()(chat=YChat())
    persona.get_chat_dir = lambda: str(shared.memory.hooks.project_dir)
    message = Message(id="m-1", body="How is churn counted here?", sender="analyst", time=0.0)
    prompt = persona.get_system_prompt(model_id="openai/test", message=message)
    assert "Always dedupe orders on order_id" in prompt  # HOT
    assert "Churn counts ninety days" in prompt  # WARM: the message is about churn
    assert "收入口径不含退款" not in prompt  # WARM-aged too, but not what the message is about
    assert "recall" in prompt  # told how to read a COLD title
    assert "DIGEST-3" not in prompt and "OTHER-AGENT-4" not in prompt
    assert "收入口径不含退款" in persona.system_prompt  # no message: attention alone
