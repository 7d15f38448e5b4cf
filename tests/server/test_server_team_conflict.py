"""REST over a project knowledge file git left conflicted (issue 17): both sides, then resolved."""

from __future__ import annotations

from pathlib import Path

from tests.team.gitrepo import git, require_git


async def test_get_shows_both_sides_and_a_put_resolves_and_stages(api, server_memory, tmp_path):
    require_git()
    folder: Path = tmp_path / "team-sales"
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.name", "Ana")
    git(folder, "config", "user.email", "ana@example.org")
    server_memory.project_init(folder)
    base = "## Rules\n\n- Revenue excludes refunds\n\n## Info\n"
    server_memory.save_knowledge("project", base, project="team-sales")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "base")
    git(folder, "checkout", "-q", "-b", "other")
    server_memory.save_knowledge("project", base.replace("refunds", "refunds and tax"),
                                 project="team-sales")  # fmt: skip
    git(folder, "commit", "-q", "-am", "other")
    git(folder, "checkout", "-q", "main")
    server_memory.save_knowledge("project", base.replace("refunds", "退款和运费"),
                                 project="team-sales")  # fmt: skip
    git(folder, "commit", "-q", "-am", "mine")
    assert git(folder, "merge", "--no-edit", "other", check=False).returncode != 0
    code, data = await api("GET", "knowledge", "project", params={"project": "team-sales"})
    assert code == 200, data
    assert data["status"]["conflicted"] is True
    assert "退款和运费" in data["conflict"]["ours"] and "tax" in data["conflict"]["theirs"]
    code, saved = await api(
        "PUT", "knowledge", "project", params={"project": "team-sales"},
        body={"text": data["conflict"]["theirs"], "base": data["version"]},
    )  # fmt: skip
    assert code == 200, saved
    assert saved["conflict"] is None and saved["status"]["conflicted"] is False
    assert git(folder, "ls-files", "--unmerged").stdout == ""
    records = [r for r in server_memory.hooks.audit.records() if r["action"] == "knowledge.save"]
    assert records[-1]["resolved"] is True and records[-1]["by"] == "Ana <ana@example.org>"
