"""``jupyter-memory context`` prints exactly the agents' block, memories by tier included (issue 13)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.service.agent_access import AgentAccess


def test_cli_context_is_the_agents_block(memory_home: Path) -> None:
    with Memory(memory_home) as mem:
        mem.remember("Always dedupe orders on order_id")
        mem.remember("收入口径不含退款", title="收入口径")
        mem.remember("MCP-OWN reviewed note", agent="mcp", reviewed=True)
        want = AgentAccess(mem, agent="mcp").context(query="收入")
    cmd = [sys.executable, "-m", "jupyter_memory.cli.main", "context", "--home", str(memory_home)]
    out = subprocess.run(
        [*cmd, "--agent", "mcp", "--query", "收入", "--json"],
        capture_output=True,
        text=True,
        check=True,
        encoding="utf-8",
    ).stdout
    block = json.loads(out)["context"]
    assert block == want
    assert "Always dedupe orders on order_id" in block and "MCP-OWN" in block
    person = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert "收入口径不含退款" in person and "MCP-OWN" not in person
