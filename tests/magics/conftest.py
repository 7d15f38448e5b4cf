"""A real IPython shell with jupyter-memory loaded; errors re-raise instead of printing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config


class TestingShell(InteractiveShell):
    """``run_cell`` raises the cell's exception (jupysql's pattern) unless told not to."""

    def run_cell(
        self, raw_cell: str, *args: Any, raise_on_error: bool = True, **kwargs: Any
    ) -> Any:
        result = super().run_cell(raw_cell, *args, **kwargs)
        if raise_on_error:
            if result.error_before_exec is not None:
                raise result.error_before_exec
            if result.error_in_exec is not None:
                raise result.error_in_exec
        return result


@pytest.fixture(scope="session")
def _shell() -> TestingShell:
    # History in memory: a history.sqlite would live in this run's temporary folder,
    # which goes when the run passes, before IPython's atexit writes the session's end.
    config = Config()
    config.HistoryManager.enabled = False
    return TestingShell.instance(config=config)


@pytest.fixture
def ip(_shell: TestingShell) -> Iterator[TestingShell]:
    """The shell with the extension freshly loaded for this test's memory home."""
    _shell.run_line_magic("load_ext", "jupyter_memory")
    try:
        yield _shell
    finally:
        _shell.run_line_magic("unload_ext", "jupyter_memory")
        _shell.user_ns.pop("_", None)
        _shell.config.pop("MemoryMagics", None)  # %config writes into the shell's config


@pytest.fixture
def magics(ip: TestingShell) -> Any:
    from jupyter_memory.magics import loaded_magics

    m = loaded_magics(ip)
    assert m is not None
    return m
