"""Reorganize runs as a background job per knowledge file, with progress and a timeout.

One job per (layer, project) at a time; another file can be reorganized
meanwhile. The work happens in a child process (``reorganize_worker``) so the
server stays responsive and a job past its timeout can really be stopped.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import ConflictError

Key = tuple[str, str | None]


@dataclass
class ReorganizeJob:
    layer: str
    project: str | None
    timeout: float
    state: str = "running"  # running → done | failed | timed_out
    stage: str = "starting"
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    result: Any = None
    error: dict[str, Any] | None = None
    status: int | None = None

    def view(self) -> dict[str, Any]:
        end = self.finished if self.finished is not None else time.monotonic()
        return {
            "layer": self.layer,
            "project": self.project,
            "state": self.state,
            "stage": self.stage,
            "elapsed": round(end - self.started, 2),
            "timeout": self.timeout,
            "result": self.result,
            "error": self.error,
            "status": self.status,
        }


class ReorganizeJobs:
    def __init__(self, home: str, timeout: float, on_done: Callable[[ReorganizeJob], None]) -> None:
        self.home = home
        self.timeout = timeout
        self._on_done = on_done
        self._jobs: dict[Key, ReorganizeJob] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def get(self, layer: str, project: str | None) -> ReorganizeJob | None:
        return self._jobs.get((layer, project))

    def start(self, layer: str, project: str | None) -> ReorganizeJob:
        current = self._jobs.get((layer, project))
        if current is not None and current.state == "running":
            where = f"project {project}" if project else "User"
            raise ConflictError(f"{where} knowledge is already being reorganized", state="running")
        job = ReorganizeJob(layer=layer, project=project, timeout=self.timeout)
        self._jobs[(layer, project)] = job
        task = asyncio.get_running_loop().create_task(self._run(job))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    async def _run(self, job: ReorganizeJob) -> None:
        cmd = [sys.executable, "-m", "jupyter_memory.server.reorganize_worker"]
        cmd += ["--home", self.home, "--layer", job.layer]
        if job.project:
            cmd += ["--project", job.project]
        proc = await asyncio.create_subprocess_exec(
            *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        try:
            await asyncio.wait_for(self._follow(proc, job), timeout=job.timeout)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.communicate()  # drain the pipe so its transport closes with the loop
            job.state, job.stage = "timed_out", "stopped"
            job.status = 504
            job.error = {
                "message": f"reorganize took longer than {job.timeout:g} s and was stopped; "
                "the knowledge file is unchanged (or fully replaced, never half-written)",
                "error": "timeout",
            }
        except asyncio.CancelledError:  # the server is shutting down
            proc.kill()
            raise
        finally:
            job.finished = time.monotonic()
            self._on_done(job)

    async def _follow(self, proc: asyncio.subprocess.Process, job: ReorganizeJob) -> None:
        assert proc.stdout is not None
        other: list[str] = []  # warnings or a traceback, for the error message
        final: dict[str, Any] | None = None
        async for raw in proc.stdout:
            try:
                msg = json.loads(raw)
            except json.JSONDecodeError:
                other = [*other[-20:], raw.decode("utf-8", "replace").strip()]
                continue
            if not isinstance(msg, dict):
                continue
            if msg.get("stage") in ("done", "failed"):
                final = msg
            else:
                job.stage = str(msg.get("stage", job.stage))
        code = await proc.wait()
        # The job ends only once the worker has exited, so "done" means the file is final.
        if final is not None and final["stage"] == "done":
            job.state, job.stage, job.result = "done", "done", final.get("result")
        elif final is not None:
            job.state, job.stage = "failed", "failed"
            job.error, job.status = final.get("error"), final.get("status")
        else:
            job.state, job.stage, job.status = "failed", "failed", 500
            tail = [line for line in other if line][-1:] or [f"exit code {code}"]
            job.error = {"message": f"reorganize worker failed: {tail[0]}", "error": "worker"}
