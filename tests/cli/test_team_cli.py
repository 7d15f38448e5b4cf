"""``jupyter-memory project init``, ``log``, ``knowledge resolve``, ``settings --project``
and the merge drivers as git calls them (issue 17), in a real git repository."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_memory.cli.main import main
from tests.team.gitrepo import git, require_git, write_unmerged


def run(capsys, *argv: str) -> tuple[int, str, str]:  # noqa: ANN001
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    require_git()
    folder = tmp_path / "销售分析"
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.name", "Li Lei")
    git(folder, "config", "user.email", "li@example.org")
    return folder


def test_project_init_log_and_settings(capsys, repo: Path) -> None:  # noqa: ANN001
    code, out, _ = run(capsys, "project", "init", str(repo))
    assert code == 0 and "registered git merge driver jupyter-memory-knowledge" in out
    code, out, _ = run(capsys, "project", "init", str(repo), "--json")
    assert json.loads(out)["status"]["fix"] is None
    code, out, _ = run(capsys, "settings", "--project", str(repo), "--shared-queue", "on")
    assert code == 0 and "shared review queue on" in out
    assert json.loads((repo / ".jupyter-memory" / "project.json").read_text())["shared_queue"]
    code, out, _ = run(capsys, "propose", "收入不含退款", "--kind", "rule", "--layer", "project",
                       "--project", str(repo), "--json")  # fmt: skip
    pid = json.loads(out)["id"]
    run(capsys, "apply", pid, "--to", "project", "--project", str(repo))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "rule")
    code, out, _ = run(capsys, "log", "--project", str(repo), "--json")
    rows = json.loads(out)
    added = [r for r in rows if r["change"] == "added"]
    assert added[0]["item"] == "收入不含退款" and added[0]["by"] == "Li Lei <li@example.org>"
    assert added[0]["proposal"] == pid and added[0]["commit"]
    code, out, _ = run(capsys, "log", "--project", str(repo))
    assert "Li Lei <li@example.org>  added      收入不含退款" in out
    assert "evidence: “收入不含退款”" in out
    code, out, _ = run(capsys, "doctor", "--project", str(repo))
    assert code == 0
    assert "note: project 销售分析: local storage" in out and "lock: fcntl" in out
    code, out, _ = run(capsys, "doctor", "--project", str(repo), "--json")
    assert any("local storage" in n for n in json.loads(out)["notices"])


def test_knowledge_resolve_from_stdin_and_take(capsys, monkeypatch, repo: Path) -> None:  # noqa: ANN001
    run(capsys, "project", "init", str(repo))
    knowledge = repo / ".jupyter-memory" / "knowledge.md"
    write_unmerged(repo, ".jupyter-memory/knowledge.md",
                   "## Rules\n\n<<<<<<< ours\n- a\n=======\n- b\n>>>>>>> theirs\n- c\n",
                   "## Rules\n\n- a\n- c\n", "## Rules\n\n- b\n- c\n")  # fmt: skip
    code, out, err = run(capsys, "doctor", "--project", str(repo))
    assert code == 1 and "knowledge-conflict" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("## Rules\n\n- a and b\n- c\n\n## Info\n"))
    code, out, err = run(capsys, "knowledge", "resolve", "--layer", "project",
                         "--project", str(repo))  # fmt: skip
    assert code == 0, err
    assert knowledge.read_text(encoding="utf-8").startswith("## Rules\n\n- a and b\n- c\n")
    code, out, err = run(capsys, "knowledge", "resolve", "--layer", "project",
                         "--project", str(repo), "--take", "ours")  # fmt: skip
    assert code == 1 and "no merge conflict to resolve" in err


def test_the_driver_commands_follow_gits_contract(tmp_path: Path) -> None:
    cli = Path(sys.executable).parent / "jupyter-memory"
    base, ours, theirs = (tmp_path / n for n in ("O", "A", "B"))
    base.write_text("## Rules\n\n- keep\n\n## Info\n", encoding="utf-8")
    ours.write_text("## Rules\n\n- keep\n- mine\n\n## Info\n", encoding="utf-8")
    theirs.write_text("## Rules\n\n- keep\n\n## Info\n\n- 他们的\n", encoding="utf-8")
    argv = [str(cli), "merge-knowledge", str(base), str(ours), str(theirs), "knowledge.md"]
    assert subprocess.run(argv, check=False).returncode == 0
    assert ours.read_text(encoding="utf-8") == "## Rules\n\n- keep\n- mine\n\n## Info\n\n- 他们的\n"
    ours.write_text("## Rules\n\n- keep it\n\n## Info\n", encoding="utf-8")
    theirs.write_text("## Rules\n\n- keep them\n\n## Info\n", encoding="utf-8")
    done = subprocess.run(argv, check=False, capture_output=True, text=True)
    assert done.returncode == 1 and "changed on both sides" in done.stderr
    assert "<<<<<<< ours" in ours.read_text(encoding="utf-8")
