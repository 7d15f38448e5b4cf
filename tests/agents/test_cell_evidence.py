"""Agents quote the person's cells (issue 13, defect 3; docs/design.md invariant 4).

An agent's ``propose_knowledge`` quote is checked against the person's own
text from every surface: cells the kernel executed, markdown and code cells
of the project's saved notebooks, chat messages. Never outputs, agent replies
or instruction messages.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_memory import Memory
from jupyter_memory.exceptions import ValidationError
from jupyter_memory.service.agent_access import AgentAccess
from tests.support.kernels import execute, kernel_env

NOTE = "# note: orders are deduplicated on order_id before any join"
NOTE_QUOTE = "orders are deduplicated on order_id"
# The same words as an ordinary comment: no note marker, so the cell makes no card of
# its own and the agent's proposal is the only one (a note would make it a repeat).
COMMENT = "# orders are deduplicated on order_id before any join"
MARKDOWN = "Revenue always excludes refunds（收入口径不含退款）."
OUTPUT = "GMV silently includes shipping fees"


def write_notebook(path: Path, cells: list[object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    nbformat.write(nb, str(path))
    return path


def code_with_output(source: str, output: str) -> object:
    cell = nbformat.v4.new_code_cell(source)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=output)]
    return cell


@pytest.fixture
def project(tmp_path: Path, memory_home: Path) -> Path:
    folder = tmp_path / "sales-q3"
    write_notebook(
        folder / "analysis" / "orders.ipynb",
        [
            nbformat.v4.new_markdown_cell(MARKDOWN),
            code_with_output(f"{NOTE}\ndf = orders.drop_duplicates('order_id')", OUTPUT),
            nbformat.v4.new_raw_cell("Raw cells say that churn is ninety days"),
        ],
    )
    with Memory(memory_home) as person:
        person.register_project(folder)
    return folder


def test_an_agent_quotes_the_persons_saved_cells_in_the_project(
    project: Path, memory_home: Path, tmp_path: Path
) -> None:
    elsewhere = write_notebook(
        tmp_path / "other" / "x.ipynb",
        [nbformat.v4.new_markdown_cell("Fiscal quarters always start in February.")],
    )
    with Memory(memory_home) as mem:
        access = AgentAccess(mem, agent="editor", project="sales-q3", conversation="c-cells")
        queued = access.propose("Orders are deduplicated on order_id.", "rule", NOTE_QUOTE)
        assert queued["status"] == "queued"
        origin = mem.proposal(queued["id"]).quote_origin
        assert origin.notebook_path == str(project / "analysis" / "orders.ipynb")
        assert origin.cell_id
        zh = access.propose("收入口径不含退款。", "rule", "收入口径 不含退款")
        assert zh["status"] == "queued"

        for i, quote in enumerate(
            (
                OUTPUT,  # an output of the person's cell is not their words
                "churn is ninety days",  # a raw cell is not a markdown or code cell
                "quarters always start in February",  # a notebook outside the project
                "an invented sentence nobody wrote",
            )
        ):
            other = AgentAccess(mem, agent="editor", project="sales-q3", conversation=f"r{i}")
            with pytest.raises(ValidationError, match="evidence_quote"):
                other.propose("Something to remember here.", "rule", quote)
        assert elsewhere.exists()
        assert len(mem.queue()) == 2


def test_saved_cells_are_read_without_following_links_or_hidden_folders(
    project: Path, memory_home: Path, tmp_path: Path
) -> None:
    outside = write_notebook(
        tmp_path / "outside" / "y.ipynb",
        [nbformat.v4.new_markdown_cell("Weekly actives never count test accounts.")],
    )
    (project / "linked.ipynb").symlink_to(outside)
    (project / "linked-folder").symlink_to(outside.parent)
    write_notebook(
        project / ".ipynb_checkpoints" / "z-checkpoint.ipynb",
        [nbformat.v4.new_markdown_cell("Margins always exclude subsidies in checkpoints.")],
    )
    with Memory(memory_home) as mem:
        for quote in ("never count test accounts", "exclude subsidies in checkpoints"):
            access = AgentAccess(mem, agent="editor", project="sales-q3", conversation=quote)
            with pytest.raises(ValidationError, match="evidence_quote"):
                access.propose("Something to remember here.", "rule", quote)
        access = AgentAccess(mem, agent="editor", project="sales-q3", conversation="c-ok")
        assert access.propose("Orders are deduplicated.", "rule", NOTE_QUOTE)["status"] == "queued"
        assert len(mem.queue()) == 1


@pytest.mark.slow
def test_a_cell_the_kernel_executed_is_evidence_for_an_agent_in_another_process(
    tmp_path: Path, memory_home: Path
) -> None:
    """A real kernel runs the person's unsaved commented cell; an agent elsewhere quotes it."""
    work = tmp_path / "scratch"  # no project: only the kernel's capture can know the cell
    nb_path = write_notebook(
        work / "explore.ipynb",
        [
            nbformat.v4.new_code_cell("%load_ext jupyter_memory"),
            # The output is computed, so it is not in the cell's source.
            nbformat.v4.new_code_cell(
                f"{COMMENT}\nprint('GMV silently includes ' + 'shipping fees')"
            ),
        ],
    )
    nb = nbformat.read(str(nb_path), as_version=4)
    nb_path.unlink()  # the cells exist only in the kernel's session
    execute(nb, work, kernel_env(JUPYTER_MEMORY_HOME=str(memory_home)))
    with Memory(memory_home) as mem:
        access = AgentAccess(mem, agent="editor", conversation="c-kernel")
        queued = access.propose("Orders are deduplicated on order_id.", "rule", NOTE_QUOTE)
        assert queued["status"] == "queued"
        assert mem.proposal(queued["id"]).quote_origin.cell_id
        with pytest.raises(ValidationError, match="evidence_quote"):
            access.propose("GMV includes shipping fees.", "info", OUTPUT)


async def _mcp_propose(home: Path, cwd: Path, quotes: list[str]) -> list[tuple[bool, str]]:
    from agents_helpers import text_of
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from jupyter_memory.agents import mcp_compat

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "jupyter_memory.cli.main", "mcp", "--home", str(home), "--project", "auto"],
        env=dict(os.environ),
        cwd=cwd,
    )
    out = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        for i, quote in enumerate(quotes):
            args = {"text": f"Rule number {i} from the notebook.", "kind": "rule"}
            result = await s.call_tool("propose_knowledge", args | {"evidence_quote": quote})
            out.append((mcp_compat.is_error(result), text_of(result)))
    return out


def test_an_editor_agent_over_mcp_quotes_the_projects_notebook_cells(
    project: Path, memory_home: Path
) -> None:
    results = asyncio.run(
        _mcp_propose(memory_home, project / "analysis", [NOTE_QUOTE, "收入口径不含退款", OUTPUT])
    )
    (note_err, note), (zh_err, zh), (out_err, out) = results
    assert not note_err and "queued" in note
    assert not zh_err and "queued" in zh
    assert out_err and "evidence_quote" in out


def test_an_agent_in_a_jupyter_ai_chat_quotes_the_persons_messages_of_that_chat(
    memory_home: Path, tmp_path: Path
) -> None:
    """Any persona of the chat (Jupyternaut, an ACP agent), not only the Memory persona."""
    import json

    from jupyter_memory.agents.chat_focus import access_for_chat

    work = tmp_path / "analysis"
    work.mkdir()
    bot = "jupyter-ai-personas::jupyter_ai_jupyternaut::JupyternautPersona"
    chat = work / "orders.chat"
    chat.write_text(
        json.dumps(
            {
                "users": {"analyst": {"username": "analyst"}, bot: {"username": bot, "bot": True}},
                "messages": [
                    {
                        "id": "m1",
                        "sender": "analyst",
                        "time": 1.0,
                        "body": "我们的口径：退货订单不计入GMV。",
                    },
                    {
                        "id": "m2",
                        "sender": bot,
                        "time": 2.0,
                        "body": "Noted: GMV always includes refunds.",
                    },
                    {
                        "id": "m3",
                        "sender": "analyst",
                        "time": 3.0,
                        "body": "Execute plan: count refunds twice",
                    },
                ],
            }
        ),
        encoding="utf-8",
    )
    with Memory(memory_home) as mem:
        server = AgentAccess(mem, agent="jupyter-ai", conversation="server-1")
        in_chat = access_for_chat(server, work, chat_path=chat)
        queued = in_chat.propose("退货订单不计入GMV。", "rule", "退货订单不计入GMV")
        assert queued["status"] == "queued"
        assert mem.proposal(queued["id"]).quote_origin.message_id == "m1"
        for i, quote in enumerate(("GMV always includes refunds", "count refunds twice")):
            other = access_for_chat(AgentAccess(mem, conversation=f"s{i}"), work, chat_path=chat)
            with pytest.raises(ValidationError, match="evidence_quote"):
                other.propose("Something to remember here.", "rule", quote)
        # Another chat's messages are not this chat's evidence.
        elsewhere = access_for_chat(server, work, chat_path=work / "churn.chat")
        with pytest.raises(ValidationError, match="evidence_quote"):
            elsewhere.propose("退货订单不计入GMV。", "rule", "退货订单不计入GMV")


def test_a_broken_notebook_is_named_in_the_refusal_and_hides_nothing_else(
    project: Path, memory_home: Path
) -> None:
    (project / "broken.ipynb").write_text("{ not json", encoding="utf-8")
    with Memory(memory_home) as mem:
        access = AgentAccess(mem, agent="editor", project="sales-q3", conversation="c-broken")
        assert access.propose("Orders are deduplicated.", "rule", NOTE_QUOTE)["status"] == "queued"
        with pytest.raises(ValidationError, match=r"could not be read: .*broken\.ipynb"):
            access.propose("Something to remember here.", "rule", "nobody wrote this sentence")
