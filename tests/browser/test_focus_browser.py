"""The panel header shows the project the active notebook works in (issue 13, one focus)."""

from __future__ import annotations

import json

from browser_helpers import (
    PANEL,
    run_command,
    run_notebook,
    screenshot,
    show_tab,
    wait_idle_after_run,
    write_notebook,
)

FOCUS = f"{PANEL} .jm-focus"


def test_the_header_shows_the_focus_of_the_active_notebook(page, lab, lab_mem):
    (lab.root / "analysis").mkdir(exist_ok=True)
    write_notebook(
        lab.root / "analysis" / "orders.ipynb",
        ["%load_ext jupyter_memory", "%memory focus ../sales-q3"],
    )
    (lab.root / "scratch").mkdir(exist_ok=True)
    write_notebook(lab.root / "scratch" / "idea.ipynb", ["1 + 1"])

    run_notebook(page, lab, "analysis/orders.ipynb")
    wait_idle_after_run(page)
    # %memory focus ran in the kernel; the server noticed it and the header follows.
    page.wait_for_selector(f"{FOCUS}[data-project='sales-q3']")
    header = page.locator(FOCUS).inner_text()
    assert "sales-q3" in header and "chosen for this notebook" in header
    show_tab(page, "project")
    select = page.locator(f"{PANEL} .jm-project-select")
    assert select.input_value() == "sales-q3"
    first = select.locator("option").nth(1).inner_text()
    assert first == "sales-q3 (in use)"
    screenshot(page, "20-focus-in-panel-header")

    # Another notebook, in a folder of no project, becomes the active one.
    page.evaluate(  # the widget it answers is not serializable: answer nothing
        "() => { window.jupyterapp.commands.execute('docmanager:open', "
        "{path: 'scratch/idea.ipynb'}); }"
    )
    page.wait_for_selector(f"{FOCUS}[data-project='']")
    assert "idea.ipynb" in page.locator(FOCUS).inner_text()
    # Back to the first one: its project again.
    page.locator(".lm-TabBar-tab", has_text="orders.ipynb").first.click()
    page.wait_for_selector(f"{FOCUS}[data-project='sales-q3']")
    assert not page.js_errors, page.js_errors


STATUS = "#jp-main-statusbar .jm-focus-status"


def _cell_output(page, index: int, text: str) -> str:
    """The output of the notebook's cell ``index`` once it contains ``text``."""
    page.wait_for_function(
        "([i, t]) => (document.querySelectorAll('.jp-Notebook .jp-Cell')[i]"
        "?.querySelector('.jp-OutputArea')?.textContent || '').includes(t)",
        arg=[index, text],
        timeout=60_000,
    )
    return page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea").inner_text()


def test_the_panel_sets_the_focus_the_kernel_follows_and_the_status_bar_shows_it(
    page, lab, lab_mem
):
    (lab.root / "reports").mkdir(exist_ok=True)
    nb = lab.root / "reports" / "weekly.ipynb"
    write_notebook(nb, ["%load_ext jupyter_memory", "%memory focus"])
    (lab.root / "ops").mkdir(exist_ok=True)
    lab_mem.register_project(lab.root / "ops")  # known, in use by no notebook

    run_notebook(page, lab, "reports/weekly.ipynb")
    wait_idle_after_run(page)
    assert "No project focused" in _cell_output(page, 1, "No project focused")
    page.wait_for_selector(f"{FOCUS}[data-source='none']")
    status = page.locator(STATUS)
    status.wait_for()
    assert status.inner_text() == "Project: none"
    select = page.locator(f"{FOCUS} .jm-focus-select")
    assert select.input_value() == ""
    texts = select.locator("option").all_inner_texts()
    assert "ops" in texts and texts[-2:] == ["No project", "Add a folder…"]

    # A folder that is no project yet: added (registered) from the panel, then in use.
    select.select_option(label="Add a folder…")
    dialog = page.locator(".jp-Dialog")
    dialog.locator("input").fill("sales-q3")
    dialog.locator(".jp-Dialog-button.jp-mod-accept").click()
    page.wait_for_selector(f"{FOCUS}[data-project='sales-q3']")
    page.wait_for_selector(f"{STATUS}[data-project='sales-q3']")
    assert status.inner_text() == "Project: sales-q3"
    assert "chosen for this notebook" in page.locator(FOCUS).inner_text()
    # The kernel agrees: %memory focus answers the panel's choice.
    run_command(page, "notebook:run-all-cells")
    wait_idle_after_run(page)
    out = _cell_output(page, 1, "Focused project: sales-q3")
    assert "chosen for this notebook" in out

    # Another registered project: offered first once in use, and the kernel follows.
    select.select_option("ops")
    page.wait_for_selector(f"{FOCUS}[data-project='ops']")
    assert select.locator("option").first.inner_text() == "ops (in use)"
    assert status.inner_text() == "Project: ops"
    kept = json.loads((lab.home / "focus" / "notebooks.json").read_text(encoding="utf-8"))
    assert "ops" in json.dumps(kept) and "weekly.ipynb" in json.dumps(kept)
    run_command(page, "notebook:run-all-cells")
    wait_idle_after_run(page)
    assert "Focused project: ops" in _cell_output(page, 1, "Focused project: ops")
    screenshot(page, "21-focus-set-in-panel")

    # The status bar item opens the panel when it is closed.
    page.locator(".jp-SideBar [data-id='jupyter-memory-panel']").click()
    page.wait_for_selector(PANEL, state="hidden")
    status.click()
    page.wait_for_selector(PANEL, state="visible")

    # No project: the header, the status bar and the kernel say none.
    select.select_option(label="No project")
    page.wait_for_selector(f"{FOCUS}[data-project='']")
    assert status.inner_text() == "Project: none"
    run_command(page, "notebook:run-all-cells")
    wait_idle_after_run(page)
    assert "No project focused" in _cell_output(page, 1, "No project focused")
    assert not page.js_errors, page.js_errors


def test_the_panels_memories_search_finds_the_focused_projects_memories(page, lab, lab_mem):
    """Issue 30: 0 hits for "refunds" / "退款" in a focused notebook where %recall found them."""
    sales = lab.root / "refund-proj"
    sales.mkdir(exist_ok=True)
    lab_mem.register_project(sales)
    lab_mem.remember("Refunds are netted against the order month.", project="refund-proj")
    lab_mem.remember("Refunds over 500 need a second approver.", project="refund-proj")
    lab_mem.remember("退款按订单月份冲抵，不跨月。", project="refund-proj")
    (lab.root / "refund-analysis").mkdir(exist_ok=True)
    write_notebook(
        lab.root / "refund-analysis" / "refunds.ipynb",
        ["%load_ext jupyter_memory", "%memory focus ../refund-proj"],
    )
    run_notebook(page, lab, "refund-analysis/refunds.ipynb")
    wait_idle_after_run(page)
    page.wait_for_selector(f"{FOCUS}[data-project='refund-proj']")
    show_tab(page, "memories")
    search = page.locator("#jm-memories .jm-search")
    for query, text in (("refunds", "second approver"), ("退款", "不跨月")):
        search.fill(query)
        search.press("Enter")
        page.locator("#jm-memories .jm-hit", has_text=text).wait_for()
    assert page.locator("#jm-memories .jm-hit").count() == 1  # 退款: the one Chinese memory
    search.fill("refunds")
    search.press("Enter")
    page.wait_for_function("() => document.querySelectorAll('#jm-memories .jm-hit').length === 2")
    screenshot(page, "21-memories-of-the-focused-project")
    assert not page.js_errors, page.js_errors
