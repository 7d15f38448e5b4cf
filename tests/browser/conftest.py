"""A real ``jupyter lab`` and a real headless Chromium (Debian's), driven by Playwright.

Nothing here is skipped: a missing browser, Playwright or extension build fails
the test with what to install. One lab (and one Notebook 7, for the tests that
need it) serves the whole session, and one Chromium: each test gets a fresh
browser context (no cookies, storage or pages of another test) and, through
``lab_mem``, a clean queue with memory on. Servers start through
``tests/support/servers.py`` and stop by their own process id.

The browser tests run last in a session (``pytest_collection_modifyitems``
below): Playwright's sync API keeps an event loop running in this thread while
Chromium is up, and pytest-jupyter's tests in other folders need none running.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_helpers import reset_home, set_language

from tests.support.servers import free_port, jupyter_process, listening

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


def _choose_port() -> int:
    """The fixed port, or (when another run holds it and none was asked for) a free one.

    Either way the server gets an explicit ``--port`` with ``port_retries=0``,
    so it never drifts to a port the tests would not be talking to.
    """
    if not listening(PORT):
        return PORT
    if "JM_LAB_PORT" in os.environ:
        pytest.fail(f"port {PORT} (JM_LAB_PORT) is in use; free it", pytrace=False)
    return free_port()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """This folder's tests after every other (see the module's docstring), in their order."""
    here = Path(__file__).parent
    ours = [item for item in items if here in Path(str(item.path)).parents]
    if ours:
        items[:] = [item for item in items if here not in Path(str(item.path)).parents] + ours


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """JupyterLab for the session (a test resets what it relies on: ``lab_mem``)."""
    yield from _serve(tmp_path_factory, "jupyterlab")


@pytest.fixture(scope="session")
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
    args = [
        f"--{APP_CLASS[app]}.workspaces_dir={base / 'workspaces'}",
        f"--{APP_CLASS[app]}.expose_app_in_browser=True",
        "--JupyterMemoryServer.poll_interval=0.5",
    ]
    if app == "jupyterlab":
        # Notebook 7 keeps its own settings schemas in that folder: leave it alone.
        args.append(f"--LabApp.app_settings_dir={settings_dir}")
    with jupyter_process(root, log, env=env, app=app, args=args, port=port, cwd=root) as server:
        server.ready()
        yield Lab(server.url, server.token, root, home, server.process)


@pytest.fixture(scope="session")
def browser():
    """Chromium for the session; each test's ``page`` is in a fresh context of its own."""
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
    """The service on the lab's memory home, reset (:func:`reset_home`) for this test."""
    from jupyter_memory import Memory

    m = Memory(home=lab.home)
    reset_home(m, lab.root)
    # The lab serves the whole session: a test that switched it to Chinese must not
    # leave the next one (and its kernels, which follow the lab) speaking Chinese.
    set_language(lab, "en")
    yield m
    m.close()
