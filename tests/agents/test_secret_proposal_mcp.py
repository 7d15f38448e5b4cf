"""An agent over MCP stdio quoting a secret-bearing cell is refused (issue 29, finding 1).

The kernel recorded the person's cell and their saved notebook still holds the
DSN verbatim (the file is theirs); the agent quotes it in ``propose_knowledge``:
refused, naming the kind, and nothing reaches the queue.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import nbformat
from agents_helpers import stdio_session, text_of

from jupyter_memory import Memory
from jupyter_memory.agents import mcp_compat

PASSWORD = "Sup3rS3cretPw"
CELL = f'dsn = "postgresql://analyst:{PASSWORD}@db.internal:5432/sales"'


async def _propose(home: Path, cwd: Path) -> tuple[bool, str]:
    async with stdio_session(home, "--project", "auto", cwd=cwd) as s:
        result = await s.call_tool(
            "propose_knowledge",
            {
                "text": f"Connect to the warehouse with {CELL}",
                "kind": "rule",
                "evidence_quote": CELL,
            },
        )
        return mcp_compat.is_error(result), text_of(result)


def test_an_agent_quoting_a_secret_over_mcp_is_refused(tmp_path: Path, memory_home: Path) -> None:
    project = tmp_path / "sales-q3"
    (project / ".jupyter-memory").mkdir(parents=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    nbformat.write(nb, str(project / "warehouse.ipynb"))
    with Memory(memory_home) as mem:  # as the kernel records the cell it ran
        mem.hooks.record_person_text([{"role": "code", "text": CELL, "cell_id": "c1"}])
    is_error, text = asyncio.run(_propose(memory_home, project))
    assert is_error
    assert "holds a secret (dsn-password)" in text and PASSWORD not in text
    with Memory(memory_home) as mem:
        assert mem.queue() == []
    under_home = [p for p in memory_home.rglob("*") if p.is_file()]
    assert all(PASSWORD not in p.read_bytes().decode("utf-8", "replace") for p in under_home)
