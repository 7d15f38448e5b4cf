"""%memory status in a team project: clone, who decides, a missing driver, a merge conflict."""

from __future__ import annotations

from pathlib import Path

from tests.team.gitrepo import git, require_git, write_unmerged


def test_status_names_the_clone_the_person_and_a_conflict(ip, magics, tmp_path: Path) -> None:
    require_git()
    folder = tmp_path / "sales"
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.name", "Ana Lyst")
    git(folder, "config", "user.email", "ana@example.org")
    magics.service.project_init(folder)
    ip.run_line_magic("memory", f"focus {folder}")
    status = str(ip.run_line_magic("memory", "status"))
    assert f"git clone {folder}" in status and "Ana Lyst <ana@example.org>" in status
    assert "MISSING" not in status and "CONFLICT" not in status
    git(folder, "config", "--unset", "merge.jupyter-memory-knowledge.driver")
    conflicted = (
        "## Rules\n\n<<<<<<< ours\n- 收入不含退款\n=======\n- 收入不含退款和税\n>>>>>>> theirs\n"
    )
    write_unmerged(folder, ".jupyter-memory/knowledge.md", conflicted,
                   "## Rules\n\n- 收入不含退款\n", "## Rules\n\n- 收入不含退款和税\n")  # fmt: skip
    status = str(ip.run_line_magic("memory", "status"))
    assert f"run `jupyter-memory project init {folder}`" in status
    assert "CONFLICT:" in status and "line 3" in status
