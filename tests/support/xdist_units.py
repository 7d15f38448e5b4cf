"""How ``make test`` shares the suite among pytest-xdist workers (``-n N --dist loadfile``).

A file's tests go to one worker, in their order, as xdist's ``loadfile`` does: a
module-scoped fixture (an executed notebook, a fuzzed server) starts once, and a
file whose last test checks what the others covered (tests/server/test_rest_schemas.py)
sees them all. The browser folder's files make two units (by a hash of the file's
name, stable from run to run), so two workers each start one JupyterLab, Notebook 7
and Chromium for their half (tests/browser/conftest.py, the lab on JM_LAB_PORT plus
the worker's number): the folder alone is the longest stretch of the suite, and
xdist hands the largest units out first.

Not ``--dist loadgroup`` with ``xdist_group`` marks: pytest-xdist 3.8 names a test's
group by rewriting ``item._nodeid``, which pytest 9.2 no longer reads (a node's id is
``item._id``), so the marks were silently ignored and the group's tests spread over
every worker.
"""

from __future__ import annotations

import zlib
from typing import Any

import pytest

BROWSER = "tests/browser/"
BROWSER_UNITS = 2


def work_unit(nodeid: str) -> str:
    """The unit of work a test id belongs to: its file, or a part of the browser folder."""
    path = nodeid.split("::", 1)[0]
    if not path.startswith(BROWSER):
        return path
    return f"{BROWSER} part {zlib.crc32(path.encode()) % BROWSER_UNITS + 1}"


class FilesAndBrowser:
    """Registered by tests/conftest.py where pytest-xdist is installed."""

    @pytest.hookimpl
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        if config.getoption("dist") != "loadfile":
            return None  # another --dist asked for by hand gets xdist's own
        from xdist.scheduler import LoadFileScheduling

        class Scheduling(LoadFileScheduling):
            def _split_scope(self, nodeid: str) -> str:
                return work_unit(nodeid)

        return Scheduling(config, log)
