"""Progress bars for long work: ``tqdm`` on stderr in a terminal, ``tqdm.auto``'s widget in a notebook.

The service reports stages and counts (``core/progress.py``); the CLI and the
magics choose one of these to draw them, and nothing at all for ``--json`` or
output that is not a terminal.
"""

from __future__ import annotations

import sys
from typing import Any

from .._i18n import localized


class TqdmProgress:
    """A bar per stage (indexing many files, importing, embedding): count, rate, time left."""

    notebook = False

    def __init__(self) -> None:
        self._bar: Any = None

    def stage(self, name: str, total: int | None) -> None:
        self.close()
        name = localized(name)  # a stage named by a Message: in the person's language
        if self.notebook:
            from tqdm.auto import tqdm  # a widget where ipywidgets renders, else text

            self._bar = tqdm(total=total, desc=name, unit="item", leave=False)
        else:
            from tqdm import tqdm as text_tqdm

            self._bar = text_tqdm(total=total, desc=name, unit="item", file=sys.stderr, leave=False)

    def advance(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class NotebookProgress(TqdmProgress):
    notebook = True


__all__ = ["NotebookProgress", "TqdmProgress"]
