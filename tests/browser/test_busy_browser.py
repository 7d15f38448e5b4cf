"""The panel when a route is busy (issue 27): it says what holds it, and asks again.

Another process holds the memory home's lock while the person clicks Apply to
User: the server answers ``503 busy`` at its deadline, the panel shows "Busy:
home lock …, retrying…" and asks again after ``retry_after``; once the lock is
free the Apply goes through and the item leaves the queue.
"""

from __future__ import annotations

from browser_helpers import open_panel, queue_item, screenshot

from tests.lock_holder import Holder


def test_a_busy_apply_says_what_holds_it_then_goes_through(page, lab, lab_mem):
    result = lab_mem.propose(
        "Freight belongs to cost of goods sold",
        "rule",
        "Freight belongs to cost of goods sold",
        source="manual",
    )
    proposal = result["proposal"]["id"]
    open_panel(page, lab)
    item = queue_item(page, "Freight belongs to cost of goods sold")
    item.wait_for()
    holder = Holder(lab.home / ".jupyter-memory.lock", most=60.0)
    try:
        item.locator(".jm-apply-user").click()
        notice = page.locator(".Toastify__toast", has_text="Busy: home lock")
        notice.wait_for()
        assert str(lab.home) in notice.inner_text()
        screenshot(page, "busy-retrying")
        assert holder.still_holding()
        assert lab_mem.proposal(proposal).status == "pending"
    finally:
        holder.release()
    item.wait_for(state="detached")
    assert lab_mem.proposal(proposal).status == "applied"
    assert page.js_errors == []
