"""``%memory context`` shows exactly the agents' block, memories by tier included (issue 13)."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from jupyter_memory.service.agent_access import AgentAccess


def test_memory_context_shows_the_memory_tiers(ip, magics) -> None:  # noqa: ANN001
    ip.run_line_magic("remember", "Always dedupe orders on order_id")
    mem = magics.session.memory
    mem.remember("ASK-OWN reviewed note of the %%ask agent", agent="ask", reviewed=True)
    mem.remember("DIGEST-ONLY unreviewed", source="session-digest", reviewed=False)
    shown = str(ip.run_line_magic("memory", "context"))
    assert "Always dedupe orders on order_id" in shown and '<memory-tier tier="hot"' in shown
    assert "ASK-OWN" not in shown and "DIGEST-ONLY" not in shown
    # Exactly what the agent gets: the same block, byte for byte.
    as_ask = str(ip.run_line_magic("memory", "context --agent ask --query 'dedupe orders'"))
    assert as_ask == AgentAccess(mem, agent="ask").context(query="dedupe orders")
    assert "ASK-OWN" in as_ask
    html = ip.run_line_magic("memory", "context")._repr_html_()
    assert "&lt;memory-tier" in html  # stored text and delimiters escaped in HTML
    with pytest.raises(UsageError, match="%memory queue: unrecognized arguments: --query x"):
        ip.run_line_magic("memory", "queue --query x")
    ip.run_line_magic("memory", "off")
    assert "(empty" in str(ip.run_line_magic("memory", "context"))
