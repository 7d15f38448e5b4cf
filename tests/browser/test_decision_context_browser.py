"""Context at decision time in the panel (issue 32): what an item may conflict with, and
a contradiction applied in place of the entry it contradicts with one click."""

from __future__ import annotations

from browser_helpers import PANEL, open_panel, queue_item, screenshot


def test_a_queue_item_shows_its_conflict_and_replaces_it_in_one_click(page, lab, lab_mem):
    lab_mem.save_knowledge("user", "## Rules\n- Revenue excludes refunds\n- Use UTC\n## Info\n")
    text = "Revenue includes refunds"
    pid = lab_mem.propose(text, "rule", text, source="manual")["proposal"]["id"]
    north = "North region revenue must exclude test accounts"
    north_id = lab_mem.propose(north, "rule", north, source="manual")["proposal"]["id"]
    south = "South region revenue must exclude test accounts"
    lab_mem.propose(south, "rule", south, source="manual")

    open_panel(page, lab)
    item = queue_item(page, text)
    conflict = item.locator(".jm-neighbour-contradicts")
    assert conflict.inner_text().startswith("May conflict with: “Revenue excludes refunds”")
    # By id: the South item's text shows North too, as its neighbour.
    north_item = page.locator(f"{PANEL} .jm-queue-item[data-id='{north_id}']")
    assert north_item.locator(".jm-neighbour-related").inner_text() == f"Similar to: “{south}”"
    assert north_item.locator(".jm-replace").count() == 0  # nothing to replace
    screenshot(page, "32-queue-item-with-its-conflict")

    conflict.locator(".jm-replace").click()
    page.locator(".Toastify__toast", has_text="Saved to User").wait_for()
    page.wait_for_selector(f"{PANEL} .jm-queue[data-count='2']")
    leaves = [leaf for _, leaf in lab_mem.hooks.knowledge_doc("user").leaves()]
    assert leaves == ["Use UTC", "Revenue includes refunds"]
    assert lab_mem.proposal(pid).status == "applied"
    # the lab (and its audit log) serves the whole browser session: this proposal's line
    (record,) = [
        r
        for r in lab_mem.hooks.audit.records()
        if r["action"] == "proposal.apply" and r.get("id") == pid
    ]
    assert record["replaced"]
    assert not page.js_errors, page.js_errors
