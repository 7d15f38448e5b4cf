"""What the REST handlers share: one ``Memory``, the change watcher, reorganize jobs,
the worker pool their work runs in (server/off_loop.py)."""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._i18n import localized
from ..core.knowledge.proposals import Proposal
from ..exceptions import JupyterMemoryError
from ..service.memory import Memory
from ..store.mtimes import folder_fingerprint
from .changes import SCHEMA_ID, ChangeWatcher
from .contents_follow import ContentsFollower
from .jsonable import to_jsonable
from .off_loop import LaneName, OffLoop, current_lane
from .reorganize_jobs import ReorganizeJob, ReorganizeJobs


@dataclass(frozen=True)
class _QueueCache:
    """The queue as last read, and the folders' fingerprint it was read under."""

    fingerprint: Any
    pending: list[dict[str, Any]]  # JSON data, oldest first
    by_id: dict[str, dict[str, Any]]  # JSON data of every proposal, any status
    proposals: dict[str, Proposal]  # the same proposals, parsed


class MemoryBackend:
    def __init__(
        self,
        *,
        home: str | None,
        workspace: Path,
        event_logger: Any,
        log: logging.Logger,
        reorganize_timeout: float,
        workers: int = 4,
        request_deadline: float = 5.0,
    ) -> None:
        self._writer = Memory(home=home)
        # The server lives long: it watches the user layer for in-place edits, so a CLI
        # call or a new kernel opens without statting every file (folder_watch.py).
        self._writer.hooks.user.watch()
        self._readers: dict[LaneName, Memory] = {}
        self.off_loop = OffLoop(workers=workers, deadline=request_deadline, log=log)
        self.workspace = workspace
        self.event_logger = event_logger
        self.log = log
        self.watcher = ChangeWatcher(self._writer, self._emit)
        self.jobs = ReorganizeJobs(str(self._writer.home), reorganize_timeout, self._job_done)
        self._idle_run: threading.Thread | None = None
        # Set by the extension's loader: renames and deletes of the contents service.
        self.contents: ContentsFollower | None = None
        self._queue_cache: _QueueCache | None = None

    @property
    def memory(self) -> Memory:
        """The server's ``Memory``; in a read (server/off_loop.py) the one of its lane."""
        lane = current_lane()
        if lane is None or lane == "write":
            return self._writer
        return self.reader(lane)

    def reader(self, lane: LaneName) -> Memory:
        """A read lane's ``Memory``, a second one on the same home, so a read never waits
        behind a write of this server (as with another process, each sees the other's
        writes through the files and the index). Made once: one read at a time per lane."""
        if lane not in self._readers:
            self._readers[lane] = Memory(home=str(self._writer.home))
        return self._readers[lane]

    def _proposals(self) -> _QueueCache:
        """The queue as JSON data and as proposals, re-read only when the queue folder
        changed. The panel asks on first paint and after every change event, and every
        card in an open notebook asks too; parsing 200 files each time is what this saves.
        """
        # The person's queue and each team project's shared queue (issue 17).
        fingerprint = tuple(folder_fingerprint(f) for f in self.memory.hooks.queue_folders())
        cache = self._queue_cache  # one read: another lane may replace it meanwhile
        if cache is None or cache.fingerprint != fingerprint:
            proposals = self.memory.queue(include_decided=True)
            every = to_jsonable(proposals)
            cache = _QueueCache(
                fingerprint,
                [p for p in every if p.get("status") == "pending"],
                {str(p["id"]): p for p in every},
                {p.id: p for p in proposals},
            )
            self._queue_cache = cache
        return cache

    def pending_proposals(self) -> list[dict[str, Any]]:
        """Pending proposals as JSON data (oldest first)."""
        return self._proposals().pending

    def proposal_states_all(self) -> list[dict[str, Any]]:
        """Every proposal of the queue in any status, as JSON data."""
        return list(self._proposals().by_id.values())

    def proposal_states(self, ids: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
        """The proposals named by ``ids`` in any status (asked order), and the ids not in
        this queue (another memory home, or a file removed by hand)."""
        by_id = self._proposals().by_id
        return [by_id[i] for i in ids if i in by_id], [i for i in ids if i not in by_id]

    def with_neighbours(self, page: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each item of a page of the queue with the nearest approved and pending entries
        (context at decision time), computed per request: they follow the knowledge files
        as well. From the proposals the page was cut from, not a second read of the queue."""
        proposals = self._proposals().proposals
        listed = (proposals[str(item["id"])] for item in page if str(item["id"]) in proposals)
        context = self.memory.hooks.decision_context(listed)
        return [
            {**item, "neighbours": [n.to_dict() for n in context.get(str(item["id"]), [])]}
            for item in page
        ]

    def digest_idle_sessions(self, idle_minutes: float) -> threading.Thread | None:
        """Digest the agent sessions quiet for ``idle_minutes``, in a thread with its own
        ``Memory`` (one run at a time); what it did goes to the server log."""
        if self._idle_run is not None and self._idle_run.is_alive():
            return None

        def run() -> None:
            try:
                with Memory(home=str(self.memory.home)) as mem:
                    ended = mem.hooks.digest_idle_sessions(idle_minutes)
            except JupyterMemoryError as exc:
                self.log.warning("jupyter-memory: idle agent sessions not digested: %s", exc)
                return
            for end in ended:
                self.log.info("jupyter-memory: idle session digested: %s", end.to_dict())
                for notice in (end.budget_notice, end.notice):
                    if notice:  # said, never silent (issue 32)
                        self.log.warning(
                            "jupyter-memory: %s: %s", end.session_key, localized(notice)
                        )

        self._idle_run = threading.Thread(target=run, name="jupyter-memory-idle", daemon=True)
        self._idle_run.start()
        return self._idle_run

    def _emit(self, data: dict[str, Any]) -> None:
        self.log.debug("jupyter-memory changed: %s", data)
        if self.event_logger is None:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # a worker thread (server/off_loop.py): hand it to the loop
            if self.off_loop.loop is not None:
                self.off_loop.loop.call_soon_threadsafe(self._emit_now, data)
            return
        self._emit_now(data)

    def _emit_now(self, data: dict[str, Any]) -> None:
        self.event_logger.emit(schema_id=SCHEMA_ID, data=data)

    def close(self) -> None:
        """The server stops: no more work for the pool."""
        self.off_loop.shutdown()
        for reader in self._readers.values():
            reader.close()

    def changed(self, area: str, reason: str, **details: str | None) -> None:
        self.watcher.announce(area, reason, **details)

    def _job_done(self, job: ReorganizeJob) -> None:
        if job.state == "done":
            self.changed("knowledge", "reorganize", layer=job.layer, project=job.project)
