"""A home with 5,000 pending proposals in the panel (issue 16): one page, "Show more", no freeze.

The queue used to be drawn whole: 5,000 items at once. Now the panel draws a
page of 100 and the count of all of them, and "Show more" adds the next page.
Measured in Chromium: the render after the API answered, and every main-thread
task while the person pages through and applies an item (PerformanceObserver
``longtask``) — none may pass 200 ms. The memory search pages its hits the same
way. Figures go to test-output/browser/figures-large-queue.json.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from browser_helpers import (
    OUTPUT,
    PANEL,
    open_panel,
    screenshot,
    show_more,
    show_tab,
)

from tests.server.queue_seed import seed_pending

N = 5_000
FREEZE_MS = 200  # a long task longer than this freezes the page (a figure, not asserted)

WATCH_LONG_TASKS = """() => {
  window.__jmLongTasks = [];
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) window.__jmLongTasks.push(Math.round(e.duration));
  }).observe({ type: 'longtask' });
}"""


def test_5000_pending_render_one_page_and_page_on(page, lab, lab_mem):
    seed_pending(lab.home, N)
    try:
        _page_through(page, lab)
    finally:
        # The next test's lab_mem would dismiss them one by one: remove the seeded files.
        for f in (lab.home / "queue").glob("*p-seed*.md"):
            f.unlink()


def _show_more(page, more, shown: int) -> None:
    show_more(page, more, "/jupyter-memory/queue?offset=", f"#jm-queue[data-shown='{shown}']")


def _page_through(page, lab) -> None:
    # The server's first listing reads and analyses all 5,000 (~3 CPU-s quiet, tens of
    # seconds on a loaded machine): the panel's load waits for it, as the count does below.
    # Four minutes: at load 10-12 (CI beside the integration venvs' builds and other
    # workers) two were not always enough (stops 38 and 40). A bound, not a speed check.
    open_panel(page, lab, timeout=240_000)
    page.wait_for_selector(f"#jm-queue[data-count='{N}']", timeout=240_000)
    page.wait_for_selector("#jm-queue[data-render-ms]", state="attached")
    render_ms = int(page.locator("#jm-queue").get_attribute("data-render-ms"))
    items = page.locator("#jm-queue .jm-queue-item")
    # 100 loaded, only those near the view drawn (the list is windowed, issue 31).
    assert page.locator("#jm-queue").get_attribute("data-shown") == "100"
    assert 0 < items.count() < 100
    assert page.locator(f"{PANEL} .jm-queue-badge").inner_text() == str(N)
    status = page.locator("#jm-queue .jm-status").inner_text()
    assert status == f"{N} pending · 100 shown", status
    more = page.locator("#jm-queue .jm-queue-more")
    assert more.is_visible() and f"({N - 100} not shown)" in more.inner_text()
    screenshot(page, "16-5000-pending")

    page.evaluate(WATCH_LONG_TASKS)
    # Each page's items come with their neighbours among all 5,000 (seconds of the
    # server's CPU on a busy machine): a minute, as the first listing.
    _show_more(page, more, 200)
    _show_more(page, more, 300)
    # The count follows what is shown (never a stale "first 100").
    assert page.locator("#jm-queue .jm-status").inner_text() == f"{N} pending · 300 shown"
    drawn_of_300 = items.count()
    assert 0 < drawn_of_300 < 100  # still windowed
    # Scrolled to the end, the last loaded item is drawn: oldest first, in order.
    page.locator(".jm-stack").evaluate("s => { s.scrollTop = s.scrollHeight; }")
    page.locator("#jm-queue .jm-queue-item[data-id='p-seed00299']").wait_for()
    page.locator(".jm-stack").evaluate("s => { s.scrollTop = 0; }")
    page.locator("#jm-queue .jm-queue-item[data-id='p-seed00000']").wait_for()
    # Apply one: the change event redraws the list, keeping the 300 shown.
    before = int(page.locator(PANEL).get_attribute("data-refreshes") or "0")
    items.nth(0).locator(".jm-apply-user").click()
    page.wait_for_function(
        "([sel, n]) => Number(document.querySelector(sel)?.dataset.refreshes || 0) > n",
        arg=[PANEL, before],
    )
    page.wait_for_selector(f"#jm-queue[data-count='{N - 1}']")
    assert page.locator("#jm-queue").get_attribute("data-shown") == "300"
    long_tasks = page.evaluate("() => window.__jmLongTasks")
    figures = {
        "pending": N,
        "first_paint_ms": render_ms,
        "long_tasks_ms_while_paging_and_applying": long_tasks,
        "items_in_the_page_of_300_loaded": drawn_of_300,
    }
    OUTPUT.mkdir(parents=True, exist_ok=True)
    (OUTPUT / "figures-large-queue.json").write_text(json.dumps(figures), encoding="utf-8")
    # The figures (first paint, long tasks against FREEZE_MS) are benchmarks/panel_bench.py's
    # to judge: a test asserts no time.
    assert page.js_errors == []


def test_memory_search_pages_with_more(page, lab, lab_mem):
    now = datetime.now(timezone.utc)
    for i in range(45):
        lab_mem.remember(f"退款 refunds note {i}", created=now - timedelta(minutes=i))
    open_panel(page, lab)
    show_tab(page, "memories")
    page.locator("#jm-memories .jm-search").fill("refunds")
    page.locator("#jm-memories .jm-search").press("Enter")
    hits = page.locator("#jm-memories .jm-hit")
    page.wait_for_function("() => document.querySelectorAll('#jm-memories .jm-hit').length === 20")
    more = page.locator("#jm-memories .jm-memories-more")
    assert more.is_visible()
    more.click()
    page.wait_for_function("() => document.querySelectorAll('#jm-memories .jm-hit').length === 40")
    more.click()
    page.wait_for_function("() => document.querySelectorAll('#jm-memories .jm-hit').length === 45")
    assert more.is_hidden()
    ids = [hits.nth(i).get_attribute("data-id") for i in range(45)]
    assert len(set(ids)) == 45
    assert "45 found" in page.locator("#jm-memories .jm-status").inner_text()
    assert page.js_errors == []
