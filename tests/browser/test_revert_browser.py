"""Undo in the lab (issue 32, item 5): a revert from the panel turns the card back, a card
reverts itself, and Process all asks first and is not green when something failed."""

from __future__ import annotations

from browser_helpers import PANEL, cards_notebook, open_panel, queue_item, screenshot, show_tab

from jupyter_memory.core.knowledge.format import Entry, KnowledgeDoc, render_knowledge

CARD = ".jp-OutputArea .jm-card"


def propose(mem, text: str, *, layer: str | None = None, project: str | None = None) -> str:
    result = mem.propose(text, "rule", text, layer=layer, project=project, source="manual")
    assert result["status"] == "queued", result
    return str(result["proposal"]["id"])


def card(page, pid: str):
    return page.locator(f"{CARD}[data-id='{pid}']")


def wait_state(page, pid: str, state: str, timeout: float = 60_000) -> None:
    page.wait_for_selector(f"{CARD}[data-id='{pid}'][data-state='{state}']", timeout=timeout)


def open_panel_in_place(page) -> None:
    if not page.locator(PANEL).is_visible():
        page.locator(".jp-SideBar [data-id='jupyter-memory-panel']").click()
    page.wait_for_selector(f"{PANEL} [data-loaded='true']", state="attached")


def test_a_revert_from_the_panel_turns_the_card_back(page, lab, lab_mem):
    lab_mem.save_knowledge("user", "## Rules\n\n- Always use UTC timestamps\n")
    pid = propose(lab_mem, "Refunds older than 90 days are write-offs")
    other = propose(lab_mem, "Gift cards are liabilities until redeemed")
    lab_mem.apply(pid, to="user")
    lab_mem.apply(other, to="user")
    cards_notebook(lab.root / "revert.ipynb", lab.home, [[pid, other]])
    page.goto(lab.lab_url("lab/tree/revert.ipynb"))
    wait_state(page, pid, "applied")
    assert card(page, pid).locator(".jm-card-outcome").inner_text() == "Saved to User"
    assert card(page, pid).locator(".jm-card-revert").is_visible()
    open_panel_in_place(page)
    row = page.locator(f"{PANEL} .jm-applied-item[data-id='{pid}']")
    row.wait_for()
    row.locator(".jm-revert").click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for()
    assert "Refunds older than 90 days" in dialog.inner_text()
    screenshot(page, "40-revert-dialog")
    dialog.locator("button.jm-revert-pending").click()
    # The card turns back: pending again, its buttons back, saying it was reverted.
    page.wait_for_selector(f"{CARD}[data-id='{pid}'][data-state='pending'][data-reverted='true']")
    assert card(page, pid).locator(".jm-card-reverted").inner_text() == (
        "Reverted · back in the queue"
    )
    assert card(page, pid).locator(".jm-card-user").is_enabled()
    queue_item(page, "Refunds older than 90 days").wait_for()  # back in the panel's queue
    user = lab_mem.knowledge("user")
    assert "Refunds older than 90 days" not in user and "Always use UTC timestamps" in user
    assert lab_mem.proposal(pid).status == "pending"
    actions = [r["action"] for r in lab_mem.hooks.audit.records() if r.get("id") == pid]
    assert actions[-2:] == ["proposal.apply", "proposal.revert"]
    screenshot(page, "41-card-turned-back")

    # The other card reverts itself, and the person chooses to dismiss it.
    card(page, other).locator(".jm-card-revert").click()
    card(page, other).locator(".jm-card-revert-dismiss").click()
    wait_state(page, other, "dismissed")
    assert card(page, other).locator(".jm-card-outcome").inner_text() == "Reverted · dismissed"
    assert "Gift cards" not in lab_mem.knowledge("user")
    assert lab_mem.proposal(other).status == "dismissed"
    assert not page.js_errors, page.js_errors


def test_process_all_asks_first_and_its_summary_with_a_failure_is_not_green(page, lab, lab_mem):
    lab_mem.focus(lab.root / "sales-q3")
    lab_mem.focus(None)
    # A User file with no room left: every Apply to it fails the same way.
    filler = [Entry(f"Rule {i:03d} " + "x" * 60) for i in range(110)]
    room = 7_990 - len(render_knowledge(KnowledgeDoc(tuple(filler), ())))
    filler.append(Entry("pad " + "y" * room))
    lab_mem.save_knowledge("user", render_knowledge(KnowledgeDoc(tuple(filler), ())))
    for text in ("Net price excludes sales tax", "Headcount is taken on the last working day"):
        propose(lab_mem, text, layer="user")
    propose(lab_mem, "Royalties accrue monthly", layer="user")
    in_project = propose(lab_mem, "Region codes follow ISO 3166", project="sales-q3")

    open_panel(page, lab)
    page.wait_for_selector(f"{PANEL} .jm-queue[data-count='4']")
    page.locator(f"{PANEL} .jm-process-all").click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for()
    lines = dialog.locator(".jm-plan-line").all_inner_texts()
    assert lines == ["User: 3", "Project · sales-q3: 1"]
    assert "Apply 4 proposal(s)" in dialog.inner_text()
    screenshot(page, "42-process-all-confirm")
    dialog.locator("button.jp-mod-reject").click()  # Cancel: nothing happens
    dialog.wait_for(state="detached")
    assert len(lab_mem.queue()) == 4

    page.locator(f"{PANEL} .jm-process-all").click()
    page.locator(".jp-Dialog button.jp-mod-accept").click()
    toast = page.locator(".Toastify__toast", has_text="Saved to User: 0 · to Project: 1")
    toast.wait_for()
    assert "not applied: 3" in toast.inner_text()
    assert page.locator(".Toastify__toast--success", has_text="Saved to User:").count() == 0
    page.wait_for_selector(f"{PANEL} .jm-queue[data-processed='failed']")
    failures = page.locator(f"{PANEL} .jm-failure-item")
    assert failures.count() == 1  # one reason, said once, with how many it stopped
    assert failures.get_attribute("data-count") == "3"
    assert "save limit" in failures.inner_text()
    assert lab_mem.proposal(in_project).status == "applied"
    screenshot(page, "43-process-all-failure-summary")
    assert not page.js_errors, page.js_errors


def test_the_over_cap_editor_reorganizes_the_unsaved_text_and_shows_the_diff(page, lab, lab_mem):
    lab_mem.save_knowledge("user", "## Rules\n\n- Always use UTC timestamps\n")
    saved = (lab.home / "knowledge.md").read_bytes()
    open_panel(page, lab)
    show_tab(page, "user")
    view = page.locator("#jm-knowledge-user")
    editor = view.locator("textarea")
    editor.wait_for()
    rules = [f"Note that the t{i} table is refreshed at {i % 24}:00 UTC" for i in range(160)]
    rules += [f"note that the t{i} table is refreshed at {i % 24}:00 utc!!" for i in range(40)]
    big = "## Rules\n\n" + "".join(f"- {r}\n" for r in rules)
    assert len(big) > 8000
    editor.fill(big)
    view.locator(".jm-save").click()
    view.locator(".jm-status[data-tone='error']").wait_for()  # over the save limit
    assert view.locator(".jm-reorganize").is_enabled()  # a path that works
    view.locator(".jm-reorganize").click()
    preview = view.locator(".jm-preview")
    preview.wait_for()
    assert "40 duplicate(s) merged" in preview.locator(".jm-preview-note").inner_text()
    assert "160 of 200 entries kept" in preview.locator(".jm-preview-note").inner_text()
    assert view.locator(".jm-diff-del").count() >= 200 and view.locator(".jm-diff-add").count()
    assert view.locator(".jm-preview-merge").count() == 40
    assert (lab.home / "knowledge.md").read_bytes() == saved  # nothing saved yet
    screenshot(page, "44-reorganize-unsaved-diff")
    view.locator(".jm-preview-use").click()
    assert len(editor.input_value()) < 8000
    view.locator(".jm-save").click()
    view.locator(".jm-status[data-tone='ok']").wait_for()
    doc = lab_mem.hooks.knowledge_doc("user")
    assert len(doc.leaves()) == 160
    # One limit per purpose, each saying what it is for.
    limit = view.locator("dd[data-field=save-limit]").inner_text()
    budget = view.locator("dd[data-field=budget]").inner_text()
    assert limit.startswith("8000 characters") and "refused" in limit
    assert budget.startswith("6000 characters") and "agent" in budget
    assert not page.js_errors, page.js_errors
