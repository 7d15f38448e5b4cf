"""Queued Knowledge in the panel: Process all by spec 002, and every source's label (issue 13, 18).

Process all has no layer picker: each item goes to the layer it was suggested
for, and an item suggested for Project without one stays in the queue, listed
with "pick a project". A proposal imported by ``jupyter-memory import-from``
shows its source as "from an import".
"""

from __future__ import annotations

from browser_helpers import PANEL, open_panel, queue_item, screenshot


def _propose(mem, text: str, *, layer: str | None = None) -> str:
    result = mem.propose(text, "rule", text, layer=layer, source="manual")
    assert result["status"] == "queued", result
    return str(result["proposal"]["id"])


def test_process_all_applies_each_item_to_its_suggested_layer(page, lab, lab_mem):
    lab_mem.focus(lab.root / "sales-q3")  # the person registers and focuses it
    in_project = _propose(lab_mem, "Region codes are ISO 3166")  # suggested: Project · sales-q3
    user_too = _propose(lab_mem, "收入口径不含退款", layer="user")
    lab_mem.focus(None)
    needs_pick = _propose(lab_mem, "Weeks start on Monday", layer="project")
    line = "- Never commit notebooks with outputs."
    imported = lab_mem.propose(
        "Never commit notebooks with outputs.",
        "rule",
        line,
        source="import",
        messages=[{"role": "user", "text": line}],
    )["proposal"]["id"]

    open_panel(page, lab)
    item = queue_item(page, "Never commit notebooks with outputs.")
    assert item.locator(".jm-source").inner_text() == "from an import"
    assert queue_item(page, "Region codes").locator(".jm-target").inner_text() == (
        "suggested: Project · sales-q3"
    )
    assert page.locator(f"{PANEL} .jm-process-target").count() == 0  # no layer to pick
    page.locator(f"{PANEL} .jm-process-all").click()
    page.locator(".jp-Dialog button.jp-mod-accept").click()  # it asks first (issue 32)
    page.locator(
        ".Toastify__toast", has_text="Saved to User: 2 · to Project: 1 · still in the queue: 1"
    ).wait_for()
    skipped = page.locator(f"{PANEL} .jm-skipped-item")
    assert skipped.count() == 1
    assert skipped.inner_text() == "Weeks start on Monday — pick a project"
    assert skipped.get_attribute("data-id") == needs_pick
    # Only that one is left, with its project picker.
    page.wait_for_selector(f"{PANEL} .jm-queue[data-count='1']")
    queue_item(page, "Weeks start on Monday").locator(".jm-project-select").wait_for()
    screenshot(page, "30-process-all-by-suggested-layer")

    project = lab_mem.knowledge("project", "sales-q3")
    user = lab_mem.knowledge("user")
    assert "Region codes are ISO 3166" in project and "Region codes" not in user
    assert "收入口径不含退款" in user and "收入口径不含退款" not in project
    assert "Never commit notebooks with outputs." in user
    assert "Weeks start on Monday" not in user + project
    assert lab_mem.proposal(in_project).applied_to == "project"
    assert lab_mem.proposal(user_too).applied_to == "user"
    assert lab_mem.proposal(imported).applied_to == "user"
    assert lab_mem.proposal(needs_pick).status == "pending"
    assert not page.js_errors, page.js_errors
