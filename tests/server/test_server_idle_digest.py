"""The server extension digests agent sessions that went quiet (a chat has no exit)."""

from __future__ import annotations

import pytest

from tests.server.server_config import memory_server_config
from tests.support.waiting import until


@pytest.fixture
def jp_server_config():
    # quiet for 0.06 s is idle here; looked at five times a second
    return memory_server_config(digest_idle_minutes=0.001, idle_check_interval=0.2)


async def test_a_quiet_chat_session_is_digested_by_the_server(api, server_memory):
    key = "chat:/work/analysis.chat"
    server_memory.hooks.record_agent_turn(
        key,
        person="We decided to reconcile refunds with the ledger because audit asks.",
        reply="Will do.",
    )
    code, _ = await api("GET", "queue")  # the server is up
    assert code == 200
    await until(lambda: server_memory.hooks.digest_pending(key) == 0)
    (row,) = [r for r in server_memory.memories() if r["source"] == "session-digest"]
    assert row["reviewed"] is False
    assert "reconcile refunds with the ledger" in server_memory.get(row["id"]).text
