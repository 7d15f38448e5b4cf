"""Steps shared by the browser scenarios: open the panel, wait on real readiness, screenshot."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "browser"
PANEL = "#jupyter-memory-panel"


# A bound on JupyterLab's own load and the panel's first one, not a speed check: beside a
# CPU burner on 2 cores a load passed the suite's one minute (a burner run, in which no
# memory request of that load was slow: the server logs those past 2 s).
LAB_LOAD_MS = 180_000


def wait_lab_loaded(page, timeout: float = LAB_LOAD_MS) -> None:
    """Until the lab has loaded and the panel with it (its first load done)."""
    page.wait_for_selector(f"{PANEL}[data-jm-loaded='true']", state="attached", timeout=timeout)


# A bound on a reorganize's end, not a speed check: the job is a worker process (the
# package's import, the merge, the write) and the panel polls for its end; beside a CPU
# burner on 2 cores it passed a minute (seen in two burner runs).
REORGANIZE_MS = 180_000


def wait_reorganized(page, view: str) -> None:
    """Until the knowledge view ``view`` (its element id) is no longer masked by a reorganize."""
    page.wait_for_selector(f"#{view}[data-busy='false']", timeout=REORGANIZE_MS)


def open_panel(page, lab, path: str = "lab", timeout: float = LAB_LOAD_MS) -> None:
    """Load the lab (workspace reset) and show the Agent Memory panel once it has loaded
    (within ``timeout`` ms)."""
    page.goto(lab.lab_url(path))
    wait_lab_loaded(page, timeout)
    if not page.locator(PANEL).is_visible():
        # Click the sidebar tab only while the panel is hidden (a click would close it).
        page.locator(".jp-SideBar [data-id='jupyter-memory-panel']").click()
    page.wait_for_selector(PANEL, state="visible")


def wait_lab_settled(page) -> None:
    """Wait for the focus JupyterLab takes once, about half a second after it loads: it
    activates its main area (the launcher), from wherever the focus is. A test that moves
    the focus by hand waits for this first, or the lab takes it back meanwhile."""
    page.wait_for_function("() => document.activeElement?.closest('.jp-Launcher')")


def refreshes(page) -> int:
    return int(page.locator(PANEL).get_attribute("data-refreshes") or "0")


def wait_refreshed_after(page, before: int, timeout: float = 60_000) -> None:
    # A minute, as every wait of the suite: beside a CPU burner a refresh passed 10 s.
    page.wait_for_function(
        "([sel, n]) => Number(document.querySelector(sel)?.dataset.refreshes || 0) > n",
        arg=[PANEL, before],
        timeout=timeout,
    )


def show_tab(page, name: str) -> None:
    """Click the tab, or (when the narrow row has no room for it) pick it in the More menu.

    Which of the two it is can change between a look and the click: a refresh that
    brings a badge (a pending count on Queued, memories to review on Memories) widens
    that tab, and the row is laid out again, so a tab seen in the row moves into the
    menu (Learning selected, the Queue badge appearing after a promote) or one from the
    menu comes back. A click on the tab that moved waits for a button that stays hidden,
    so each try looks again, clicks with a short wait, and ends once the panel shows the
    tab; tries repeat for a minute (:func:`attempts`)."""
    selected = f"{PANEL}[data-tab='{name}']"
    tab = page.locator(f"{PANEL} .jm-tab-{name}")
    item = page.locator(f"{PANEL} .jm-tab-menu [data-tab='{name}']")
    for _ in attempts():
        try:
            if tab.is_visible():
                tab.click(timeout=5_000)
            else:
                # The menu also closes when the focus leaves it, and when the panel
                # moves the focus itself (to the next item after a decision still
                # settling): open it again until the pick lands.
                if not item.is_visible():
                    page.locator(f"{PANEL} .jm-tab-more").click(timeout=5_000)
                item.click(timeout=5_000)
            page.wait_for_selector(selected, timeout=5_000)
            return
        except PlaywrightTimeoutError:
            continue
    page.wait_for_selector(selected)


def queue_item(page, text: str):
    return page.locator(f"{PANEL} .jm-queue-item", has_text=text)


def attempts(seconds: float = 60) -> Iterator[int]:
    """Tries of a short step repeated until it lands: as many as fit in ``seconds``
    (at least one), so a busy machine gets more tries, never a shorter wait."""
    deadline = time.monotonic() + seconds
    n = 0
    while n == 0 or time.monotonic() < deadline:
        yield n
        n += 1


def show_more(page, more, url_part: str, done_selector: str, timeout: float = 60_000) -> None:
    """Click a "Show more" button until its page is asked for, then wait for ``done_selector``.

    A windowed list draws the items near the view when the click scrolls the button
    into it, which can move the button between Playwright's look and its press: the
    press then lands beside it and no page is asked for (seen beside a CPU burner, and
    in CI on the 200-pending panel test). A click that asked is never repeated (that
    would load a second page)."""
    for _ in attempts():
        try:
            with page.expect_request(lambda r: url_part in r.url, timeout=10_000):
                more.click()
            break
        except PlaywrightTimeoutError:
            continue
    page.wait_for_selector(done_selector, timeout=timeout)


def save_notebook(page) -> None:
    """Save once the kernel is idle: its first answer sets language_info and marks the
    notebook dirty again just after, so save until it stays clean."""
    page.locator(".jp-StatusBar-Widget", has_text="Python 3 (ipykernel) | Idle").wait_for()
    for _ in attempts():
        run_command(page, "docmanager:save")
        try:
            page.wait_for_function("() => !document.querySelector('.jp-mod-dirty')", timeout=5_000)
            return
        except PlaywrightTimeoutError:
            continue
    raise AssertionError("the notebook stayed unsaved after a minute of saves")


def run_command(page, command: str, args: dict | None = None) -> None:
    page.evaluate("([c, a]) => window.jupyterapp.commands.execute(c, a)", [command, args or {}])


def screenshot(page, name: str) -> Path:
    """Save a screenshot and check that it is not blank (one flat color)."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / f"{name}.png"
    page.screenshot(path=str(path))
    with Image.open(path) as img:
        colors = img.convert("RGB").getcolors(maxcolors=1_000_000)
    assert colors is not None and len(colors) > 20, f"{path} looks blank"
    return path


def write_notebook(path: Path, sources: list[str]) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nbformat.write(nb, path)


def run_notebook(page, lab, name: str) -> None:
    """Open a notebook beside the panel, wait for its kernel to be idle, run every cell."""
    page.goto(lab.lab_url(f"lab/tree/{name}"))
    wait_lab_loaded(page)
    if not page.locator(PANEL).is_visible():
        page.locator(".jp-SideBar [data-id='jupyter-memory-panel']").click()
    # Real readiness: the status bar names the kernel and says Idle (not "No Kernel").
    page.locator(".jp-StatusBar-Widget", has_text="Python 3 (ipykernel) | Idle").wait_for(
        timeout=60_000
    )
    run_command(page, "notebook:run-all-cells")


def wait_idle_after_run(page) -> None:
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-InputArea-prompt')]"
        ".every(p => !p.textContent.includes('*'))",
        timeout=60_000,
    )


def cards_notebook(path, home, groups: list[list[str]]) -> None:
    """A saved notebook whose outputs are the cards a kernel displayed (no kernel runs)."""
    import nbformat

    from jupyter_memory.magics.session import NotebookSession
    from jupyter_memory.widgets import ProposalCards

    session = NotebookSession(str(home))
    try:
        nb = nbformat.v4.new_notebook()
        for ids in groups:
            cell = nbformat.v4.new_code_cell("%memory queue")
            bundle = ProposalCards(session, ids)._repr_mimebundle_()
            cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
            nb.cells.append(cell)
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)"}
        nbformat.write(nb, path)
    finally:
        session.close()


def reset_home(m: Any, root: Path) -> None:
    """What a test of the session's lab relies on, as a fresh server had it: memory on,
    no proposal (pending or decided, nor a dismissed text that a new proposal would be
    skipped as), no memory, no learning candidate, no knowledge (the user's and every
    project's under ``root``). Pending proposals and memories go through the service
    (the server notices as it notices any other process); the files a fresh home does
    not have are then removed."""
    m.update_settings(enabled=True, auto_suggestions=True)
    for p in m.queue():
        m.dismiss(p.id)
    for row in m.memories(include_cold=True):
        m.forget(row["id"])
    home = Path(m.home)
    gone = [
        home / "knowledge.md",
        home / "dismissed.json",
        home / "learning" / "candidates.json",
        *home.glob("queue/*.md"),
        *root.glob("*/.jupyter-memory/knowledge.md"),
    ]
    for path in gone:
        path.unlink(missing_ok=True)


TRANSLATION = "@jupyterlab/translation-extension:plugin"


def set_language(lab, locale: str) -> None:
    """What Settings → Language does: the translation plugin's ``locale`` in the user settings."""
    request = urllib.request.Request(
        f"{lab.url}/lab/api/settings/{TRANSLATION}",
        data=json.dumps({"raw": json.dumps({"locale": locale})}).encode(),
        method="PUT",
        headers={"Authorization": f"token {lab.token}", "Content-Type": "application/json"},
    )
    # JupyterLab's own settings route: a minute, as every wait of the suite (tests/support/
    # waiting.py), since a loaded machine (a CPU burner beside the suite) passed 10 s.
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 204
