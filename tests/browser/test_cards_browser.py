"""Proposal cards in notebooks, rendered by the lab extension from the live queue (issue 15,
issue 13 defect 7): in the card, after a decision anywhere else, after a page reload and a
kernel restart, and 20 of them at once."""

from __future__ import annotations

import json
import time
import urllib.request

import nbformat
from browser_helpers import (
    PANEL,
    cards_notebook,
    open_panel,
    queue_item,
    run_command,
    run_notebook,
    save_notebook,
    screenshot,
    wait_idle_after_run,
    wait_lab_loaded,
    write_notebook,
)

CARD = ".jp-OutputArea .jm-card"
RULES = [
    "Gift cards are liabilities until redeemed",
    "Active users need one session per week",
    "Net price excludes sales tax",
    "Join orders to customers on customer_id",
    "Weekends are excluded from lead time",
    "Vouchers count as discounts, not payments",
    "Freight costs belong to cost of goods sold",
    "Headcount is taken on the last working day",
    "Backlog excludes cancelled purchase orders",
    "Quota attainment uses booked, not billed, amounts",
    "Inventory is valued first in, first out",
    "Shrinkage is reported per warehouse",
    "Royalties accrue monthly",
    "Escrow balances are never netted against cash",
    "口径：毛利按含税收入计算",
    "Discounts are shown as negative lines",
    "Test accounts are excluded from every metric",
    "Currency conversion uses the month-end rate",
    "Returns older than a year are written off",
    "Pipeline stages come from the CRM export only",
]
NO_WIDGET_ERRORS = "() => !document.body.innerText.includes('Error displaying widget')"


def propose(mem, text: str, *, project: str | None = None) -> str:
    layer = "project" if project else None
    result = mem.propose(text, "rule", text, layer=layer, project=project, source="manual")
    assert result["status"] == "queued", result
    return str(result["proposal"]["id"])


def known_project(lab, mem) -> str:
    pid = mem.focus(lab.root / "sales-q3")
    mem.focus(None)
    return str(pid)


def card(page, pid: str):
    return page.locator(f"{CARD}[data-id='{pid}']")


def wait_state(page, pid: str, state: str, timeout: float = 60_000) -> None:
    page.wait_for_selector(f"{CARD}[data-id='{pid}'][data-state='{state}']", timeout=timeout)


def open_notebook(page, lab, name: str) -> None:
    page.goto(lab.lab_url(f"lab/tree/{name}"))
    wait_lab_loaded(page)


def rest(lab, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"{lab.url}/{path}",
        method=method,
        data=json.dumps(body or {}).encode() if method != "GET" else None,
        headers={"Authorization": f"token {lab.token}"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        raw = response.read()
    return json.loads(raw) if raw else {}


def timed(action, wait) -> float:
    started = time.monotonic()
    action()
    wait()
    return time.monotonic() - started


def test_a_card_from_the_kernel_applies_in_the_card_and_the_panel_follows(page, lab, lab_mem):
    project = known_project(lab, lab_mem)
    pid = propose(lab_mem, "Region codes follow ISO 3166", project=project)
    write_notebook(lab.root / "card-apply.ipynb", ["%load_ext jupyter_memory", "%memory queue"])
    run_notebook(page, lab, "card-apply.ipynb")
    wait_state(page, pid, "pending", timeout=60_000)
    item = queue_item(page, "Region codes follow ISO 3166")
    item.wait_for()
    assert card(page, pid).locator(".jm-card-text").inner_text() == "Region codes follow ISO 3166"
    screenshot(page, "30-card-pending")
    card(page, pid).locator(".jm-card-project").click()  # through REST, not the kernel
    wait_state(page, pid, "applied")
    assert card(page, pid).locator(".jm-card-outcome").inner_text() == (
        "Saved to Project · sales-q3"
    )
    item.wait_for(state="detached")  # the panel heard of it
    knowledge = lab.root / "sales-q3" / ".jupyter-memory" / "knowledge.md"
    assert "Region codes follow ISO 3166" in knowledge.read_text(encoding="utf-8")
    assert lab_mem.proposal(pid).status == "applied"
    screenshot(page, "31-card-applied")
    assert not page.js_errors, page.js_errors


def test_decisions_in_the_panel_the_cli_and_rest_reach_the_card(page, lab, lab_mem):
    by_panel = propose(lab_mem, "Weeks start on Monday")
    by_cli = propose(lab_mem, "口径：收入不含退款")
    by_rest = propose(lab_mem, "Always use UTC timestamps")
    cards_notebook(lab.root / "card-sync.ipynb", lab.home, [[by_panel, by_cli], [by_rest]])
    open_notebook(page, lab, "card-sync.ipynb")
    for pid in (by_panel, by_cli, by_rest):
        wait_state(page, pid, "pending")
    open_panel_in_place(page)

    panel_s = timed(
        lambda: queue_item(page, "Weeks start on Monday").locator(".jm-apply-user").click(),
        lambda: wait_state(page, by_panel, "applied"),
    )
    assert card(page, by_panel).locator(".jm-card-outcome").inner_text() == "Saved to User"
    cli_s = timed(
        lambda: lab_mem.dismiss(by_cli),  # another process: noticed by the server's watcher
        lambda: wait_state(page, by_cli, "dismissed"),
    )
    assert card(page, by_cli).locator(".jm-card-outcome").inner_text() == "Dismissed"
    rest_s = timed(
        lambda: rest(
            lab, "POST", f"jupyter-memory/queue/{by_rest}/apply", {"to": "user", "project": None}
        ),
        lambda: wait_state(page, by_rest, "applied"),
    )
    # Figures only (benchmarks/card_sync_bench.py measures them): a test asserts no time.
    print(f"card sync: panel {panel_s:.2f} s, CLI {cli_s:.2f} s, REST {rest_s:.2f} s")
    screenshot(page, "32-cards-follow-decisions")
    assert not page.js_errors, page.js_errors


def open_panel_in_place(page) -> None:
    if not page.locator(PANEL).is_visible():
        page.locator(".jp-SideBar [data-id='jupyter-memory-panel']").click()
    page.wait_for_selector(f"{PANEL} [data-loaded='true']", state="attached")


def test_a_click_on_a_card_decided_elsewhere_says_so_and_writes_nothing(page, lab, lab_mem):
    pid = propose(lab_mem, "Never join orders on email")
    cards_notebook(lab.root / "card-stale.ipynb", lab.home, [[pid], [pid]])
    open_notebook(page, lab, "card-stale.ipynb")
    page.wait_for_function(
        "(pid) => document.querySelectorAll(`.jm-card[data-id='${pid}'][data-state='pending']`)"
        ".length === 2",
        arg=pid,
    )
    # Dismissed elsewhere, and this card's Apply sent before the news arrives.
    page.evaluate(
        """async ([pid, token]) => {
            await fetch(`/jupyter-memory/queue/${pid}/dismiss`, {
                method: 'POST', body: '{}', headers: {Authorization: `token ${token}`}
            });
            document.querySelector(`.jm-card[data-id='${pid}'] .jm-card-user`).click();
        }""",
        [pid, lab.token],
    )
    first, second = card(page, pid).nth(0), card(page, pid).nth(1)
    page.wait_for_selector(f"{CARD}[data-id='{pid}'][data-state='decided-elsewhere']")
    assert first.locator(".jm-card-outcome").inner_text() == "Already dismissed elsewhere"
    assert first.locator(".jm-card-note").inner_text() == "Nothing was written."
    wait_state(page, pid, "dismissed")  # the other card of the same proposal
    assert second.locator(".jm-card-outcome").inner_text() == "Dismissed"
    assert "Never join orders" not in lab_mem.knowledge("user")
    assert lab_mem.proposal(pid).status == "dismissed"
    assert not page.js_errors, page.js_errors


def test_the_panel_shows_an_already_decided_answer_as_information(page, lab, lab_mem):
    pid = propose(lab_mem, "Fiscal quarters start in February")
    open_panel(page, lab)
    item = queue_item(page, "Fiscal quarters start in February")
    item.wait_for()
    # Applied elsewhere; the panel's Dismiss goes out before its refresh drops the item.
    page.evaluate(
        """async ([pid, token]) => {
            await fetch(`/jupyter-memory/queue/${pid}/apply`, {
                method: 'POST', body: JSON.stringify({to: 'user'}),
                headers: {Authorization: `token ${token}`}
            });
            document.querySelector(`.jm-queue-item[data-id='${pid}'] .jm-dismiss`).click();
        }""",
        [pid, lab.token],
    )
    toast = page.locator(".Toastify__toast", has_text="Already saved elsewhere · User")
    toast.wait_for()
    assert page.locator(".Toastify__toast--error").count() == 0
    assert page.locator(f"{PANEL} .jm-status[data-tone='error']").count() == 0
    item.wait_for(state="detached")
    assert lab_mem.proposal(pid).status == "applied"
    screenshot(page, "33-panel-already-decided-info")
    assert not page.js_errors, page.js_errors


def test_cards_after_a_page_reload_and_a_kernel_restart(page, lab, lab_mem):
    decided = propose(lab_mem, "Revenue always excludes refunds")
    pending = propose(lab_mem, "Churn is 90 days without an order")
    write_notebook(lab.root / "card-reload.ipynb", ["%load_ext jupyter_memory", "%memory queue"])
    run_notebook(page, lab, "card-reload.ipynb")
    wait_idle_after_run(page)
    wait_state(page, pending, "pending", timeout=60_000)
    card(page, decided).locator(".jm-card-user").click()
    wait_state(page, decided, "applied")
    save_notebook(page)
    saved = lab.root / "card-reload.ipynb"
    outputs = nbformat.read(saved, as_version=4).cells[1].outputs
    assert "application/vnd.jupyter-memory.proposal+json" in outputs[0]["data"]

    page.reload()
    wait_state(page, decided, "applied")
    wait_state(page, pending, "pending")
    assert card(page, decided).locator(".jm-card-outcome").inner_text() == "Saved to User"
    page.wait_for_function(NO_WIDGET_ERRORS)
    screenshot(page, "34-cards-after-reload")

    sessions = rest(lab, "GET", "api/sessions")
    (kernel,) = [s["kernel"]["id"] for s in sessions if s["path"].endswith("card-reload.ipynb")]
    rest(lab, "POST", f"api/kernels/{kernel}/restart")
    page.reload()  # the restarted kernel knows nothing of the cards; they need none of it
    wait_state(page, pending, "pending")
    card(page, pending).locator(".jm-card-dismiss").click()
    wait_state(page, pending, "dismissed")
    assert lab_mem.proposal(pending).status == "dismissed"
    page.wait_for_function(NO_WIDGET_ERRORS)
    screenshot(page, "35-cards-after-kernel-restart")
    assert not page.js_errors, page.js_errors


def test_twenty_cards_render_live_after_a_reload(page, lab, lab_mem):
    # Distinct rules (near-duplicates would supersede each other in the queue).
    ids = [propose(lab_mem, rule) for rule in RULES]
    for pid in ids[:10]:
        lab_mem.apply(pid, to="user")
    cards_notebook(lab.root / "cards-20.ipynb", lab.home, [[pid] for pid in ids])
    open_notebook(page, lab, "cards-20.ipynb")
    page.wait_for_function("() => document.querySelectorAll('.jm-card[data-live]').length === 20")
    save_notebook(page)  # the kernel's language_info made it dirty; a reload would ask first
    page.reload()
    page.wait_for_function("() => document.querySelectorAll('.jm-cards[data-live]').length === 20")
    times = page.evaluate(
        "() => [...document.querySelectorAll('.jm-cards')].map(n => Number(n.dataset.renderMs))"
    )
    assert len(times) == 20
    assert page.locator(f"{CARD}[data-state='applied']").count() == 10
    assert page.locator(f"{CARD}[data-state='pending']").count() == 10
    # The render times are a figure (benchmarks/card_sync_bench.py measures them), not a
    # pass mark: a wall-time bound failed on a loaded machine (1010 ms under make test's
    # workers) with nothing wrong in what the page showed.
    print(f"20 cards after reload: slowest {max(times)} ms, median {sorted(times)[10]} ms")
    screenshot(page, "36-twenty-cards")
    # Cleared outputs stop being followed: nothing outlives its output on the page.
    assert page.evaluate("() => document.body.dataset.jmCards") == "20"
    run_command(page, "notebook:clear-all-cell-outputs")
    page.wait_for_function("() => document.body.dataset.jmCards === '0'")
    assert not page.js_errors, page.js_errors


def test_cards_work_with_no_kernel_at_all(page, lab, lab_mem):
    pid = propose(lab_mem, "Exchange rates come from the treasury feed")
    path = lab.root / "card-no-kernel.ipynb"
    cards_notebook(path, lab.home, [[pid]])
    nb = nbformat.read(path, as_version=4)
    del nb.metadata["kernelspec"]  # no kernel named: the lab asks, and the person picks none
    nbformat.write(nb, path)
    open_notebook(page, lab, "card-no-kernel.ipynb")
    page.locator(".jp-Dialog button", has_text="No Kernel").click()
    page.locator(".jp-Toolbar-kernelName", has_text="No Kernel").wait_for()
    wait_state(page, pid, "pending")
    card(page, pid).locator(".jm-card-dismiss").click()
    wait_state(page, pid, "dismissed")
    assert lab_mem.proposal(pid).status == "dismissed"
    sessions = rest(lab, "GET", "api/sessions")
    assert not [s for s in sessions if s["path"].endswith("card-no-kernel.ipynb")]
    screenshot(page, "37-card-with-no-kernel")
    assert not page.js_errors, page.js_errors


def test_after_a_decision_from_the_keyboard_the_focus_goes_on(page, lab, lab_mem):
    first = propose(lab_mem, "Refund ids are never reused")
    second = propose(lab_mem, "Order dates are stored in UTC")
    write_notebook(lab.root / "card-focus.ipynb", ["%load_ext jupyter_memory", "%memory queue"])
    run_notebook(page, lab, "card-focus.ipynb")
    wait_state(page, first, "pending", timeout=60_000)
    wait_state(page, second, "pending")
    card(page, first).locator(".jm-card-user").focus()
    page.keyboard.press("Enter")
    wait_state(page, first, "applied")
    # Not the page body: the next card's first button has the focus.
    page.wait_for_function(
        "id => document.activeElement?.closest('.jm-card')?.dataset.id === id", arg=second
    )
    card(page, second).locator(".jm-card-dismiss").focus()
    page.keyboard.press("Enter")
    wait_state(page, second, "dismissed")
    # The last card: what it offers now, or its outcome — never the body.
    page.wait_for_function(
        "id => document.activeElement?.closest('.jm-card')?.dataset.id === id", arg=second
    )
    assert lab_mem.proposal(first).status == "applied"
    assert lab_mem.proposal(second).status == "dismissed"
    assert not page.js_errors, page.js_errors
