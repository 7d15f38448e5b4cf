"""How ``make test`` shares the suite among pytest-xdist workers (``-n N --dist loadfile``).

A file's tests go to one worker, in their order, as xdist's ``loadfile`` does: a
module-scoped fixture (an executed notebook, a fuzzed server) starts once, and a
file whose last test checks what the others covered (tests/server/test_rest_schemas.py)
sees them all. The browser folder is one unit of its own, so one worker starts one
JupyterLab, one Notebook 7 and one Chromium for all of it (tests/browser/conftest.py);
it is the largest unit, and xdist hands the largest out first.

Not ``--dist loadgroup`` with ``xdist_group`` marks: pytest-xdist 3.8 names a test's
group by rewriting ``item._nodeid``, which pytest 9.2 no longer reads (a node's id is
``item._id``), so the marks were silently ignored and the group's tests spread over
every worker.
"""

from __future__ import annotations

from typing import Any

import pytest

BROWSER = "tests/browser/"


def work_unit(nodeid: str) -> str:
    """The unit of work a test id belongs to: its file, or the whole browser folder."""
    path = nodeid.split("::", 1)[0]
    return BROWSER if path.startswith(BROWSER) else path


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
