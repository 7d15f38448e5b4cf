"""What the REST handlers share: one ``Memory``, the change watcher, reorganize jobs."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ..service.memory import Memory
from .changes import SCHEMA_ID, ChangeWatcher
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

    def _emit(self, data: dict[str, Any]) -> None:
        self.log.debug("jupyter-memory changed: %s", data)
        if self.event_logger is not None:
            self.event_logger.emit(schema_id=SCHEMA_ID, data=data)

    def changed(self, area: str, reason: str, **details: str | None) -> None:
        self.watcher.announce(area, reason, **details)

    def _job_done(self, job: ReorganizeJob) -> None:
        if job.state == "done":
            self.changed("knowledge", "reorganize", layer=job.layer, project=job.project)
