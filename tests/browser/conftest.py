"""A real ``jupyter lab`` and a real headless Chromium (Debian's), driven by Playwright.

Nothing here is skipped: a missing browser, Playwright or extension build fails
the test with what to install. One lab (and one Notebook 7, for the tests that
need it) serves all of this folder's tests, and one Chromium with one page: each test
finds it blank, with no other page, cookie or site data of another test (``_clear``
below: its renderer is kept for speed), and, through ``lab_mem``, a clean queue with
memory on. Servers start through
``tests/support/servers.py`` and stop by their own process id.

The folder's tests run first and together: under pytest-xdist (``make test``,
``--dist loadfile``) the folder is one unit of work for one worker
(tests/support/xdist_units.py), the longest, and it starts at once. The lab, Notebook 7
and Chromium stop as soon as the process leaves the folder (``pytest_runtest_teardown``
below), not at the end of the session: Playwright's sync API keeps an event loop
running in this thread while Chromium is up, and the tests the worker runs next
(pytest-jupyter's servers, nbclient's kernels) need none running.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import reset_home, set_language

from tests.support.servers import free_port, jupyter_process, listening

CHROMIUM = os.environ.get("JM_CHROMIUM", "/usr/bin/chromium")
# Under pytest-xdist worker gwN takes port + N: make test keeps this folder on one
# worker, but another --dist mode spreads it, and two workers starting a lab at the
# same moment would both find 18931 free.
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
    if "JM_LAB_PORT" in os.environ and WORKER == 0:
        pytest.fail(f"port {PORT} (JM_LAB_PORT) is in use; free it", pytrace=False)
    return free_port()  # worker N's port + N was nobody's choice: another run may hold it


HERE = Path(__file__).parent
# The lab's environment is the process's as collection found it, not that of the test
# that happens to start it (tests/conftest.py's _isolate changes it for each test).
PROCESS_ENV = dict(os.environ)


def _ours(item: pytest.Item | None) -> bool:
    return item is not None and HERE in Path(str(item.path)).parents


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """This folder's tests before every other (see the module's docstring), in their order."""
    ours = [item for item in items if _ours(item)]
    if ours:
        items[:] = ours + [item for item in items if not _ours(item)]


class _Shared:
    """The folder's lab, Notebook 7 and Chromium: started by the first test that asks,
    kept while the tests of this folder follow one another, stopped when they end."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self._things: dict[str, object] = {}

    def get(self, name: str, start: Callable[[], object]) -> object:
        if name not in self._things:
            self._things[name] = self._stack.enter_context(start())  # type: ignore[call-overload]
        return self._things[name]

    def close(self) -> None:
        self._things.clear()
        self._stack.close()


_SHARED = _Shared()


@pytest.hookimpl(trylast=True)  # after the test's own fixtures (its page, lab_mem) are gone
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if _ours(item) and not _ours(nextitem):
        _SHARED.close()


def pytest_sessionfinish() -> None:
    _SHARED.close()  # a run stopped early (-x, a keyboard interrupt) leaves no server


@pytest.fixture
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    """JupyterLab for the folder (a test resets what it relies on: ``lab_mem``)."""
    return _SHARED.get("lab", lambda: _serve(tmp_path_factory, "jupyterlab"))  # type: ignore[return-value]


@pytest.fixture
def notebook7(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    """Jupyter Notebook 7 (``python -m notebook``) on the same kind of fresh home."""
    return _SHARED.get("notebook7", lambda: _serve(tmp_path_factory, "notebook"))  # type: ignore[return-value]


@contextmanager
def _serve(tmp_path_factory: pytest.TempPathFactory, app: str) -> Iterator[Lab]:
    _require_parts()
    if app == "notebook":
        try:
            import notebook  # noqa: F401
        except ImportError:
            pytest.fail("Notebook 7 is missing: `.venv/bin/pip install -e '.[dev]'`", pytrace=False)
    # The fixed port is the lab's; Notebook 7 runs beside it on a free one.
    port = _choose_port() if app == "jupyterlab" else free_port()
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
        **PROCESS_ENV,
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
        _ORIGINS.append(server.url)
        try:
            yield Lab(server.url, server.token, root, home, server.process)
        finally:
            _ORIGINS.remove(server.url)


@contextmanager
def _chromium() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def browser():
    """Chromium for the folder (its tests take one ``page`` in turn, cleared between them)."""
    _require_parts()
    return _SHARED.get("browser", _chromium)


# What a test leaves in the context and the next must not find: every kind of site data
# but the HTTP cache (DevTools' Storage.clearDataForOrigin names).
SITE_DATA = ",".join(
    (
        "cookies",
        "local_storage",
        "session_storage",
        "indexeddb",
        "websql",
        "service_workers",
        "cache_storage",
        "file_systems",
    )
)


VIEWPORT = {"width": 1400, "height": 900}
# The origins the folder's servers serve from (site data is cleared per origin).
_ORIGINS: list[str] = []


@contextmanager
def _context(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=VIEWPORT)
    # Every wait of the suite is a minute: a busy machine (a CPU burner beside the
    # suite on 2 cores) makes JupyterLab's own first load take past 30 s.
    context.set_default_timeout(60_000)
    try:
        yield context
    finally:
        context.close()


def _kept_page(context: Any) -> Any:
    """The page the folder's tests take in turn (a new one when the last was closed)."""
    pages = context.pages
    return pages[0] if pages else context.new_page()


def _clear(context: Any) -> None:
    """Leave the context as a new one would be but for one blank page and what its renderer
    keeps in memory: no other page, no cookie, no site data, the viewport as at the start.

    The page is kept, not closed: a new page (or a new context) starts a new renderer, and
    a lab loaded in a new renderer took ~7.5 CPU-seconds on 2 cores, against ~4 in the
    renderer that loaded it before (it keeps JupyterLab's compiled scripts), ~2 s of wall
    time less for each of the folder's ~100 loads of the lab.
    """
    pages = context.pages
    for page in pages[1:]:
        page.close()
    kept = pages[0] if pages and _leave(pages[0]) else None
    session = kept or context.new_page()
    cdp = context.new_cdp_session(session)
    for origin in _ORIGINS:
        cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": SITE_DATA})
    cdp.detach()
    if kept is None:
        session.close()
    context.clear_cookies()
    context.clear_permissions()


def _leave(page: Any) -> bool:
    """Put ``page`` on a blank document, as at the start; False (the page closed) when it
    cannot be: a crashed or stuck page, and the next test gets a new one."""
    # A document with unsaved changes asks before it is left: leave it.
    page.on("dialog", _accept)
    try:
        page.goto("about:blank")
    except Exception:
        page.close()
        return False
    finally:
        if not page.is_closed():
            page.remove_listener("dialog", _accept)
    page.set_viewport_size(VIEWPORT)
    page.mouse.move(0, 0)
    return True


def _accept(dialog: Any) -> None:
    dialog.accept()


@pytest.fixture
def page(browser, request):
    """The folder's page, which a test finds as a new context's would be: blank, with no
    other page, cookie, local or session storage or IndexedDB of another test
    (:func:`_clear`)."""
    context = _SHARED.get("context", lambda: _context(browser))
    page = _kept_page(context)
    errors: list[str] = []

    def on_error(exc: Any) -> None:
        errors.append(str(exc))

    def on_dialog(dialog: Any) -> None:
        errors.append(f"unexpected dialog: {dialog.message}")

    page.on("pageerror", on_error)
    page.on("dialog", on_dialog)
    page.js_errors = errors  # type: ignore[attr-defined]
    try:
        yield page
    finally:
        page.remove_listener("pageerror", on_error)
        page.remove_listener("dialog", on_dialog)
        _clear(context)


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
