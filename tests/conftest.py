"""Shared fixtures: every test runs with its own HOME, memory home and clean env."""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support import event_loops, process_dirs, tmpfs, xdist_units
from tests.support.markers import mark_items

# No per-example time limit: hypothesis's 200 ms deadline is a wall-time assertion, and
# `make test` must pass on a busy machine (a round-trip example took 302 ms at load 13).
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")
# `pytest --hypothesis-profile=deterministic`: the same examples every run, no database.
settings.register_profile(
    "deterministic", parent=settings.get_profile("suite"), derandomize=True, database=None
)

_TMPFS = pytest.StashKey[Path]()
_PASSED = pytest.StashKey[bool]()
_DIRS = pytest.StashKey[tuple[Path, dict[str, str | None]]]()
_RUN_FOLDER = pytest.StashKey[Path | None]()


def pytest_configure(config: pytest.Config) -> None:
    """Temporary files on tmpfs unless TMPDIR says where (tests/support/tmpfs.py);
    Jupyter's and IPython's folders of this process (tests/support/process_dirs.py)."""
    folder = tmpfs.use_tmpfs()
    if folder is not None:
        config.stash[_TMPFS] = folder
    config.stash[_DIRS] = process_dirs.use_process_dirs()
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(xdist_units.FilesAndBrowser(), "jupyter-memory-xdist-units")
    if "PYTEST_XDIST_WORKER" not in os.environ:  # the controller owns the folder
        tmpfs.mark_in_use(tmpfs.run_folder())
    config.stash[_RUN_FOLDER] = tmpfs.run_folder()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failure after another process deleted this run's folder says so."""
    report = yield
    if report.failed:
        note = tmpfs.vanished(item.config.stash.get(_RUN_FOLDER, None))
        if note is not None:
            report.sections.append(("temporary folder deleted", note))
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_PASSED] = exitstatus == 0


def pytest_unconfigure(config: pytest.Config) -> None:
    dirs = config.stash.get(_DIRS, None)
    if dirs is not None:
        process_dirs.done_with_process_dirs(dirs[1])
    folder = config.stash.get(_TMPFS, None)
    if folder is not None:
        line = tmpfs.done_with(folder, config.stash.get(_PASSED, False))
        if line is not None:
            print(f"\n{line}")


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``browser``/``kernel``/``server`` by what each test starts (tests/support/markers.py)."""
    mark_items(items)


_ISOLATED_ENV = (
    "JUPYTER_MEMORY_HOME",
    "JPY_SESSION_NAME",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    # English messages unless a test picks a language (jupyter_memory/_i18n.py)
    "JUPYTER_MEMORY_LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_MESSAGES",
)


@pytest.fixture(autouse=True)
def _isolate(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = tmp_path_factory.mktemp("iso")
    home = base / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in _ISOLATED_ENV:
        monkeypatch.delenv(var, raising=False)
    # A server extension started in this process names the lab's language file
    # in os.environ (server/lab_language.py): set first, so it is undone after.
    monkeypatch.setenv("JUPYTER_MEMORY_LAB_SETTINGS", "")
    monkeypatch.delenv("JUPYTER_MEMORY_LAB_SETTINGS")
    monkeypatch.setenv("JUPYTER_MEMORY_HOME", str(base / "memory-home"))
    monkeypatch.setenv("LANG", "C.UTF-8")
    # No background embedding unless a test asks (Memory(semantic=True)): it
    # would load a model and use a core in every test that writes a memory.
    monkeypatch.setenv("JUPYTER_MEMORY_SEMANTIC", "0")
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(home / ".local/share/jupyter"))
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(home / ".jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(home / ".runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(home / ".ipython"))
    return base


@pytest.fixture(autouse=True)
def _no_stale_loop_readers() -> Iterator[None]:
    """A test that leaves a closed socket in the kernel clients' event loop fails
    (tests/support/event_loops.py): it would make a later test wait out its timeout."""
    yield
    stale = event_loops.stale_readers()
    assert not stale, (
        f"closed file descriptors {stale} are still watched by jupyter_core's event loop: "
        "a kernel client was used on a second loop (a cell run inside asyncio.run?)"
    )


# The product's own priority function, kept by the session fixture below while it is patched.
_REAL_PRIORITY: dict[str, Callable[[], int | None]] = {}


def _suite_priority() -> None:
    """The embedder thread keeps the suite's priority (see below): no niceness to report."""
    return None


@pytest.fixture(scope="session", autouse=True)
def _embedder_at_suite_priority() -> Iterator[None]:
    """The background embedder runs at the suite's own CPU priority in tests.

    In the product it runs at nice 19 under ``SCHED_IDLE`` so that a person's work always
    comes first (embed_worker.lower_thread_priority). Beside a CPU-bound process that
    starves it: a test waiting for its embeddings (``semantic.wait``) waited out its
    600 s. What these tests assert is recall, not scheduling; the priority itself is
    asserted by the tests that use :func:`real_embedder_priority`. Session-scoped, so
    that module-scoped fixtures that embed a home get it too.
    """
    from jupyter_memory.service.memories import embed_worker, semantic

    _REAL_PRIORITY["lower"] = embed_worker.lower_thread_priority
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(embed_worker, "lower_thread_priority", _suite_priority)
        patch.setattr(semantic, "lower_thread_priority", _suite_priority)
        yield


@pytest.fixture
def real_embedder_priority(monkeypatch: pytest.MonkeyPatch) -> None:
    """The product's low priority for the embedder thread, for a test that asserts it."""
    from jupyter_memory.service.memories import embed_worker, semantic

    monkeypatch.setattr(embed_worker, "lower_thread_priority", _REAL_PRIORITY["lower"])
    monkeypatch.setattr(semantic, "lower_thread_priority", _REAL_PRIORITY["lower"])


@pytest.fixture
def memory_home() -> Path:
    return Path(os.environ["JUPYTER_MEMORY_HOME"])


class FakeClock:
    """A settable clock for deterministic tests."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        from datetime import timedelta

        self.now = self.now + timedelta(**kwargs)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def mem(memory_home: Path, clock: FakeClock):
    from jupyter_memory import Memory

    m = Memory(home=memory_home, clock=clock)
    yield m
    m.close()


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    d = tmp_path / "sales-q3"
    d.mkdir()
    return d
