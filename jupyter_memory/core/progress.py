"""How long work reports its progress to whoever shows it (a terminal bar, a notebook widget, nobody).

The service and the store call :class:`Progress`; only the adapters know what
draws it (``tqdm`` on stderr in the CLI, ``tqdm.auto``'s widget in a notebook)
and decide when nothing is drawn (``--json``, no terminal).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

# Fewer files than this index in well under a second: no bar for them.
BAR_THRESHOLD = 200


class Progress(Protocol):
    def stage(self, name: str, total: int | None) -> None:
        """A new stage starts (``total`` items, or unknown)."""

    def advance(self, n: int = 1) -> None: ...

    def close(self) -> None: ...


class NoProgress:
    def stage(self, name: str, total: int | None) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


ProgressFactory = Callable[[], Progress]

__all__ = ["BAR_THRESHOLD", "NoProgress", "Progress", "ProgressFactory"]
