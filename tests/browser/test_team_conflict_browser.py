"""A git merge conflict in a project's knowledge, resolved in the panel (issue 17).

Two branches of a real git clone change the same item; ``git merge`` runs our
merge driver, which leaves both versions in the file. The Project editor shows
them side by side, the person merges both into the editor, keeps one, saves,
and the file is clean and staged, so the merge commits.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from browser_helpers import open_panel, screenshot, show_tab


def _git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    git = shutil.which("git")
    if git is None:
        pytest.fail("the team browser test needs the `git` binary: apt-get install git")
    return subprocess.run(
        [git, "-C", str(repo), *args], capture_output=True, text=True, check=check
    )


def test_a_merge_conflict_is_shown_and_resolved_in_the_project_editor(page, lab, lab_mem):
    folder = lab.root / "team-sales"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "config", "user.name", "Ana")
    _git(folder, "config", "user.email", "ana@example.org")
    lab_mem.project_init(folder)
    base = "## Rules\n\n- Revenue excludes refunds\n- Dates are UTC\n\n## Info\n"
    lab_mem.save_knowledge("project", base, project="team-sales")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "-m", "base")
    _git(folder, "checkout", "-q", "-b", "other")
    other = base.replace("- Revenue excludes refunds", "- Revenue excludes refunds and <b>tax</b>")
    lab_mem.save_knowledge("project", other, project="team-sales")
    _git(folder, "commit", "-q", "-am", "other clone")
    _git(folder, "checkout", "-q", "main")
    mine = base.replace("- Revenue excludes refunds", "- 收入不含退款和运费")
    lab_mem.save_knowledge("project", mine, project="team-sales")
    _git(folder, "commit", "-q", "-am", "this clone")
    merged = _git(folder, "merge", "--no-edit", "other", check=False)
    assert merged.returncode != 0  # the driver reported the conflict
    assert lab_mem.read_knowledge("project", project="team-sales").conflict is not None

    open_panel(page, lab)
    show_tab(page, "project")
    view = page.locator("#jm-knowledge-project")
    view.locator(".jm-project-select").select_option("team-sales")
    page.wait_for_selector("#jm-knowledge-project[data-merge-conflict='true']")
    yours = view.locator(".jm-conflict-mine").inner_text()
    theirs = view.locator(".jm-conflict-theirs").inner_text()
    assert "收入不含退款和运费" in yours and "tax" not in yours
    assert "Revenue excludes refunds and <b>tax</b>" in theirs  # text, never HTML
    assert view.locator(".jm-conflict-theirs b").count() == 0
    assert "git pull merged" in view.locator(".jm-conflict-note").inner_text()
    editor = view.locator("textarea")
    assert "<<<<<<<" not in editor.input_value()  # the last clean version, yours
    assert view.locator(".jm-reorganize").is_disabled()
    screenshot(page, "team-merge-conflict")
    with page.expect_response(
        lambda r: "/jupyter-memory/knowledge/project/merge" in r.url and r.status == 200
    ):
        view.locator(".jm-conflict-merge").click()  # the server merges (issue 28)
    page.wait_for_selector("#jm-knowledge-project .jm-status:has-text('Both versions')")
    both = editor.input_value()
    assert "收入不含退款和运费" in both and "<b>tax</b>" in both and "Dates are UTC" in both
    editor.fill(both.replace("- Revenue excludes refunds and <b>tax</b>\n", ""))
    with page.expect_response(
        lambda r: "/jupyter-memory/knowledge/project" in r.url and r.request.method == "PUT"
    ) as answer:
        view.locator(".jm-save").click()
    assert answer.value.status == 200
    page.wait_for_selector("#jm-knowledge-project[data-merge-conflict='false']")
    assert view.locator(".jm-conflict").is_hidden()
    on_disk = (folder / ".jupyter-memory" / "knowledge.md").read_text(encoding="utf-8")
    assert "<<<<<<<" not in on_disk and "收入不含退款和运费" in on_disk and "tax" not in on_disk
    assert _git(folder, "ls-files", "--unmerged").stdout == ""  # staged by the save
    _git(folder, "commit", "-q", "--no-edit")
    assert lab_mem.read_knowledge("project", project="team-sales").conflict is None
    screenshot(page, "team-merge-resolved")
    assert page.js_errors == []


def test_the_panel_names_a_missing_driver_and_who_proposed(page, lab, lab_mem):
    from browser_helpers import queue_item

    folder = lab.root / "team-ops"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "config", "user.name", "Bo 王")
    _git(folder, "config", "user.email", "bo@example.org")
    lab_mem.project_init(folder)
    lab_mem.hooks.project_settings(folder, shared_queue=True)
    _git(folder, "config", "--unset", "merge.jupyter-memory-knowledge.driver")
    queued = lab_mem.propose("Weekly reports close on Friday", "rule",
                             "Weekly reports close on Friday", layer="project",
                             project="team-ops")  # fmt: skip
    assert (folder / ".jupyter-memory" / "queue").is_dir()
    open_panel(page, lab)
    item = queue_item(page, "Weekly reports close on Friday")
    assert "proposed by Bo 王 <bo@example.org>" in item.locator(".jm-proposed-by").inner_text()
    show_tab(page, "project")
    view = page.locator("#jm-knowledge-project")
    view.locator(".jm-project-select").select_option("team-ops")
    page.wait_for_selector("#jm-knowledge-project[data-team-fix='true']")
    fix = view.locator(".jm-team-fix").inner_text()
    assert f"jupyter-memory project init {folder}" in fix
    assert "shared queue on" in view.locator(".jm-team-info").inner_text()
    screenshot(page, "team-driver-missing")
    lab_mem.project_init(folder)  # the one command, run by the person
    view.locator(".jm-project-select").select_option("")
    view.locator(".jm-project-select").select_option("team-ops")
    page.wait_for_selector("#jm-knowledge-project[data-team-fix='false']")
    lab_mem.dismiss(queued["id"])
    assert page.js_errors == []


def test_knowledge_a_teammate_committed_by_hand_is_shown_in_library_status(page, lab, lab_mem):
    """Issue 29: a hand-committed 600,000-character file reached agents unmentioned."""
    folder = lab.root / "team-big"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "config", "user.name", "Ana")
    _git(folder, "config", "user.email", "ana@example.org")
    lab_mem.project_init(folder)
    rules = "".join(f"- Rule {n}: join orders to customers on the key\n" for n in range(200))
    (folder / ".jupyter-memory" / "knowledge.md").write_text(f"## Rules\n\n{rules}\n## Info\n")
    _git(folder, "add", "-A")
    # A teammate's commit (as it arrives by a pull): no Apply, no save cap.
    _git(folder, "-c", "user.name=Bob", "-c", "user.email=bob@example.org",
         "commit", "-q", "-m", "rules")  # fmt: skip
    chars = len((folder / ".jupyter-memory" / "knowledge.md").read_text())
    open_panel(page, lab)
    show_tab(page, "project")
    view = page.locator("#jm-knowledge-project")
    view.locator(".jm-project-select").select_option("team-big")
    page.wait_for_selector("#jm-knowledge-project[data-arrived='over-cap']")
    shown = view.locator("dd[data-field=arrived]").inner_text()
    assert shown == f"from Bob <bob@example.org>; {chars:,} characters, over the 8,000 cap"
    screenshot(page, "team-knowledge-arrived")
    assert page.js_errors == []
