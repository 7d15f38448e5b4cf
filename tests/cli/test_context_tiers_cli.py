"""``jupyter-memory context`` prints exactly the agents' block, memories by tier included (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.service.agent_access import AgentAccess
from tests.support.cli import run_main


def test_cli_context_is_the_agents_block(memory_home: Path) -> None:
    with Memory(memory_home) as mem:
        mem.remember("Always dedupe orders on order_id")
        mem.remember("收入口径不含退款", title="收入口径")
        mem.remember("MCP-OWN reviewed note", agent="mcp", reviewed=True)
        want = AgentAccess(mem, agent="mcp").context(query="收入")
    cmd = ["context", "--home", str(memory_home)]  # main() in this process
    done = run_main([*cmd, "--agent", "mcp", "--query", "收入", "--json"])
    assert done.returncode == 0, done.stderr
    out = done.stdout
    block = json.loads(out)["context"]
    assert block == want
    assert "Always dedupe orders on order_id" in block and "MCP-OWN" in block
    done = run_main(cmd)
    assert done.returncode == 0, done.stderr
    person = done.stdout
    assert "收入口径不含退款" in person and "MCP-OWN" not in person
