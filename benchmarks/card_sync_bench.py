"""Proposal cards in a notebook: render after a reload, and how fast they follow a decision.

Starts a real ``jupyter lab`` (the shipped ``poll_interval`` of 1 s for changes made
by other processes) on a fresh memory home and drives Debian's Chromium with
Playwright. A notebook holds 20 saved card outputs (what ``%memory queue`` leaves
in a document); the benchmark measures

- ``render_after_reload_ms``: per output, from the renderer's start to every card
  showing the live queue (the slowest of the 20), over several page reloads
  (target ≤ 1,000 ms);
- ``panel_apply_to_card_ms``: the panel's Apply to User clicked → that proposal's
  card shows "Saved to User" (measured inside the page; target ≤ 2,000 ms);
- ``cli_decision_to_card_ms``: a dismiss by another process (the service, as the
  CLI or another kernel does) → the card shows "Dismissed" (target ≤ 2,000 ms);
- ``rest_decision_to_card_ms``: an Apply through the REST API by another client.

Prints one JSON object. Needs the dev extra (Playwright) and ``/usr/bin/chromium``.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from panel_bench import distinct_texts  # noqa: E402

CHROMIUM = os.environ.get("JM_CHROMIUM", "/usr/bin/chromium")
N_CARDS = 20
RELOADS = 5
DECISIONS = 5  # of each kind
CARD = ".jp-OutputArea .jm-card"
NO_NEWS = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def seed(home: Path, root: Path) -> list[str]:
    import nbformat

    from jupyter_memory import Memory
    from jupyter_memory.magics.session import NotebookSession
    from jupyter_memory.widgets import ProposalCards

    with Memory(home=home) as mem:
        ids = []
        for text in distinct_texts(N_CARDS, seed=7):
            result = mem.propose(text, "rule", text, source="manual")
            assert result["status"] == "queued", result
            ids.append(str(result["id"]))
    session = NotebookSession(str(home))
    nb = nbformat.v4.new_notebook()
    for pid in ids:
        cell = nbformat.v4.new_code_cell("%memory queue")
        data = ProposalCards(session, [pid])._repr_mimebundle_()
        cell.outputs = [nbformat.v4.new_output("display_data", data=data)]
        nb.cells.append(cell)
    session.close()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)"}
    nbformat.write(nb, root / "cards.ipynb")
    return ids


def start_lab(base: Path, home: Path, root: Path) -> tuple[subprocess.Popen[bytes], str]:
    port, token = free_port(), secrets.token_hex(16)
    jhome = base / "jhome"
    settings = base / "app-settings"
    settings.mkdir()
    # No news prompt: it would sit over the page as a modal dialog.
    (settings / "overrides.json").write_text(json.dumps(NO_NEWS), encoding="utf-8")
    env = {
        **os.environ,
        "HOME": str(jhome),
        "JUPYTER_MEMORY_HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(jhome / ".jupyter"),
        "JUPYTER_DATA_DIR": str(jhome / "data"),
        "JUPYTER_RUNTIME_DIR": str(jhome / "runtime"),
    }
    cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
        f"--port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
        "--allow-root", f"--ServerApp.root_dir={root}",
        f"--LabApp.workspaces_dir={base / 'workspaces'}", "--LabApp.expose_app_in_browser=True",
        f"--LabApp.app_settings_dir={settings}",
    ]  # fmt: skip
    lab = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
            return lab, f"{url}|{token}"
        except OSError:
            if time.monotonic() > deadline or lab.poll() is not None:
                raise SystemExit("jupyter lab did not start") from None
            time.sleep(0.2)


def save(page) -> None:
    """Save the notebook: the started kernel's language_info marks it dirty, and a reload
    would then ask first. That can land just after a save, hence the wait and retries."""
    page.locator(".jp-StatusBar-Widget", has_text="| Idle").first.wait_for(timeout=60_000)
    for _ in range(5):
        page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        try:
            page.wait_for_function("() => !document.querySelector('.jp-mod-dirty')", timeout=5000)
            return
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError: save again
            continue
    raise SystemExit("the notebook stayed unsaved")


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 1),
        "max": round(max(values), 1),
        "n": len(values),
    }


# Click the panel's Apply to User for one proposal and wait, in the page, for its card.
PANEL_APPLY = """async (pid) => {
  const sel = `.jp-OutputArea .jm-card[data-id='${pid}']`;
  const start = performance.now();
  document.querySelector(`.jm-queue-item[data-id='${pid}'] .jm-apply-user`).click();
  while (document.querySelector(sel).dataset.state !== 'applied') {
    await new Promise(r => requestAnimationFrame(r));
  }
  return performance.now() - start;
}"""


def run(base: Path) -> dict[str, object]:
    from playwright.sync_api import sync_playwright

    from jupyter_memory import Memory

    home, root = base / "memory-home", base / "root"
    root.mkdir()
    ids = seed(home, root)
    lab, where = start_lab(base, home, root)
    url, token = where.split("|")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(60_000)
            page.goto(f"{url}/lab/tree/cards.ipynb?reset&token={token}")
            renders: list[float] = []
            for i in range(RELOADS + 1):
                if i:
                    save(page)
                    page.reload()
                page.wait_for_function(
                    f"() => document.querySelectorAll('.jm-cards[data-live]').length === {N_CARDS}"
                )
                times = page.evaluate(
                    "() => [...document.querySelectorAll('.jm-cards')]"
                    ".map(n => Number(n.dataset.renderMs))"
                )
                if i:  # the first open warms the browser's and the server's caches
                    renders.append(max(times))
            page.locator(".jp-SideBar [data-id='jupyter-memory-panel']").click()
            page.wait_for_selector("#jupyter-memory-panel [data-loaded='true']")
            panel = [page.evaluate(PANEL_APPLY, pid) for pid in ids[:DECISIONS]]
            cli, rest = [], []
            with Memory(home=home) as other:
                for pid in ids[DECISIONS : 2 * DECISIONS]:
                    start = time.monotonic()
                    other.dismiss(pid)
                    page.wait_for_selector(f"{CARD}[data-id='{pid}'][data-state='dismissed']")
                    cli.append((time.monotonic() - start) * 1000)
            for pid in ids[2 * DECISIONS : 3 * DECISIONS]:
                request = urllib.request.Request(
                    f"{url}/jupyter-memory/queue/{pid}/apply",
                    method="POST",
                    data=json.dumps({"to": "user"}).encode(),
                    headers={"Authorization": f"token {token}"},
                )
                start = time.monotonic()
                urllib.request.urlopen(request, timeout=30).read()
                page.wait_for_selector(f"{CARD}[data-id='{pid}'][data-state='applied']")
                rest.append((time.monotonic() - start) * 1000)
            browser.close()
    finally:
        lab.send_signal(signal.SIGTERM)  # the server this benchmark started, by its pid
        lab.wait(timeout=20)
    return {
        "cards": N_CARDS,
        "render_after_reload_ms": summary(renders),
        "panel_apply_to_card_ms": summary(panel),
        "cli_decision_to_card_ms": summary(cli),
        "rest_decision_to_card_ms": summary(rest),
        "targets_ms": {"render_after_reload": 1000, "decision_to_card": 2000},
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(run(Path(tmp)), indent=1))


if __name__ == "__main__":
    main()
