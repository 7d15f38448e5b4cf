"""The project follows the notebook (issue 30): renamed, then moved into another folder,
a notebook keeps the person's project in the panel header, the status bar, the
kernel and an agent's context, across a page reload and a kernel restart."""

from __future__ import annotations

from browser_helpers import (
    PANEL,
    run_command,
    run_notebook,
    screenshot,
    wait_idle_after_run,
    write_notebook,
)

FOCUS = f"{PANEL} .jm-focus"
STATUS = "#jp-main-statusbar .jm-focus-status"
RULE = "Refunds are netted against the order month (退款冲减下单当月)."


def _outputs(page, text: str) -> str:
    """Every cell output of the open notebook, once they contain ``text``."""
    page.wait_for_function(
        "t => [...document.querySelectorAll('.jp-Notebook .jp-OutputArea')]"
        ".map(o => o.textContent).join('\\n').includes(t)",
        arg=text,
        timeout=60_000,
    )
    return "\n".join(page.locator(".jp-Notebook .jp-OutputArea").all_inner_texts())


def _rename(page, old: str, new: str) -> None:
    """A rename or a move as the file browser makes it (the contents service's rename)."""
    page.evaluate("([o, n]) => window.jupyterapp.serviceManager.contents.rename(o, n)", [old, new])
    page.locator(".lm-TabBar-tab", has_text=new.split("/")[-1]).first.wait_for()


def _run_all(page) -> None:
    # Outputs of the run before must not answer for this one.
    run_command(page, "notebook:clear-all-cell-outputs")
    run_command(page, "notebook:run-all-cells")
    wait_idle_after_run(page)


def _agrees(page, lab, notebook: str) -> None:
    """The header, the status bar, the kernel and the agent context: sales-q3, for ``notebook``."""
    page.wait_for_selector(f"{FOCUS}[data-project='sales-q3']")
    header = page.locator(FOCUS).inner_text()
    assert notebook.split("/")[-1] in header and "chosen for this notebook" in header, header
    page.wait_for_selector(f"{STATUS}[data-project='sales-q3']")
    assert page.locator(STATUS).inner_text() == "Project: sales-q3"
    out = _outputs(page, f"notebook:     {lab.root / notebook}")
    assert "project:      sales-q3" in out and "chosen for this notebook" in out, out
    assert "Refunds are netted against the order month" in out, out  # %memory context


def test_a_renamed_then_moved_notebook_keeps_its_project_everywhere(page, lab, lab_mem):
    lab_mem.register_project(lab.root / "sales-q3")
    lab_mem.save_knowledge("project", f"## Rules\n- {RULE}\n\n## Info\n", project="sales-q3")
    (lab.root / "reports").mkdir(exist_ok=True)
    write_notebook(
        lab.root / "Untitled.ipynb",
        ["%load_ext jupyter_memory", "%memory status", "%memory context"],
    )
    # Launcher → Untitled.ipynb: its kernel starts under that name.
    run_notebook(page, lab, "Untitled.ipynb")
    wait_idle_after_run(page)
    page.wait_for_selector(f"{FOCUS}[data-source='none']")

    _rename(page, "Untitled.ipynb", "orders.ipynb")
    page.wait_for_function(
        "s => document.querySelector(s)?.textContent.includes('orders.ipynb')",
        arg=FOCUS,
    )
    # "Use for this notebook" in the panel is kept for the notebook's new name.
    page.locator(f"{FOCUS} .jm-focus-select").select_option("sales-q3")
    # The header changes once the server has kept the choice: the kernel reads it then.
    page.wait_for_selector(f"{FOCUS}[data-project='sales-q3'][data-source='explicit']")
    _run_all(page)
    _agrees(page, lab, "orders.ipynb")

    _rename(page, "orders.ipynb", "reports/orders.ipynb")
    _run_all(page)
    _agrees(page, lab, "reports/orders.ipynb")
    screenshot(page, "60-project-follows-a-moved-notebook")

    # A page reload (saved first: a changed notebook would ask to leave the page)
    # — the panel asks for the notebook where it is now.
    run_command(page, "docmanager:save")
    page.wait_for_selector(".lm-TabBar-tab.jp-mod-dirty", state="detached")
    run_notebook(page, lab, "reports/orders.ipynb")
    wait_idle_after_run(page)
    _agrees(page, lab, "reports/orders.ipynb")

    # A kernel restart: the new kernel finds the notebook and the choice kept for it.
    # Not awaited: the command waits for the confirmation dialog clicked below.
    page.evaluate("() => { window.jupyterapp.commands.execute('kernelmenu:restart'); }")
    page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept").click()
    page.locator(".jp-StatusBar-Widget", has_text="Python 3 (ipykernel) | Idle").wait_for(
        timeout=60_000
    )
    _run_all(page)
    _agrees(page, lab, "reports/orders.ipynb")
    assert not page.js_errors, page.js_errors
