"""A queue listing never holds up the panel's other reads (server/off_loop.py's lanes).

Listing a queue of 5,000 pending proposals reads and analyses all of them (seconds
of CPU, tens of seconds on a loaded machine). The panel asks for the queue, the
settings, the projects, the knowledge, the learning log, the focus and the review
count at once: when every read shared one lane, the six cheap ones waited behind
the listing, ran out their deadline and answered ``503 busy`` (seen in the lab's
log beside a CPU burner: dozens of busy reads, and a "Show more" that never came).

Here the deadline is a fraction of the listing's time; each cheap read must answer
while the listing still runs. No wall time is asserted: what is checked is that the
answers arrived while the listing was in flight.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.server.queue_seed import seed_pending
from tests.server.server_config import memory_server_config

DEADLINE_S = 0.3
CHEAP_READS = ("settings", "projects", "knowledge/user", "learning", "review/count")


@pytest.fixture
def jp_server_config():
    return memory_server_config(request_deadline=DEADLINE_S)


async def _listing_runs(backend: Any, listing: asyncio.Future[Any]) -> None:
    """Until a worker runs the listing (its lane is held), or it has ended."""
    while not listing.done() and backend.off_loop.lanes["listing"].holder is None:
        await asyncio.sleep(0.005)


async def test_cheap_reads_answer_while_a_large_queue_is_listed(api, memory_home, jp_serverapp):
    seed_pending(memory_home, 5_000)
    backend = jp_serverapp.web_app.settings["jupyter_memory"]
    listing = asyncio.ensure_future(api("GET", "queue"))
    await _listing_runs(backend, listing)
    answered_while_listing = []
    for route in CHEAP_READS:
        code, data = await api("GET", *route.split("/"))
        assert code == 200, (route, data)
        answered_while_listing.append(not listing.done())
    code, page = await listing
    assert code == 200 and page["count"] == 5_000 and len(page["items"]) == 100
    # The first cheap answer came while the listing ran (it takes seconds; each of
    # these a few milliseconds): they did not wait for it.
    assert answered_while_listing[0], answered_while_listing


async def test_a_second_listing_waits_for_the_first_and_shares_what_it_read(
    api, memory_home, jp_serverapp
):
    """Two listings at once take turns on their lane (one ``Memory`` each lane: the
    second reuses the parsed queue and the neighbour index the first built) and both
    answer, within a deadline long enough for the first."""
    seed_pending(memory_home, 300)
    backend = jp_serverapp.web_app.settings["jupyter_memory"]
    backend.off_loop.deadline = 120.0
    first = asyncio.ensure_future(api("GET", "queue"))
    await _listing_runs(backend, first)
    code, second = await api("GET", "queue", params={"offset": "100"})
    assert code == 200 and [p["id"] for p in second["items"]][:1] == ["p-seed00100"]
    code, page = await first
    assert code == 200 and page["items"][0]["id"] == "p-seed00000"
    listing_memory = backend.reader("listing")
    assert listing_memory.hooks.knowledge_services.queue.neighbours.builds == 1
