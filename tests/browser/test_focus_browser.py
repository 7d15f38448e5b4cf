"""The panel header shows the project the active notebook works in (issue 13, one focus)."""

from __future__ import annotations

from browser_helpers import (
    PANEL,
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
    page.wait_for_selector(f"{FOCUS}[data-project='sales-q3']", timeout=15_000)
    header = page.locator(FOCUS).inner_text()
    assert "sales-q3" in header and "chosen for this notebook" in header
    show_tab(page, "project")
    select = page.locator(f"{PANEL} .jm-project-select")
    assert select.input_value() == "sales-q3"
    first = select.locator("option").nth(1).inner_text()
    assert first == "sales-q3 (in use)"
    screenshot(page, "20-focus-in-panel-header")

    # Another notebook, in a folder of no project, becomes the active one.
    page.evaluate(
        "() => window.jupyterapp.commands.execute('docmanager:open', {path: 'scratch/idea.ipynb'})"
    )
    page.wait_for_selector(f"{FOCUS}[data-project='']", timeout=15_000)
    assert "idea.ipynb" in page.locator(FOCUS).inner_text()
    # Back to the first one: its project again.
    page.locator(".lm-TabBar-tab", has_text="orders.ipynb").first.click()
    page.wait_for_selector(f"{FOCUS}[data-project='sales-q3']", timeout=15_000)
    assert not page.js_errors, page.js_errors
