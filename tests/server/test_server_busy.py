"""The server's loop never waits on memory (issue 27, finding 1).

A real jupyter_server with the extension: while ANOTHER PROCESS holds the home
lock, then a project's lock, and while the ``git`` on the server's PATH sleeps
5 s per call, ``GET /api/status`` and a kernel's ``kernel_info`` round trip over
its websocket answer, and the blocked memory route answers ``503 busy`` naming
what held it (or succeeds once the lock is free) — never a 500.

No wall time is asserted (house rule): each check asserts that the answer
arrived while the lock was still held, or while the slow request was still in
flight; benchmarks/server_busy_bench.py measures the latencies.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lock_holder import Holder
from tests.server.server_config import memory_server_config
from tests.server.test_rest_schemas import check
from tests.server.test_server_queue import propose
from tests.team.gitrepo import git, require_git

DEADLINE_S = 3.0


@pytest.fixture
def jp_server_config():
    return memory_server_config(request_deadline=DEADLINE_S)


@pytest.fixture
def holders() -> Iterator[list[Holder]]:
    started: list[Holder] = []
    yield started
    for holder in started:
        holder.release()


async def kernel_info(ws: Any) -> dict[str, Any]:
    """One ``kernel_info`` request and its reply over the kernel's websocket."""
    msg_id = uuid.uuid4().hex
    ws.write_message(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "msg_type": "kernel_info_request",
                    "username": "test",
                    "session": uuid.uuid4().hex,
                    "version": "5.3",
                    "date": "",
                },
                "parent_header": {},
                "metadata": {},
                "content": {},
                "channel": "shell",
                "buffers": [],
            }
        )
    )
    while True:
        msg = json.loads(await ws.read_message())
        if msg["msg_type"] == "kernel_info_reply" and msg["parent_header"]["msg_id"] == msg_id:
            return msg["content"]


async def responsive(jp_fetch: Any, ws: Any) -> None:
    status = await jp_fetch("api", "status")
    assert status.code == 200
    assert (await kernel_info(ws))["status"] == "ok"


def assert_busy(code: int, data: Any, held_by: str) -> None:
    assert code == 503, data
    check("busy_error.json", data)
    assert data["held_by"].startswith(held_by), data


async def test_status_and_kernels_answer_while_memory_waits(
    api, jp_fetch, jp_ws_fetch, server_memory, memory_home: Path, jp_root_dir: Path, holders,
    tmp_path: Path, monkeypatch,
):  # fmt: skip
    require_git()
    folder = jp_root_dir / "sales-q3"
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    server_memory.project_init(folder)
    to_user = propose(server_memory, "Revenue always excludes refunds")
    to_project = propose(server_memory, "Fiscal weeks start on Monday")
    resp = await jp_fetch("api", "kernels", method="POST", body=json.dumps({"name": "python3"}))
    kid = json.loads(resp.body)["id"]
    ws = await jp_ws_fetch("api", "kernels", kid, "channels")
    assert (await kernel_info(ws))["status"] == "ok"

    # 1. Another process holds the home lock: an Apply waits for it, the server does not.
    server_memory.remember("Refunds arrive two days late")  # an outside write: a sync is due
    home = Holder(memory_home / ".jupyter-memory.lock")
    holders.append(home)
    write = asyncio.ensure_future(api("POST", "queue", to_user, "apply", body={"to": "user"}))
    await asyncio.sleep(0.2)  # the Apply is in flight
    # A second write queues behind it and is told what the first one waits on.
    second = asyncio.ensure_future(api("POST", "queue", to_project, "dismiss"))
    await responsive(jp_fetch, ws)
    # A read does not queue behind the waiting write, nor wait for the sync the
    # outside write made due: it answers from the index as it was.
    code, found = await api("GET", "memories", params={"q": "refunds"})
    assert code == 200 and found["count"] == 1, found
    code, queue = await api("GET", "queue")
    assert code == 200 and queue["count"] == 2, queue
    assert home.still_holding() and not write.done()
    code, data = await write
    assert_busy(code, data, "home lock")
    assert str(memory_home) in data["held_by"]
    code, data = await second
    assert_busy(code, data, "home lock")
    home.release()
    code, data = await api("POST", "queue", to_user, "apply", body={"to": "user"})
    assert code == 200 and data["status"] == "applied", data

    # 2. The same with the project's lock (the Apply takes the home lock, then this one).
    project = Holder(folder / ".jupyter-memory" / ".jupyter-memory.lock")
    holders.append(project)
    body = {"to": "project", "project": "sales-q3"}
    write = asyncio.ensure_future(api("POST", "queue", to_project, "apply", body=body))
    await asyncio.sleep(0.2)
    await responsive(jp_fetch, ws)
    assert project.still_holding() and not write.done()
    code, data = await write
    assert_busy(code, data, "project lock")
    project.release()
    code, data = await api("POST", "queue", to_project, "apply", body=body)
    assert code == 200 and data["status"] == "applied", data

    # 3. A git that sleeps 5 s per call: the team route stops at its deadline, in total.
    slow = tmp_path / "slow-bin"
    slow.mkdir()
    (slow / "git").write_text(f'#!/bin/sh\nsleep 5\nexec {require_git()} "$@"\n')
    (slow / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{slow}{os.pathsep}{os.environ['PATH']}")
    team = asyncio.ensure_future(api("GET", "team", params={"project": "sales-q3"}))
    await asyncio.sleep(0.2)
    await responsive(jp_fetch, ws)
    assert not team.done()
    code, data = await team
    assert_busy(code, data, "git")
