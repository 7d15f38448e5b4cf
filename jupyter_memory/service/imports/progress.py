"""How an import reports progress to whoever shows it (the CLI's bar, or nobody)."""

from __future__ import annotations

from typing import Protocol


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
