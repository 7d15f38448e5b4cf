"""The product's whole loop, in real processes (issue 13, "Done when").

An analyst works in ``sales-q3/analysis/orders.ipynb``. A real kernel runs
their cells: ``%load_ext jupyter_memory``, ``%remember`` of a procedure, and a
cell whose comment states a rule without a note marker (a marked note would be
queued by the kernel itself, issue 32; proposing this one is the agent's part).
Then agents beside the notebook:

- **Jupyter AI** (marked ``jupyter_ai``, ``make test-integrations``): a real
  ``jupyter server`` with Jupyter AI and our extension; a chat file opened
  beside the notebook; the person asks ``@Memory``. The model (the local test
  server, the one allowed double) must be sent the person's HOT memory and the
  approved knowledge of *that* project (the chat's folder decides, not the
  server root); it proposes the rule quoting the person's cell, which lands in
  the project's queue; the notebook shows its card; the person applies it over
  REST; the card's live state reads decided; the next request to the model
  carries the new rule.
- **An editor agent over MCP** (unmarked, ``make test``): ``jupyter-memory mcp
  --project auto`` started in the notebook's folder sees the same HOT memory
  and approved knowledge, proposes rules quoting the person's cells (one the
  kernel ran, one only in the saved notebook), the person applies one in the
  notebook, and the agent's next context carries it.

Each joint (the focus, the memory tier, the cell evidence) has an assertion
that names it, so a cut joint fails with a message saying which.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agents_helpers import data_of, stdio_session, text_of
from loop_helpers import (
    Kernel,
    chat_turn,
    configure_jupyter_ai_model,
    jupyter_server,
    kernel_for,
    run_on_kernel_loop,
    saved_cards,
    system_text,
)
from openai_test_server import Scripted, llm_server

from jupyter_memory import Memory
from jupyter_memory.agents import mcp_compat
from jupyter_memory.store.knowledge.person_text import PersonTextLog

APPROVED = "Amounts are reported in CNY (金额单位：人民币)."
HOT = "Always dedupe orders on order_id"
NOTE_EN = "refunds are excluded from Q3 revenue"
NOTE_ZH = "退款不计入第三季度收入"
MARKDOWN_ZH = "口径：第三季度按下单日期归属，不按支付日期。"
MARKDOWN_QUOTE = "第三季度按下单日期归属"
NEW_RULE = "Refunds are excluded from Q3 revenue."
NEW_RULE_ZH = "退款不计入第三季度收入。"
PERSONA = "jupyter-ai-personas::jupyter_memory::MemoryPersona"
MODEL = "openai/memory-loop-test"


@dataclass
class Desk:
    """The server's root, the project folder in it, the notebook and the chat beside it."""

    root: Path
    project: Path
    notebook: Path
    chat: str  # relative to the root, as JupyterLab opens it


@pytest.fixture
def desk(tmp_path: Path, memory_home: Path) -> Desk:
    root = tmp_path / "desk"
    project = root / "sales-q3"
    (project / "analysis").mkdir(parents=True)
    # Earlier the person approved a rule for this project (which registered it).
    with Memory(memory_home, project=project) as person:
        person.save_knowledge("project", f"## Rules\n- {APPROVED}\n\n## Info\n")
    return Desk(
        root,
        project,
        project / "analysis" / "orders.ipynb",
        "sales-q3/analysis/orders.chat",
    )


def start_the_notebook(kernel: Kernel) -> None:
    """The person's first cells: the extension, a procedure to remember, their notes."""
    kernel.run(MARKDOWN_ZH, markdown=True)
    kernel.run("%load_ext jupyter_memory")
    kernel.run(f"%remember {HOT}")


def wait_for_evidence(memory_home: Path, text: str, timeout: float = 15) -> None:
    """Give the kernel's evidence feed its second (it writes a cell about a second after it
    ran); whether the cell became evidence is what the agent's proposal then shows."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(text in r.get("text", "") for r in PersonTextLog(memory_home).read()):
            return
        time.sleep(0.2)


def assert_block_carries(where: str, block: str, *rules: str) -> None:
    # The focus first: without the project, its memories are missing too.
    for rule in rules:
        assert rule in block, (
            f"focus joint: {where} lacks the approved knowledge of sales-q3 ({rule!r}); "
            f"the chat or session did not work in the notebook's project:\n{block[-1500:]}"
        )
    hot = re.search(r'<memory-tier tier="hot"[^>]*>(.*?)</memory-tier>', block, re.S)
    assert hot is not None and HOT in hot.group(1), (
        f"memory tier joint: {where} lacks the person's HOT memory {HOT!r}:\n{block[-1500:]}"
    )


# --------------------------------------------------------------------------- Jupyter AI


@pytest.fixture
def llm() -> Iterator[Any]:
    propose = {
        "text": NEW_RULE,
        "kind": "rule",
        "evidence_quote": NOTE_EN,
        "layer": "project",
    }
    turns = [
        Scripted(tool_calls=[("propose_knowledge", propose)]),
        Scripted(text="I proposed that rule for your review."),
        Scripted(text="Q3 revenue: excluding refunds, in CNY."),
    ]
    with llm_server(turns) as server:
        yield server


def _chat_requests(llm: Any) -> list[dict[str, Any]]:
    return [r for r in llm.requests if r.get("messages")]


def _tool_results(request: dict[str, Any]) -> list[str]:
    return [json.dumps(m, ensure_ascii=False) for m in request["messages"] if m["role"] == "tool"]


@pytest.mark.jupyter_ai
def test_the_loop_through_a_jupyter_ai_chat_beside_the_notebook(
    desk: Desk, memory_home: Path, llm: Any, tmp_path: Path
) -> None:
    configure_jupyter_ai_model(MODEL, llm.url)
    log = tmp_path / "jupyter-server.log"
    with (
        jupyter_server(desk.root, log, with_mcp=True) as server,
        kernel_for(desk.notebook, memory_home) as kernel,
    ):
        # 1. The person's notebook, saved; then a cell with a comment, run just now.
        start_the_notebook(kernel)
        kernel.save()
        kernel.run(f"# {NOTE_EN}\nrevenue = 0")
        wait_for_evidence(memory_home, NOTE_EN)

        # 2. A chat beside the notebook; the person asks @Memory.
        server.ready()
        answer = chat_turn(
            server,
            desk.chat,
            "@Memory 第三季度收入怎么算？ How do I compute Q3 revenue?",
            PERSONA,
            until="proposed that rule",
        )
        first, after_tool = _chat_requests(llm)[:2]
        assert_block_carries("the chat's first request to the model", system_text(first), APPROVED)
        offered = {t["function"]["name"] for t in first.get("tools", [])}
        assert {"propose_knowledge", "recall", "memory_context"} <= offered, sorted(offered)
        results = _tool_results(after_tool)
        assert any("queued" in r for r in results), (
            f"cell evidence joint: propose_knowledge quoting the person's cell was refused: "
            f"{results}\n{answer.text}"
        )
        code, queue = server.request("GET", "/jupyter-memory/queue")
        assert code == 200, queue
        (pending,) = [p for p in queue["items"] if p["evidence_quote"] == NOTE_EN]
        assert pending["project"] == "sales-q3" and pending["source"] == "agent", pending
        # Found in the person's cell of this notebook (the kernel's capture names it).
        assert pending["quote_origin"].get("notebook_path") == str(desk.notebook), pending

        # 3. The notebook shows its card; Apply through REST; the card's live state is decided.
        kernel.run("%memory queue")
        kernel.save()
        (card,) = [c for c in saved_cards(desk.notebook) if c["id"] == pending["id"]]
        assert card["status"] == "pending" and card["evidence_quote"] == NOTE_EN, card
        code, applied = server.request(
            "POST", f"/jupyter-memory/queue/{pending['id']}/apply", {"to": "project"}
        )
        assert code == 200, applied
        # The card's renderer asks for the live state of the ids in the saved output.
        code, states = server.request("GET", f"/jupyter-memory/queue/proposals?ids={card['id']}")
        assert code == 200 and not states["missing"], states
        (state,) = states["items"]
        # What the card renders from it: "Saved to Project · sales-q3" (labextension/src/decided.ts).
        assert (state["status"], state["applied_to"], state["applied_project"]) == (
            "applied",
            "project",
            "sales-q3",
        ), state

        # The next chat request carries the new rule, with the HOT memory still there.
        chat_turn(server, desk.chat, "@Memory and the refunds?", PERSONA, until="excluding refunds")
        latest = system_text(_chat_requests(llm)[-1])
        assert_block_carries("the chat's request after Apply", latest, APPROVED)
        assert NEW_RULE in latest, (
            f"apply joint: the rule applied through REST is not in the next chat request:\n"
            f"{latest[-1500:]}"
        )


# --------------------------------------------------------------------------- MCP


async def _editor_agent(home: Path, desk: Desk, kernel: Kernel) -> None:
    """An editor's agent started in the notebook's folder, while the person's kernel runs."""
    async with stdio_session(home, "--project", "auto", cwd=desk.notebook.parent) as agent:
        context = data_of(await agent.call_tool("memory_context", {}))
        assert_block_carries("the MCP session's memory_context", context, APPROVED)
        recalled = data_of(await agent.call_tool("recall", {"query": "dedupe orders"}))
        assert any(HOT in hit["text"] for hit in recalled), (
            f"memory tier joint: recall over MCP does not find {HOT!r}: {recalled}"
        )

        queued = {}
        for name, quote, text in (
            ("executed", NOTE_ZH, NEW_RULE_ZH),
            ("saved", MARKDOWN_QUOTE, "第三季度按下单日期归属。"),
        ):
            result = await agent.call_tool(
                "propose_knowledge", {"text": text, "kind": "rule", "evidence_quote": quote}
            )
            assert not mcp_compat.is_error(result), (
                f"cell evidence joint: the editor agent's quote of the person's {name} cell "
                f"{quote!r} was refused: {text_of(result)}"
            )
            queued[name] = data_of(result)
            assert queued[name]["status"] == "queued", queued[name]
        with Memory(home) as person:
            saved = person.proposal(queued["saved"]["id"])
        assert saved.project == "sales-q3", saved
        assert saved.quote_origin.notebook_path == str(desk.notebook), saved.quote_origin

        # The person applies one in the notebook; the agent's next context carries it.
        await kernel.arun(f"%memory apply {queued['executed']['id']} --to project")
        after = data_of(await agent.call_tool("memory_context", {}))
        assert_block_carries("the MCP session's memory_context after Apply", after, APPROVED)
        assert NEW_RULE_ZH in after, (
            f"apply joint: the rule applied in the notebook is not in the agent's next context:\n"
            f"{after[-1500:]}"
        )


def test_the_loop_through_an_editor_agent_over_mcp_in_the_notebooks_folder(
    desk: Desk, memory_home: Path
) -> None:
    with kernel_for(desk.notebook, memory_home) as kernel:
        start_the_notebook(kernel)
        kernel.run(f"# {NOTE_ZH}\nrevenue = 0")
        kernel.save()
        wait_for_evidence(memory_home, NOTE_ZH)
        run_on_kernel_loop(_editor_agent, memory_home, desk, kernel)
