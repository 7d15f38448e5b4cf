"""What the REST handlers share: one ``Memory``, the change watcher, reorganize jobs."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ..service.memory import Memory
from ..store.layout import RootLayout
from ..store.mtimes import folder_fingerprint
from .changes import SCHEMA_ID, ChangeWatcher
from .jsonable import to_jsonable
from .reorganize_jobs import ReorganizeJob, ReorganizeJobs


class MemoryBackend:
    def __init__(
        self,
        *,
        home: str | None,
        workspace: Path,
        event_logger: Any,
        log: logging.Logger,
        reorganize_timeout: float,
    ) -> None:
        self.memory = Memory(home=home)
        self.workspace = workspace
        self.event_logger = event_logger
        self.log = log
        self.watcher = ChangeWatcher(self.memory, self._emit)
        self.jobs = ReorganizeJobs(str(self.memory.home), reorganize_timeout, self._job_done)
        self._queue_cache: tuple[Any, list[dict[str, Any]]] | None = None

    def pending_proposals(self) -> list[dict[str, Any]]:
        """Pending proposals as JSON data, re-read only when the queue folder changed.

        The panel asks on first paint and after every change event; parsing 200
        proposal files each time is what this saves.
        """
        fingerprint = folder_fingerprint(RootLayout(self.memory.home).queue)
        if self._queue_cache is None or self._queue_cache[0] != fingerprint:
            items = [p for p in to_jsonable(self.memory.queue()) if p.get("status") == "pending"]
            self._queue_cache = (fingerprint, items)
        return self._queue_cache[1]

    def _emit(self, data: dict[str, Any]) -> None:
        self.log.debug("jupyter-memory changed: %s", data)
        if self.event_logger is not None:
            self.event_logger.emit(schema_id=SCHEMA_ID, data=data)

    def changed(self, area: str, reason: str, **details: str | None) -> None:
        self.watcher.announce(area, reason, **details)

    def _job_done(self, job: ReorganizeJob) -> None:
        if job.state == "done":
            self.changed("knowledge", "reorganize", layer=job.layer, project=job.project)
