"""``jupyter-memory archive [--dry-run] [--list] [--restore ID] [--json]``."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from jupyter_memory.cli.main import main


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_archive_dry_run_then_archive_then_restore(capsys, memory_home: Path):
    from jupyter_memory import Memory

    long_ago = datetime.now(timezone.utc) - timedelta(days=200)
    with Memory(home=memory_home) as mem:
        old = mem.remember("一次性导出的会话笔记", tier="session", created=long_ago)
        keep = mem.remember("收入不含退款", tier="durable")
    code, out = run(capsys, "archive", "--dry-run", "--json")
    assert code == 0
    assert [a["id"] for a in json.loads(out)["archived"]] == [old.id]
    assert Path(old.path).exists()
    code, out = run(capsys, "archive")
    assert code == 0 and "archived 1 memories" in out
    assert not Path(old.path).exists()
    code, out = run(capsys, "archive", "--list", "--json")
    assert [a["id"] for a in json.loads(out)] == [old.id]
    code, out = run(capsys, "archive", "--restore", old.id, "--json")
    assert code == 0 and Path(json.loads(out)["path"]).exists()
    code, out = run(capsys, "get", keep.id, "--json")
    assert json.loads(out)["id"] == keep.id


def test_restore_unknown_id_fails_clearly(capsys):
    code = main(["archive", "--restore", "m-nothere"])
    err = capsys.readouterr().err
    assert code == 1 and "m-nothere" in err


def test_stats_json_counts_per_tier_and_heat(capsys, memory_home: Path):
    from jupyter_memory import Memory

    long_ago = datetime.now(timezone.utc) - timedelta(days=60)
    with Memory(home=memory_home) as mem:
        mem.remember("收入不含退款", type="semantic")
        mem.remember("Quarter close is on day 3", type="semantic", created=long_ago)
        mem.remember("Exported the sheet", type="episodic", tier="daily", created=long_ago)
    code, out = run(capsys, "stats", "--json")
    stats = json.loads(out)
    assert code == 0
    assert stats["by_tier"] == {"durable": 2, "daily": 1}
    assert stats["by_heat"] == {"HOT": 1, "WARM": 1, "COLD": 1}


def test_stats_show_todays_llm_spend(capsys, memory_home: Path):
    """Issue 32: what the LLM cost today, against the budget."""
    code, out = run(capsys, "stats", "--json")
    spend = json.loads(out)["llm_spend"]
    assert code == 0
    assert (spend["calls"], spend["calls_per_day"], spend["spent"]) == (0, 40, False)
    code, out = run(capsys, "stats")
    assert "0 of 40 calls, 0 of 200,000 tokens today" in out
