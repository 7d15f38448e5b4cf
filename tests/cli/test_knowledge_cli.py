"""``jupyter-memory`` knowledge commands, in-process and as a real subprocess."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_memory.cli.main import main


def run(capsys, *argv: str) -> tuple[int, str, str]:  # noqa: ANN001
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_propose_queue_apply_context_json(capsys, memory_home: Path) -> None:  # noqa: ANN001
    code, out, _ = run(
        capsys, "propose", "Revenue always excludes refunds", "--kind", "rule", "--json"
    )
    assert code == 0
    pid = json.loads(out)["id"]
    code, out, _ = run(capsys, "queue", "--json")
    items = json.loads(out)["items"]
    assert [i["id"] for i in items] == [pid] and items[0]["status"] == "pending"
    code, out, _ = run(capsys, "context", "--json")
    assert json.loads(out)["context"] == ""
    code, out, _ = run(capsys, "apply", pid, "--to", "user", "--json")
    assert json.loads(out)["status"] == "applied"
    code, out, _ = run(capsys, "apply", pid, "--to", "user", "--json")
    assert json.loads(out)["status"] == "already_saved"
    code, out, _ = run(capsys, "context")
    assert "Revenue always excludes refunds" in out and "<approved-knowledge" in out
    code, out, _ = run(capsys, "knowledge", "status", "--json")
    assert json.loads(out)["rules"] == 1
    code, out, _ = run(capsys, "knowledge", "show")
    assert out.startswith("## Rules")


def test_dismiss_and_process_all(capsys, memory_home: Path, project_dir: Path) -> None:  # noqa: ANN001
    _, out, _ = run(capsys, "propose", "收入口径不含退款", "--kind", "info", "--json")
    a = json.loads(out)["id"]
    _, out, _ = run(capsys, "propose", "GMV includes tax", "--kind", "info", "--json")
    b = json.loads(out)["id"]
    _, out, _ = run(
        capsys, "propose", "Weeks start on Monday", "--kind", "rule", "--layer", "project", "--json"
    )
    pick = json.loads(out)["id"]
    where = ("--project", str(project_dir))
    _, out, _ = run(capsys, "propose", "退款按退款日入账", "--kind", "rule", *where, "--json")
    in_project = json.loads(out)["id"]
    code, out, _ = run(capsys, "dismiss", a)
    assert code == 0 and out.strip() == "dismissed"
    # Process all takes no layer: each item goes where it was suggested (spec 002).
    with pytest.raises(SystemExit) as refused:
        run(capsys, "process-all", "--to", "project")
    assert refused.value.code == 2 and "unrecognized arguments: --to" in capsys.readouterr().err
    # It says first what it will do; without a terminal to ask at, only --yes applies.
    code, out, err = run(capsys, "process-all")
    assert code == 1 and out.splitlines() == [
        "Process all would apply 2 proposal(s):",
        "  User: 1",
        "  Project sales-q3: 1",
        "  and leave 1 in the queue that still need a project picked",
    ]
    assert "pass --yes" in err and "GMV includes tax" not in run(capsys, "knowledge", "show")[1]
    code, out, _ = run(capsys, "process-all", "--yes")
    assert code == 0 and out.splitlines() == [
        "applied 2, skipped 1",
        f"  → User: {b}  GMV includes tax",
        f"  → Project sales-q3: {in_project}  退款按退款日入账",
        f"  skipped {pick} (pick a project): Weeks start on Monday",
    ]
    code, out, _ = run(capsys, "knowledge", "status", "--layer", "project", *where)
    assert "Rules 1" in out and "sales-q3" in out
    code, out, _ = run(capsys, "knowledge", "show")
    assert "GMV includes tax" in out and "退款" not in out
    code, out, _ = run(capsys, "process-all", "--json")
    assert json.loads(out) == {
        "applied": [],
        "skipped": [{"id": pick, "text": "Weeks start on Monday", "reason": "pick a project"}],
        "failures": [],
        "ok": True,
    }
    # Undo an Apply: back in the queue, or dismissed.
    code, out, _ = run(capsys, "revert", b)
    assert (
        code == 0 and "reverted: removed from User knowledge" in out and "back in the queue" in out
    )
    assert "GMV includes tax" not in run(capsys, "knowledge", "show")[1]
    code, out, _ = run(capsys, "revert", b, "--json")
    assert code == 1 and json.loads(out)["error"] == "ConflictError"
    run(capsys, "apply", b, "--to", "user")
    code, out, _ = run(capsys, "revert", b, "--then", "dismissed", "--json")
    assert code == 0 and json.loads(out)["status"] == "dismissed"


def test_errors_exit_1_with_message(capsys, memory_home: Path) -> None:  # noqa: ANN001
    code, _, err = run(capsys, "apply", "p-unknown", "--to", "user")
    assert code == 1 and "p-unknown" in err
    code, out, _ = run(capsys, "dismiss", "p-unknown", "--json")
    assert code == 1 and json.loads(out)["error"] == "NotFoundError"
    code, _, err = run(capsys, "knowledge", "status", "--layer", "project")
    assert code == 1 and "pick a project" in err


def test_save_expand_reorganize_settings(
    capsys, memory_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # noqa: ANN001
    text = "## Rules\n- Calendar\n  - Q1 starts in February!!\n## Info\n- GMV 含税\n"
    _, shown, _ = run(capsys, "knowledge", "show", "--json")
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, out, _ = run(
        capsys, "knowledge", "save", "--base", json.loads(shown)["version"], "--json"
    )
    assert code == 0 and json.loads(out)["status"]["rules"] == 1
    code, out, _ = run(capsys, "expand", "Calendar", "Nope", "--json")
    res = json.loads(out)
    assert res["entries"][0]["children"] == ["Q1 starts in February!!"]
    assert res["unknown"] == ["Nope"]
    code, _, err = run(capsys, "expand", "Nope")
    assert code == 1 and "unknown label: Nope" in err
    _, saved, _ = run(capsys, "knowledge", "show")
    code, out, _ = run(capsys, "reorganize", "--json")
    assert Path(json.loads(out)["backup"]).read_text() == saved
    assert json.loads(out)["condensed"][0]["after"] == "Q1 starts in February!"
    code, out, _ = run(capsys, "reorganize")  # nothing left to change: said, nothing written
    assert code == 0 and "Nothing to reorganize" in out
    code, out, _ = run(
        capsys, "settings", "--enabled", "off", "--auto-suggestions", "off", "--json"
    )
    assert json.loads(out)["enabled"] is False and json.loads(out)["auto_suggestions"] is False
    code, out, _ = run(capsys, "context", "--json")
    assert json.loads(out)["context"] == ""
    code, out, _ = run(capsys, "settings")
    assert "enabled: off" in out and "automatic suggestions: off" in out


def test_real_subprocess(memory_home: Path) -> None:
    cmd = [sys.executable, "-m", "jupyter_memory.cli.main"]
    done = subprocess.run(
        [*cmd, "propose", "Always use UTC dates", "--kind", "rule", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = json.loads(done.stdout)["id"]
    subprocess.run([*cmd, "apply", pid, "--to", "user"], capture_output=True, text=True, check=True)
    out = subprocess.run([*cmd, "context"], capture_output=True, text=True, check=True).stdout
    assert "Always use UTC dates" in out


# -- compare-and-swap saves (issue 19 B) ------------------------------------------------

BASE = "## Rules\n\n- Revenue excludes refunds\n\n## Info\n"
MINE = "## Rules\n\n- Revenue excludes refunds\n- Amounts are in EUR\n\n## Info\n"


def save(capsys, monkeypatch, text: str, *argv: str) -> tuple[int, str, str]:  # noqa: ANN001
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    return run(capsys, "knowledge", "save", *argv)


def test_show_json_and_status_carry_the_version(capsys, memory_home: Path) -> None:  # noqa: ANN001
    _, out, _ = run(capsys, "knowledge", "show", "--json")
    assert json.loads(out)["version"] == hashlib.sha256(b"").hexdigest()
    from jupyter_memory import Memory

    with Memory(home=memory_home) as mem:
        mem.save_knowledge("user", BASE)
    version = hashlib.sha256((memory_home / "knowledge.md").read_bytes()).hexdigest()
    _, out, _ = run(capsys, "knowledge", "show", "--json")
    shown = json.loads(out)
    assert shown["version"] == shown["status"]["version"] == version
    _, out, _ = run(capsys, "knowledge", "status")
    assert f"version {version}" in out


def test_save_needs_a_base_or_force(capsys, memory_home: Path, monkeypatch) -> None:  # noqa: ANN001
    from jupyter_memory import Memory

    with Memory(home=memory_home) as mem:
        mem.save_knowledge("user", BASE)
    before = (memory_home / "knowledge.md").read_bytes()
    code, _, err = save(capsys, monkeypatch, MINE)
    assert code == 1 and "--base" in err and "knowledge show --json" in err
    assert (memory_home / "knowledge.md").read_bytes() == before
    code, out, _ = save(capsys, monkeypatch, MINE, "--force", "--json")
    assert code == 0, out
    assert "Amounts are in EUR" in (memory_home / "knowledge.md").read_text(encoding="utf-8")
    with pytest.raises(SystemExit) as info:  # argparse: the two cannot be combined
        save(capsys, monkeypatch, MINE, "--force", "--base", "0" * 64)
    assert info.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_a_stale_save_names_the_file_and_the_current_version(
    capsys, memory_home: Path, monkeypatch
) -> None:  # noqa: ANN001
    from jupyter_memory import Memory

    with Memory(home=memory_home) as mem:
        mem.save_knowledge("user", BASE)
    _, out, _ = run(capsys, "knowledge", "show", "--json")
    opened = json.loads(out)["version"]
    _, out, _ = run(capsys, "propose", "Always label chart axes", "--kind", "rule", "--json")
    run(capsys, "apply", json.loads(out)["id"], "--to", "user")
    after_apply = (memory_home / "knowledge.md").read_bytes()
    current = hashlib.sha256(after_apply).hexdigest()
    code, _, err = save(capsys, monkeypatch, MINE, "--base", opened)
    assert code == 1
    assert str(memory_home / "knowledge.md") in err and "changed" in err
    assert current in err
    assert (memory_home / "knowledge.md").read_bytes() == after_apply
    code, out, _ = save(capsys, monkeypatch, MINE, "--base", opened, "--json")
    data = json.loads(out)
    assert code == 1 and data["error"] == "KnowledgeConflictError"
    assert data["current"] == {"text": after_apply.decode("utf-8"), "version": current}
    assert data["yours"] == {"text": MINE, "base": opened}
    merged = data["current"]["text"].replace("## Info", "- Amounts are in EUR\n\n## Info")
    code, out, _ = save(capsys, monkeypatch, merged, "--base", current)
    assert code == 0, out
    final = (memory_home / "knowledge.md").read_text(encoding="utf-8")
    assert "Always label chart axes" in final and "Amounts are in EUR" in final
