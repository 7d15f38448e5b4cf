"""``%memories --stats`` shows usage; ``%recall --agent NAME`` shows that agent's own memories."""

from __future__ import annotations


def test_memories_stats_magic_shows_usage(ip, magics):
    magics.service.remember("Revenue excludes refunds", type="semantic")
    magics.service.recall("refunds")
    view = ip.run_line_magic("memories", "--stats")
    text = repr(view)
    assert "recalls" in text and "most recalled" in text and "recalls by activity" in text
    assert "WARM 0" in text and "COLD 0" in text


def test_recall_magic_agent_flag(ip, magics):
    magics.service.remember("Refund totals exclude test accounts", scope="user")
    magics.service.remember("Refund checks run before the export", agent="dev")
    hits = ip.run_line_magic("recall", "refund --agent dev")
    assert [h["scope"] for h in hits] == ["agent:dev"]
    assert len(ip.run_line_magic("recall", "refund")) == 2
