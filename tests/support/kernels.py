"""Run a notebook's cells in a real IPython kernel (nbclient), or start one for a test that
reads its messages (jupyter_client), with an explicit environment.

The kernel gets ``os.environ`` (the test's isolated one, see tests/conftest.py)
plus the variables a test names, passed to the kernel's launch: the test
process's own ``os.environ`` is never edited and restored by hand.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.manager import start_new_kernel
from nbclient import NotebookClient

# After a cell's execute_reply nbclient waits this long for the rest of the cell's
# IOPub messages (status idle ends them). With its defaults, 4 s and no error, a
# machine loaded enough to outlast the wait (make test runs pytest workers beside
# kernels, servers and Chromium on two cores) would leave the cell without the
# output still in flight, with only a warning in the log. A generous bound, and a
# cell whose messages never come fails as such.
IOPUB = {"iopub_timeout": 60, "raise_on_iopub_timeout": True}


# How long a graceful shutdown waits for the kernel to exit by itself. jupyter_client's
# 5 s (SIGTERM after half of it) is shorter than a loaded machine takes to run the
# kernel's atexit work (the session digest at shutdown): the kernel was terminated
# midway and the test found no digest. A kernel that exits sooner ends the wait sooner.
SHUTDOWN_WAIT_S = 60.0


def new_notebook(cells: Sequence[str]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    return nb


def kernel_env(**variables: str) -> dict[str, str]:
    """The environment a kernel started now gets: this process's, with ``variables``."""
    return {**os.environ, **variables}


def execute(
    nb: nbformat.NotebookNode,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    *,
    allow_errors: bool = False,
    timeout: float = 120,
) -> nbformat.NotebookNode:
    """Execute ``nb`` in a new ``python3`` kernel working in ``cwd``; outputs land in ``nb``.

    ``env`` is the kernel's whole environment (default: :func:`kernel_env`).
    """
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(cwd)}},
        **IOPUB,
    )
    client.execute(env=dict(kernel_env() if env is None else env))
    return nb


@contextmanager
def started_kernel(
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    *,
    graceful: bool = False,
) -> Iterator[tuple[Any, Any]]:
    """``(manager, blocking client)`` of a new ``python3`` kernel, for tests reading its messages.

    ``env`` as in :func:`execute`; ``cwd`` default: this process's. On exit the kernel is
    shut down at once, or with ``graceful`` by a shutdown request: the kernel exits by
    itself and runs its ``atexit`` handlers.
    """
    where = {} if cwd is None else {"cwd": str(cwd)}
    km, kc = start_new_kernel(
        kernel_name="python3", env=dict(kernel_env() if env is None else env), **where
    )
    if graceful:
        km.shutdown_wait_time = SHUTDOWN_WAIT_S
    try:
        yield km, kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=not graceful)


@contextmanager
def kept_kernel(
    nb: nbformat.NotebookNode,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    *,
    timeout: float = 120,
) -> Iterator[NotebookClient]:
    """A kernel for ``nb`` that stays up while the test adds cells and runs each
    (``client.execute_cell(cell, index)``); ``env`` as in :func:`execute`."""
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(cwd)}},
        **IOPUB,
    )
    with client.setup_kernel(env=dict(kernel_env() if env is None else env)):
        yield client
