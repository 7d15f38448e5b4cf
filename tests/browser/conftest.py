"""A real ``jupyter lab`` and a real headless Chromium (Debian's), driven by Playwright.

Nothing here is skipped: a missing browser, Playwright or extension build fails
the test with what to install. The lab server is started once per module on a
fixed port and stopped by its own process id. Module scope (not session) also
ends Playwright's sync event loop before other test folders run: it would
otherwise still be "running" in this thread for pytest-jupyter's tests.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("JM_CHROMIUM", "/usr/bin/chromium")
# Under pytest-xdist (`make test` runs two workers) worker gwN takes port + N:
# two workers starting a lab at the same moment would both find 18931 free.
WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
PORT = int(os.environ.get("JM_LAB_PORT", "18931")) + WORKER
REPO = Path(__file__).resolve().parents[2]
OUTPUT = REPO / "test-output" / "browser"
SAMPLE_CASES = REPO / "notebooks" / "sample_workspace" / "cases"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
NO_NEWS = {
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    }
}


def _require_parts() -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: install Debian's browser with "
            "`apt-get install -y chromium` (or set JM_CHROMIUM)",
            pytrace=False,
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.fail(
            "Python Playwright is missing: `.venv/bin/pip install -e '.[dev]'`", pytrace=False
        )
    built = Path(sys.prefix) / "share/jupyter/labextensions/jupyter-memory/package.json"
    if not built.exists():
        pytest.fail(
            f"the lab extension is not installed ({built} missing): run "
            "`.venv/bin/pip install -e '.[dev]'` (needs Node >= 20.19) to build it",
            pytrace=False,
        )


# The front end's application class, for its command-line options.
APP_CLASS = {"jupyterlab": "LabApp", "notebook": "JupyterNotebookApp"}


@dataclass
class Lab:
    url: str
    token: str
    root: Path
    home: Path
    process: subprocess.Popen[bytes]

    def lab_url(self, path: str = "lab") -> str:
        return f"{self.url}/{path}?reset&token={self.token}"


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def _choose_port() -> int:
    """The fixed port, or (when another run holds it and none was asked for) a free one.

    Either way the server gets an explicit ``--port`` with ``port_retries=0``,
    so it never drifts to a port the tests would not be talking to.
    """
    if _port_free(PORT):
        return PORT
    if "JM_LAB_PORT" in os.environ:
        pytest.fail(f"port {PORT} (JM_LAB_PORT) is in use; free it", pytrace=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_ready(lab: Lab, log: Path, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lab.process.poll() is not None:
            pytest.fail(f"jupyter lab exited early; see {log}", pytrace=False)
        try:
            with urllib.request.urlopen(f"{lab.url}/api/status?token={lab.token}", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"jupyter lab did not answer within {timeout:.0f} s; see {log}", pytrace=False)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)  # exactly the server we started, by its pid
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    yield from _serve(tmp_path_factory, "jupyterlab")


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """Jupyter Notebook 7 (``python -m notebook``) on the same kind of fresh home."""
    yield from _serve(tmp_path_factory, "notebook")


def _serve(tmp_path_factory: pytest.TempPathFactory, app: str) -> Iterator[Lab]:
    _require_parts()
    if app == "notebook":
        try:
            import notebook  # noqa: F401
        except ImportError:
            pytest.fail("Notebook 7 is missing: `.venv/bin/pip install -e '.[dev]'`", pytrace=False)
    port = _choose_port()
    base = tmp_path_factory.mktemp("lab")
    root, home, jhome = base / "root", base / "memory-home", base / "home"
    for d in (root, home, jhome):
        d.mkdir()
    (root / "sales-q3").mkdir()
    shutil.copytree(SAMPLE_CASES, root / "cases")
    settings_dir = base / "app-settings"
    settings_dir.mkdir()
    (settings_dir / "overrides.json").write_text(json.dumps(NO_NEWS), encoding="utf-8")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    log = OUTPUT / f"{app}-{port}.log"
    env = {
        **os.environ,
        "HOME": str(jhome),
        "JUPYTER_MEMORY_HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(jhome / ".jupyter"),
        "JUPYTER_DATA_DIR": str(jhome / ".local/share/jupyter"),
        "JUPYTER_RUNTIME_DIR": str(jhome / ".runtime"),
        "IPYTHONDIR": str(jhome / ".ipython"),
    }
    token = secrets.token_hex(16)
    cmd = [
        sys.executable,
        "-m",
        app,
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        "--allow-root",
        f"--ServerApp.root_dir={root}",
        f"--{APP_CLASS[app]}.workspaces_dir={base / 'workspaces'}",
        f"--{APP_CLASS[app]}.expose_app_in_browser=True",
        "--JupyterMemoryServer.poll_interval=0.5",
    ]
    if app == "jupyterlab":
        # Notebook 7 keeps its own settings schemas in that folder: leave it alone.
        cmd.append(f"--LabApp.app_settings_dir={settings_dir}")
    with log.open("wb") as out:
        process = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=root)
    lab = Lab(f"http://127.0.0.1:{port}", token, root, home, process)
    try:
        _wait_ready(lab, log)
        yield lab
    finally:
        _stop(process)


@pytest.fixture(scope="module")
def browser():
    """Chromium for the module's tests; the server they need (lab or notebook7) is theirs."""
    _require_parts()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("dialog", lambda dialog: errors.append(f"unexpected dialog: {dialog.message}"))
    page.js_errors = errors  # type: ignore[attr-defined]
    yield page
    context.close()


@pytest.fixture
def lab_mem(lab: Lab):
    """The service on the lab's memory home, reset to a clean queue with memory on."""
    from jupyter_memory import Memory

    m = Memory(home=lab.home)
    m.update_settings(enabled=True, auto_suggestions=True)
    for p in m.queue():
        m.dismiss(p.id)
    yield m
    m.close()
