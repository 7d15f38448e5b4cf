"""A reorganize past its timeout is stopped; the knowledge file is left as it was."""

from __future__ import annotations

import pytest

from tests.server.server_config import memory_server_config
from tests.support.waiting import polled


@pytest.fixture
def jp_server_config():
    # far below a worker's start-up time, so the job cannot finish in time
    return memory_server_config(reorganize_timeout=0.05)


async def test_past_timeout_the_job_is_stopped_and_file_unchanged(api, memory_home):
    text = "## Rules\n\n- a rule\n- a rule\n\n## Info\n"
    _, read = await api("GET", "knowledge", "user")
    code, _ = await api("PUT", "knowledge", "user", body={"text": text, "base": read["version"]})
    assert code == 200
    before = (memory_home / "knowledge.md").read_bytes()
    code, job = await api("POST", "knowledge", "user", "reorganize")
    assert code == 202
    code, job = await polled(
        lambda: api("GET", "knowledge", "user", "reorganize"),
        lambda answer: answer[1]["state"] != "running",
    )
    assert job["state"] == "timed_out", job
    assert "0.05 s" in job["error"]["message"]
    assert (memory_home / "knowledge.md").read_bytes() == before
    assert not (memory_home / "knowledge.md.bak").exists()
