"""Jupyter's and IPython's folders of one pytest process (a run, or one xdist worker).

Every test gets its own folders from the ``_isolate`` fixture (tests/conftest.py),
but a fixture of a wider scope is set up before that function-scoped fixture and
would see the person's own: the quickstart notebook's module-scoped kernel and the
magics tests' session-scoped IPython shell wrote ``~/.ipython/profile_default``
(its ``history.sqlite``) and read ``~/.jupyter``, which every worker, every other
run on the machine and the person's own notebooks share. Here the process gets
folders of its own, named by its xdist worker, before any fixture runs.

``HOME`` is left as it is: the wheel test's module-scoped venv reads pip's
configuration from it (each test still gets a HOME of its own from ``_isolate``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

# The variables Jupyter and IPython read their folders from (as _isolate sets them).
FOLDERS = {
    "JUPYTER_CONFIG_DIR": ".jupyter",
    "JUPYTER_DATA_DIR": ".local/share/jupyter",
    "JUPYTER_RUNTIME_DIR": ".runtime",
    "IPYTHONDIR": ".ipython",
}


def worker_id() -> str:
    """``gw0``, ``gw1``… under pytest-xdist; ``main`` for the controller or a plain run."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def use_process_dirs() -> tuple[Path, dict[str, str | None]]:
    """Point the folder variables at a new folder of this process; (folder, old values)."""
    base = Path(tempfile.mkdtemp(prefix=f"jupyter-dirs-{worker_id()}-"))
    # Removed at the process's exit, after IPython's own atexit (registered later, run
    # earlier) has closed the session of the magics tests' shell in history.sqlite.
    atexit.register(shutil.rmtree, base, True)
    saved = {name: os.environ.get(name) for name in FOLDERS}
    for name, sub in FOLDERS.items():
        os.environ[name] = str(base / sub)
    return base, saved


def done_with_process_dirs(saved: dict[str, str | None]) -> None:
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
