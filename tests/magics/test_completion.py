"""Tab completion of our magics in a real IPython shell (``shell.complete``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.service.case_helpers import copy_sample


def complete(ip: Any, line: str) -> list[str]:
    """What a person sees after pressing Tab at the end of ``line``."""
    from IPython.core.completer import provisionalcompleter

    with provisionalcompleter():
        return sorted(c.text for c in ip.Completer.completions(line, len(line)))


def test_actions_options_and_fixed_values(ip: Any) -> None:
    assert {"focus", "context", "process-all", "apply"} <= set(complete(ip, "%memory "))
    assert complete(ip, "%memory fo") == ["focus"]
    assert "--type" in complete(ip, "%recall refunds --ty")
    assert complete(ip, "%recall refunds --tier ") == sorted(["session", "daily", "durable"])
    assert complete(ip, "%recall 退款 --level f") == ["full"]
    assert complete(ip, "%memories --type sem") == ["semantic"]
    assert complete(ip, "%memory apply p-1 --to ") == ["project", "user"]
    assert complete(ip, "%memory suggestions ") == ["off", "on"]


def test_known_projects_pending_ids_and_the_last_recall(
    ip: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sales-q3").mkdir()
    ip.run_line_magic("memory", "focus ./sales-q3")
    assert complete(ip, "%memory focus ") == ["sales-q3"]
    ip.run_line_magic("remember", "退款按订单净额计算 refunds are netted per order")
    ip.run_line_magic("remember", "refunds older than 90 days are excluded")
    hits = ip.run_line_magic("recall", "refunds")
    assert complete(ip, "%forget ") == sorted(h["id"] for h in hits)
    from jupyter_memory.magics import loaded_magics

    mem = loaded_magics(ip).service
    pending = mem.propose("Revenue excludes refunds", "rule", "refunds", layer="user").proposal
    assert complete(ip, "%memory dismiss ") == [pending.id]


def test_case_actions_types_states_and_entries(ip: Any, tmp_path: Path) -> None:
    ws = copy_sample(tmp_path)
    assert "status" in complete(ip, "%case ")
    assert complete(ip, "%case note --type h") == ["hesitate"]
    assert complete(ip, "%case note --status ") == sorted(["已纳入", "存档待查", "已排除"])
    ip.run_line_magic("case", f"open CASE-2026-001 --workspace {ws}")
    entries = complete(ip, "%case status ")
    assert entries and all(e.endswith(".md") for e in entries)
    assert complete(ip, f"%case status {entries[0]} ") == sorted(["已纳入", "存档待查", "已排除"])


def test_unloading_removes_the_completer(ip: Any) -> None:
    ip.run_line_magic("unload_ext", "jupyter_memory")
    try:
        assert "process-all" not in complete(ip, "%memory ")
    finally:
        ip.run_line_magic("load_ext", "jupyter_memory")


def test_a_real_kernel_answers_tab_with_our_values(memory_home: Path) -> None:
    # The path JupyterLab takes: a complete_request to an ipykernel.
    from tests.support.kernels import started_kernel

    with started_kernel() as (_, kc):
        kc.execute_interactive("%load_ext jupyter_memory", timeout=60)
        line = "%recall 退款 --level "
        reply = kc.complete(line, len(line), reply=True, timeout=30)
        assert sorted(reply["content"]["matches"]) == ["full", "index", "snippet"]


def test_an_action_completes_only_the_options_it_takes(ip) -> None:
    # Each %memory action has its own parser (magics/memory_cmd.py).
    assert complete(ip, "%memory apply p-1 --") == ["--project", "--to"]
    assert complete(ip, "%memory revert p-1 --") == ["--then"]
    assert not {"--to", "--then", "--query"} & set(complete(ip, "%memory status --"))
