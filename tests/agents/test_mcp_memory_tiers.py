"""The MCP server's memory_context carries memories by tier; recall stays read only (issue 13).

A real stdio subprocess and the SDK's own client.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agents_helpers import data_of, resource_text, stdio_session

from jupyter_memory import Memory
from jupyter_memory.agents import mcp_compat

pytestmark = pytest.mark.anyio


def _seed(home: Path, project_dir: Path, other_dir: Path) -> None:
    with Memory(home, project=project_dir) as mem:
        mem.remember("Always dedupe orders on order_id")  # the person's: HOT
        mem.remember("Weekly actives exclude staff accounts", title="Actives", type="semantic")
        mem.remember("DIGEST-7 refunds arrive late", source="session-digest", reviewed=False)
        mem.remember("OTHER-AGENT-8 scratch about orders", agent="codex", reviewed=True)
        mem.remember("OWN-AGENT-9 orders note, reviewed", agent="mcp", reviewed=True)
        mem.remember("OTHER-PROJECT-10 orders in yen", project=other_dir, scope="project")


async def test_memory_context_has_the_tiers_and_only_what_the_person_approved(
    memory_home: Path, project_dir: Path
) -> None:
    other = project_dir.parent / "other"
    other.mkdir()
    _seed(memory_home, project_dir, other)
    args = ("--project", str(project_dir), "--agent", "mcp")
    async with stdio_session(memory_home, *args) as s:
        plain = data_of(await s.call_tool("memory_context", {}))
        about = data_of(await s.call_tool("memory_context", {"query": "how are orders deduped?"}))
        resource = resource_text(await s.read_resource("memory://context"))
        hits = data_of(await s.call_tool("recall", {"query": "orders", "level": "full"}))
    for block in (plain, about, resource):
        assert '<memory-tier tier="hot"' in block
        assert "Always dedupe orders on order_id" in block
        assert "OWN-AGENT-9" in block
        for never in ("DIGEST-7", "OTHER-AGENT-8", "OTHER-PROJECT-10"):
            assert never not in block
    texts = " ".join(h["text"] for h in hits)
    assert "dedupe orders" in texts and "OWN-AGENT-9" in texts
    for never in ("DIGEST-7", "OTHER-AGENT-8"):
        assert never not in texts
    with Memory(memory_home, project=project_dir) as mem:
        assert len(mem.memories()) == 5  # this project's and the User layer's: nothing was written


async def test_memory_context_query_is_checked(memory_home: Path) -> None:
    async with stdio_session(memory_home) as s:
        bad = await s.call_tool("memory_context", {"query": "x" * 10_001})
    assert mcp_compat.is_error(bad)
