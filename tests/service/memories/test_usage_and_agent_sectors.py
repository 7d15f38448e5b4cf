"""Spec 003 memory usage (stats) and agents: usage per sector, tier and heat; ``recall
--agent``; per-agent preferred sectors in recall and in the agent's context block."""

from __future__ import annotations

import json

import pytest

from jupyter_memory.cli.main import main
from jupyter_memory.exceptions import ParseError
from jupyter_memory.service.agent_access import AgentAccess


def test_stats_show_usage_per_sector_tier_and_every_heat(mem, clock):
    often = mem.remember("Revenue excludes refunds issued in the same month", type="semantic")
    once = mem.remember("收入口径不含退款", type="procedural", tier="daily")
    mem.remember("A one-off episode", type="episodic", tier="session")
    mem.recall("refunds")
    clock.advance(minutes=5)
    mem.recall("refunds")
    mem.recall("退款")
    stats = mem.stats().to_dict()
    assert stats["by_heat"].keys() == {"HOT", "WARM", "COLD"}  # 0 where there are none
    usage = stats["usage"]
    assert usage["accesses"] == 3 and usage["accessed"] == 2 and usage["never_accessed"] == 1
    assert [m["id"] for m in usage["most_recalled"]] == [often.id, once.id]
    assert usage["most_recalled"][0]["access_count"] == 2
    assert usage["last_accessed"] == usage["by_sector"]["procedural"]["last_accessed"]
    assert set(usage["by_sector"]) == {"episodic", "semantic", "procedural", "reflective"}
    assert usage["by_sector"]["reflective"] == {"memories": 0, "accesses": 0, "last_accessed": None}
    assert usage["by_sector"]["semantic"]["accesses"] == 2
    assert set(usage["by_tier"]) == {"session", "daily", "durable"}
    assert usage["by_tier"]["daily"]["accesses"] == 1
    assert set(usage["by_heat"]) == {"HOT", "WARM", "COLD"}
    assert sum(g["memories"] for g in usage["by_heat"].values()) == 3
    json.dumps(stats)  # JSON as it is, for --json


def test_cli_stats_prints_usage(memory_home, capsys):
    from jupyter_memory import Memory

    with Memory(home=memory_home) as m:
        m.remember("Revenue excludes refunds", type="semantic")
        m.recall("refunds")
    assert main(["--home", str(memory_home), "stats"]) == 0
    out = capsys.readouterr().out
    assert "recalls: 1 in all; 1 memories recalled, 0 never" in out
    assert "most recalled:" in out and "Revenue excludes refunds" in out
    assert "recalls by activity:" in out and "WARM" in out and "COLD" in out
    assert "reflective" in out  # a sector with no memories is listed with 0
    assert main(["--home", str(memory_home), "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["usage"]["accesses"] == 1


# ---- recall --agent and preferred sectors ------------------------------------------


def test_recall_agent_shows_that_agents_own_memories(memory_home, capsys):
    from jupyter_memory import Memory

    with Memory(home=memory_home) as m:
        m.remember("Refund totals exclude test accounts", scope="user")
        m.remember("Refund checks run before the export", agent="dev")
        m.remember("Refund report is reviewed weekly", agent="qa")
    assert main(["--home", str(memory_home), "recall", "refund", "--agent", "dev", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [h["scope"] for h in hits] == ["agent:dev"]
    assert main(["--home", str(memory_home), "recall", "refund", "--json"]) == 0
    scopes = {h["scope"] for h in json.loads(capsys.readouterr().out)}
    assert "user" in scopes  # shared ones without the flag
    assert (
        main(["--home", str(memory_home), "recall", "x", "--agent", "dev", "--scope", "user"]) == 1
    )


def _same_words(mem):
    episode = mem.remember("Refund export notes for the weekly run", type="episodic")
    method = mem.remember("Refund export notes for the weekly job", type="procedural")
    return episode, method


def test_an_agents_preferred_sectors_rank_first_in_its_recall(mem):
    episode, method = _same_words(mem)
    dev = AgentAccess(mem, agent="dev")  # spec 003: dev prefers procedural, semantic
    qa = AgentAccess(mem, agent="qa")  # qa prefers reflective, episodic
    assert [h["id"] for h in dev.recall("refund export notes")][0] == method.id
    assert [h["id"] for h in qa.recall("refund export notes")][0] == episode.id


def test_an_agents_preferred_sectors_lead_its_context_tiers(mem):
    episode, method = _same_words(mem)
    dev = mem.context(agent="dev", query="refund export notes")
    qa = mem.context(agent="qa", query="refund export notes")
    assert dev.index(method.title) < dev.index(episode.title)
    assert qa.index(episode.title) < qa.index(method.title)


def test_agent_sectors_in_settings_override_and_bad_ones_are_named(mem, memory_home):
    episode, method = _same_words(mem)
    settings = memory_home / "settings.json"
    data = json.loads(settings.read_text("utf-8")) if settings.exists() else {}
    data["agent_sectors"] = {"jupyternaut": ["episodic"]}
    settings.write_text(json.dumps(data), "utf-8")
    hits = AgentAccess(mem, agent="jupyternaut").recall("refund export notes")
    assert hits[0]["id"] == episode.id
    data["agent_sectors"] = {"jupyternaut": ["feelings"]}
    settings.write_text(json.dumps(data), "utf-8")
    with pytest.raises(ParseError, match="agent_sectors.jupyternaut"):
        mem.recall("refund", agent="jupyternaut")
    assert json.loads(settings.read_text("utf-8"))["agent_sectors"] == {"jupyternaut": ["feelings"]}
