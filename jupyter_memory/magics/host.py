"""``MagicsHost``: the shared state a magic's command module reads from ``MemoryMagics``.

The commands live in their own modules (``remember``, ``recall``, ``memory_cmd``,
``case_cmd``, …) and are bound as methods of :class:`~.memory_magics.MemoryMagics`;
they take this protocol as ``self`` rather than the class, so a module never
imports the class that imports it, and mypy checks every use of the service.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..service.cases.memory import CaseMemory
    from ..service.memory import Memory
    from .capture import CellCapture
    from .session import NotebookSession
    from .worker import SuggestionWorker


class MagicsHost(Protocol):
    """What the magics share in one kernel: the session, its service and the options."""

    # IPython's shell (untyped); None outside a kernel.
    shell: Any
    session: NotebookSession
    worker: SuggestionWorker
    capture: CellCapture
    # The case %case open chose, if any.
    case_memory: CaseMemory | None
    # Ids and titles of the last %recall (%forget completes them).
    last_recall: list[tuple[str, str]]
    # %config MemoryMagics.level / .limit / .recent_cells / .llm_idle_minutes
    level: str
    limit: int
    recent_cells: int
    llm_idle_minutes: float
    # The feeds %load_ext installs on the capture hook, None until then (typed on
    # MemoryMagics: a feed module imports this one, so this one names none of them),
    # and %%ask's magics (agents/ask_magic.py).
    digest_feed: Any
    evidence_feed: Any
    boundary: Any
    ask_magics: Any

    @property
    def service(self) -> Memory:
        """The kernel's ``Memory`` (opened on first use)."""
        ...

    def _locate_notebook(self) -> Path | None:
        """This kernel's notebook where it is now (followed across renames and moves)."""
        ...


__all__ = ["MagicsHost"]
