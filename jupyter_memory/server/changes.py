"""Tell the panel when memory changed, whoever changed it.

Changes made through this server are announced right away; changes made by
other processes are noticed by comparing ``stat`` fingerprints of the queue
folder, the knowledge files, the settings, the project list and the focus per
notebook about once a
second. Both go out as one Jupyter Server event (schema ``events/changed.yaml``)
that the panel receives over ``/api/events/subscribe``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..service.memory import Memory
from ..store.focus_file import FILE_NAME as FOCUS_FILE
from ..store.focus_file import FOLDER as FOCUS_FOLDER
from ..store.layout import RootLayout, project_root
from ..store.mtimes import Stamp, fingerprint

SCHEMA_ID = "https://jupyter-memory.github.io/events/changed/v1"
SCHEMA_PATH = Path(__file__).with_name("events") / "changed.yaml"
PROJECTS_FILE = "projects.json"

Emit = Callable[[dict[str, Any]], None]


class ChangeWatcher:
    """Polls fingerprints per area and emits ``external`` changes."""

    def __init__(self, memory: Memory, emit: Emit) -> None:
        self.memory = memory
        self._emit = emit
        self._last: dict[str, dict[str, Stamp]] = self._snapshot()

    def _paths(self) -> dict[str, list[Path]]:
        user = RootLayout(self.memory.home)
        knowledge = [user.knowledge]
        try:
            projects = self.memory.hooks.known_projects()
        except Exception:  # an unreadable projects.json is reported by the routes that need it
            projects = {}
        knowledge += [RootLayout(project_root(Path(d))).knowledge for d in projects.values()]
        return {
            # The person's queue and the shared queues of team projects (a git pull).
            "queue": self.memory.hooks.queue_folders(),
            "knowledge": knowledge,
            "settings": [user.settings],
            "projects": [self.memory.home / PROJECTS_FILE],
            # The person's focus per notebook (%memory focus in a kernel, the panel).
            "focus": [self.memory.home / FOCUS_FOLDER / FOCUS_FILE],
            # The self-learner's candidates (a digest in a kernel or the CLI adds evidence).
            "learning": [self.memory.home / "learning" / "candidates.json"],
            # Every memory write of any layer appends to the home's audit log (a review
            # card's Keep in a kernel, the CLI): one file to stat instead of every folder.
            "memories": [self.memory.home / "audit.jsonl"],
        }

    def _snapshot(self) -> dict[str, dict[str, Stamp]]:
        return {area: fingerprint(paths) for area, paths in self._paths().items()}

    def poll(self) -> list[str]:
        """Emit one ``external`` event per area whose files changed; return those areas."""
        now = self._snapshot()
        changed = [area for area, stamps in now.items() if stamps != self._last.get(area)]
        self._last = now
        for area in changed:
            self._emit({"area": area, "reason": "external"})
        return changed

    def announce(self, area: str, reason: str, **details: str | None) -> None:
        """A change this server made: emit it now, and do not report it again as external."""
        self._last = self._snapshot()
        data: dict[str, Any] = {"area": area, "reason": reason}
        data.update({k: v for k, v in details.items() if v is not None})
        self._emit(data)
