"""``jupyter-memory`` knowledge commands, in-process and as a real subprocess."""

from __future__ import annotations

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
    code, out, _ = run(capsys, "dismiss", a)
    assert code == 0 and out.strip() == "dismissed"
    code, out, _ = run(capsys, "process-all", "--to", "project", "--json")
    assert json.loads(out)["skipped"][0]["reason"] == "pick a project"
    code, out, _ = run(
        capsys, "process-all", "--to", "project", "--project", str(project_dir), "--json"
    )
    assert [x["id"] for x in json.loads(out)["applied"]] == [b]
    code, out, _ = run(
        capsys, "knowledge", "status", "--layer", "project", "--project", str(project_dir)
    )
    assert "Info 1" in out and "sales-q3" in out


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
    text = "## Rules\n- Calendar\n  - Q1 starts in February\n## Info\n- GMV 含税\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, out, _ = run(capsys, "knowledge", "save", "--json")
    assert code == 0 and json.loads(out)["status"]["rules"] == 1
    code, out, _ = run(capsys, "expand", "Calendar", "Nope", "--json")
    res = json.loads(out)
    assert res["entries"][0]["children"] == ["Q1 starts in February"] and res["unknown"] == ["Nope"]
    code, _, err = run(capsys, "expand", "Nope")
    assert code == 1 and "unknown label: Nope" in err
    _, saved, _ = run(capsys, "knowledge", "show")
    code, out, _ = run(capsys, "reorganize", "--json")
    assert Path(json.loads(out)["backup"]).read_text() == saved
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
