"""In a real kernel: ``%memory focus`` in a notebook, then the chat beside it and
``jupyter-memory mcp --project auto`` started in its folder use the same project.

The kernel is a real ipykernel run by nbclient, told its notebook the way
jupyter_server tells it (``JPY_SESSION_NAME``); the MCP server is a real
subprocess reached over stdio with the SDK's client.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_memory import Memory
from jupyter_memory.agents import jupyter_ai_tools
from jupyter_memory.agents.chat_focus import access_for_chat
from jupyter_memory.service.agent_access import AgentAccess
from tests.support.kernels import execute, kernel_env

pytestmark = pytest.mark.slow

RULE = "Orders are deduplicated on order_id (订单按 order_id 去重)."


def _run(nb_path: Path, home: Path) -> list[str]:
    nb = nbformat.read(str(nb_path), as_version=4)
    # As jupyter_server does for a kernel it starts for a notebook.
    env = kernel_env(JUPYTER_MEMORY_HOME=str(home), JPY_SESSION_NAME=str(nb_path))
    execute(nb, nb_path.parent, env)
    texts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error", f"{cell.source!r}: {out.get('evalue')}"
            texts.append(out.get("text", "") or str(out.get("data", {}).get("text/plain", "")))
    return texts


async def _mcp_context(home: Path, cwd: Path) -> str:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "jupyter_memory.cli.main", "mcp", "--home", str(home), "--project", "auto"],
        env=dict(os.environ),
        cwd=cwd,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        result = await s.call_tool("memory_context", {})
        return "".join(getattr(c, "text", "") for c in result.content)


def test_focus_in_a_notebook_reaches_the_chat_and_the_mcp_session_beside_it(
    tmp_path: Path, memory_home: Path
) -> None:
    project = tmp_path / "sales-q3"
    project.mkdir()
    work = tmp_path / "analysis"
    work.mkdir()
    nb_path = work / "orders.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext jupyter_memory"),
        nbformat.v4.new_code_cell(f"%memory focus {project}"),
        nbformat.v4.new_code_cell("%memory status"),
    ]
    nbformat.write(nb, str(nb_path))
    with Memory(memory_home) as person:
        person.save_knowledge("user", "## Rules\n- Amounts are in CNY.\n\n## Info\n")

    texts = _run(nb_path, memory_home)
    assert any("Focused project: sales-q3" in t and "kept for this notebook" in t for t in texts)
    assert any("project:      sales-q3" in t for t in texts)
    with Memory(memory_home, project="sales-q3") as person:
        person.save_knowledge("project", f"## Rules\n- {RULE}\n\n## Info\n")

    # The Jupyter AI chat opened beside the notebook (the server's process).
    base = AgentAccess(Memory(memory_home), agent="jupyter-ai", conversation="c1")
    jupyter_ai_tools.reset_shared_access(base)
    try:
        chat = access_for_chat(base, work)
        assert chat.project == "sales-q3"
        assert RULE in chat.context()
    finally:
        jupyter_ai_tools.reset_shared_access(None)

    # An editor's agent started in the notebook's folder.
    assert RULE in asyncio.run(_mcp_context(memory_home, work))
    # A kernel started again for the same notebook keeps the person's choice.
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext jupyter_memory"),
        nbformat.v4.new_code_cell("%memory status"),
    ]
    nbformat.write(nb, str(nb_path))
    assert any(
        "project:      sales-q3" in t and "chosen for this notebook" in t
        for t in _run(nb_path, memory_home)
    )


def test_memories_frame_in_a_focused_notebook_has_the_projects_memories(
    tmp_path: Path, memory_home: Path
) -> None:
    project = tmp_path / "sales-q3"
    project.mkdir()
    work = tmp_path / "analysis"
    work.mkdir()
    with Memory(memory_home, project=str(project)) as person:
        person.remember("Refunds are netted against the order month.", title="refunds rule",
                        project="sales-q3")
        person.remember("退款按订单月份冲抵。", title="退款规则", project="sales-q3")
    nb_path = work / "orders.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext jupyter_memory"),
        nbformat.v4.new_code_cell(f"%memory focus {project}"),
        nbformat.v4.new_code_cell(
            "from jupyter_memory import frames\n"
            "df = frames.memories_frame()\n"
            "print('TITLES', sorted(df.title), sorted(set(df.project.dropna())))"
        ),
        nbformat.v4.new_code_cell("%memories --stats"),
    ]
    nbformat.write(nb, str(nb_path))
    texts = _run(nb_path, memory_home)
    line = next(t for t in texts if t.startswith("TITLES"))
    assert "'refunds rule'" in line and "'退款规则'" in line, line
    assert "['sales-q3']" in line, line
    # %memories --stats counts the same memories, in the same project.
    stats = next(t for t in texts if "by_project" in t or "total" in t)
    assert "sales-q3 2" in stats, stats
