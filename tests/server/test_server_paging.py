"""The queue and memory search answer one page at a time (issue 16).

``GET queue?limit=&offset=`` returns one page of the pending proposals (100 by
default), ``count`` stays the number pending, ``more`` says how many follow;
``GET memories?q=&limit=&offset=`` pages the hits the same way. A bad
``limit`` or ``offset`` is a 422 naming it.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.server.queue_seed import seed_pending


async def test_queue_pages_its_pending_items(api, memory_home):
    ids = seed_pending(memory_home, 250)
    code, first = await api("GET", "queue")
    assert code == 200
    assert first["count"] == 250 and first["offset"] == 0 and first["more"] == 150
    assert [p["id"] for p in first["items"]] == ids[:100]
    code, last = await api("GET", "queue", params={"offset": "200", "limit": "100"})
    assert [p["id"] for p in last["items"]] == ids[200:] and last["more"] == 0
    code, middle = await api("GET", "queue", params={"offset": "100", "limit": "25"})
    assert [p["id"] for p in middle["items"]] == ids[100:125] and middle["more"] == 125
    code, past = await api("GET", "queue", params={"offset": "900"})
    assert code == 200 and past["items"] == [] and past["count"] == 250


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": "0"}, "limit"),
        ({"limit": "501"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"offset": "-1"}, "offset"),
        ({"offset": "1.5"}, "offset"),
    ],
)
async def test_queue_refuses_a_bad_page_naming_it(api, params, field):
    code, data = await api("GET", "queue", params=params)
    assert code == 422 and data["field"] == field and field in data["message"], data


async def test_memory_search_pages_its_hits(api, server_memory):
    now = datetime.now(timezone.utc)
    for i in range(25):
        server_memory.remember(f"退款 refunds rule {i}", created=now - timedelta(minutes=i))
    code, first = await api("GET", "memories", params={"q": "refunds", "limit": "10"})
    assert code == 200 and len(first["hits"]) == 10 and first["offset"] == 0 and first["more"]
    code, second = await api(
        "GET", "memories", params={"q": "refunds", "limit": "10", "offset": "10"}
    )
    code, third = await api(
        "GET", "memories", params={"q": "refunds", "limit": "10", "offset": "20"}
    )
    assert len(third["hits"]) == 5 and not third["more"]
    seen = [h["id"] for page in (first, second, third) for h in page["hits"]]
    assert len(seen) == len(set(seen)) == 25
    code, data = await api("GET", "memories", params={"q": "refunds", "offset": "x"})
    assert code == 422 and data["field"] == "offset"


async def test_the_queue_searches_and_filters_before_it_pages(api, memory_home):
    ids = seed_pending(memory_home, 250)  # every third is info, the rest rules
    code, rules = await api("GET", "queue", params={"kind": "rule", "limit": "50"})
    assert code == 200 and rules["count"] == 250
    assert rules["matched"] == len([i for i in range(250) if i % 3]) == 166
    assert all(p["kind"] == "rule" for p in rules["items"]) and rules["more"] == 116
    # A word past the first page is found: the filter runs before the page is cut.
    code, found = await api("GET", "queue", params={"q": "C212 规则", "limit": "10"})
    assert [p["id"] for p in found["items"]] == [ids[212]] and found["matched"] == 1
    code, none = await api("GET", "queue", params={"source": "agent"})
    assert none["matched"] == 0 and none["items"] == [] and none["count"] == 250
    code, unfiltered = await api("GET", "queue")
    assert unfiltered["matched"] == 250


@pytest.mark.parametrize("field", ["layer", "kind", "source"])
async def test_the_queue_refuses_an_unknown_filter_naming_it(api, field):
    code, data = await api("GET", "queue", params={field: "everything"})
    assert code == 422 and data["field"] == field and "everything" in data["message"], data
