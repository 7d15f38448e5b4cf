"""The kernel's one ``Memory`` service, created on first use, shared by magics, hook and worker.

Creating the service opens SQLite indexes and imports pydantic models, so it
waits until a magic or the first captured cell needs it: ``%load_ext`` stays
light. Every call into the service goes through ``lock`` because the
extraction worker runs on another thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..service.memory import Memory

# The Enabled / Automatic suggestions switches can be flipped from another
# process (CLI, lab panel); the hook re-reads them at most this often.
SETTINGS_REFRESH_SECONDS = 1.0


class NotebookSession:
    def __init__(
        self,
        home: str | None = None,
        project: str | None = None,
        locate: Callable[[], Path | None] | None = None,
    ) -> None:
        self.home = home
        self.project = project
        # The notebook this kernel was started for, by that name (None in a
        # console or plain IPython); ``notebook`` is where it is now.
        self.locate = locate or (lambda: None)
        self.lock = threading.RLock()
        self._memory: Memory | None = None
        self.notebook: Path | None = None
        self._flags: tuple[bool, bool] = (True, False)
        self._flags_at = -1e9
        self._forgotten = 0  # forget_flags() calls: a read that spans one is not fresh
        # cell id -> "cell 12" (its execution count), so cards name cells as the person sees them
        self.cell_labels: dict[str, str] = {}

    # -- the service ----------------------------------------------------------------

    @property
    def memory(self) -> Memory:
        if self._memory is None:
            with self.lock:
                if self._memory is None:
                    from ..service.memory import Memory
                    from ..widgets.progress import NotebookProgress

                    mem = Memory(home=self.home)
                    # A first open of a large home indexes many files: show it.
                    mem.hooks.show_progress(NotebookProgress)
                    self._start_focus(mem)
                    self._memory = mem
        elif self.notebook is not None:
            with self.lock:
                if not self.notebook.is_file():
                    # Renamed or moved in Jupyter (the server noted where to).
                    self.notebook = self._where(self._memory, self.notebook) or self.notebook
                # The person may have chosen another project for this notebook
                # in the panel (another process): a stat when nothing changed.
                self._memory.hooks.follow_focus(self.notebook)
        return self._memory

    @staticmethod
    def _where(mem: Memory, named: Path | None) -> Path | None:
        """The notebook ``named`` where it is now, or ``None`` when it is gone for all we know.

        jupyter_server tells a kernel its notebook once, at start
        (``JPY_SESSION_NAME``); a rename or a move later leaves that name
        stale, so the server's note of the move (its contents events) is asked.
        """
        if named is None or named.is_file():
            return named
        now = mem.hooks.notebook_now(named)
        return now if now is not None and now.is_file() else None

    def current_notebook(self) -> Path | None:
        """This kernel's notebook where it is now (opens the service on first use)."""
        self.memory  # noqa: B018 - following a rename happens on each use of the service
        return self.notebook

    def _start_focus(self, mem: Memory) -> None:
        """The kernel's focus (docs/notebooks.md, "Which project"); inference never registers."""
        self.notebook = self._where(mem, self.locate())
        if self.project:
            # %config MemoryMagics.project is the person's own choice.
            mem.focus(self.project, notebook=self.notebook)
        elif self.notebook is not None:
            mem.hooks.follow_focus(self.notebook)
        else:
            mem.hooks.adopt_focus(mem.hooks.focus_of(folder=Path.cwd()))

    @property
    def started(self) -> bool:
        return self._memory is not None

    def reset(self, home: str | None, project: str | None) -> None:
        """A new home or default project (``%config``): the next call opens a fresh service."""
        with self.lock:
            if self._memory is not None:
                self._memory.close()
            self._memory = None
            self.home, self.project = home, project
            self.notebook = None
            self._flags_at = -1e9

    def close(self) -> None:
        with self.lock:
            if self._memory is not None:
                self._memory.close()
                self._memory = None

    # -- switches -----------------------------------------------------------------

    def _read_flags(self) -> tuple[bool, bool]:
        settings: Any = self.memory.settings
        if callable(settings):
            settings = settings()
        enabled = bool(_get(settings, "enabled", True))
        auto = bool(_get(settings, "auto_suggestions", False))
        return enabled, enabled and auto

    def flags(self, *, fresh: bool = False) -> tuple[bool, bool]:
        """``(enabled, auto_suggestions)``, re-read from the service at most once a second."""
        now = time.monotonic()
        if fresh or now - self._flags_at > SETTINGS_REFRESH_SECONDS:
            # The hook must not wait for a suggestion round holding the lock:
            # while one runs, the switches read a moment ago still stand.
            if not self.lock.acquire(blocking=fresh or self._memory is None):
                return self._flags
            try:
                forgotten = self._forgotten
                flags = self._read_flags()
                self._flags = flags
                # A switch changed while this read ran (forget_flags): what it read may
                # be from before, so it does not count as fresh; the next call reads.
                if forgotten == self._forgotten:
                    self._flags_at = now
            finally:
                self.lock.release()
            return flags
        return self._flags

    def forget_flags(self) -> None:
        self._forgotten += 1
        self._flags_at = -1e9


def _get(obj: Any, name: str, default: Any) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)
