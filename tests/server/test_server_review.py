"""Review cards over REST (issue 15): GET review, POST review/{id}/keep|discard|promote on a
real jupyter_server. The live state a notebook's review card is drawn from, decisions made
once (a second one is a 409 naming what happened), strict bodies naming the field, a
project-layer memory found in its project, and the change events (own and external)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from test_rest_schemas import check

from jupyter_memory.server.changes import SCHEMA_ID
from jupyter_memory.service.learning.review_state import home_key
from tests.support.waiting import until


def unreviewed(mem, text: str, quote: str | None = "the person's words", **kw) -> str:
    evidence = [{"quote": quote, "source": "cell"}] if quote else []
    entry = mem.remember(text, source="session-digest", reviewed=False, evidence=evidence, **kw)
    return str(entry.id)


async def states(api, ids: list[str], **params) -> dict:
    code, data = await api("GET", "review", params={"ids": ",".join(ids), **params})
    assert code == 200, data
    check("review_states.json", data)
    return data


async def test_states_follow_every_decision(api, server_memory, memory_home: Path):
    keep = unreviewed(server_memory, "Refunds arrive two days late", "refunds arrive 2 days late")
    drop = unreviewed(server_memory, "Orders join customers", "join on customer_id")
    rule = unreviewed(server_memory, "收入不含退款", "口径：收入不含退款，这个要记住")
    data = await states(api, [keep, drop, rule, "m-gone"])
    assert [s["state"] for s in data["items"]] == ["unreviewed"] * 3
    assert data["missing"] == ["m-gone"]
    assert data["home"] == home_key(memory_home)
    first = data["items"][0]
    assert first["quotes"] == [{"quote": "refunds arrive 2 days late", "source": "cell"}]
    assert first["promotable"] is True and first["layer"] == "user" and first["proposal"] is None

    code, kept = await api("POST", "review", keep, "keep")
    assert code == 200 and kept == {"id": keep, "status": "kept", "reviewed": True}
    check("review_decision.json", kept)
    code, gone = await api("POST", "review", drop, "discard")
    assert code == 200 and gone == {"id": drop, "status": "discarded"}
    code, promoted = await api("POST", "review", rule, "promote", body={"kind": "info"})
    assert code == 200 and promoted["status"] == "promoted", promoted
    check("review_decision.json", promoted)
    pid = promoted["proposal"]["id"]
    assert server_memory.proposal(pid).kind == "info"
    assert server_memory.proposal(pid).evidence_quote.startswith("口径")

    data = await states(api, [keep, drop, rule])
    assert [(s["id"], s["state"]) for s in data["items"]] == [(keep, "kept"), (rule, "promoted")]
    assert data["missing"] == [drop]
    promoted_state = data["items"][1]
    assert promoted_state["promoted_to"] == pid
    assert promoted_state["proposal"]["id"] == pid
    assert promoted_state["proposal"]["status"] == "pending"
    # The card says what became of the proposal too: applied elsewhere, the state follows.
    server_memory.apply(pid, to="user")
    data = await states(api, [rule])
    assert data["items"][0]["proposal"]["status"] == "applied"


async def test_a_second_decision_is_a_409_and_changes_nothing(api, server_memory):
    mid = unreviewed(server_memory, "Weekends are excluded from lead time")
    server_memory.review_memory(mid, "keep")  # decided elsewhere (another kernel, the CLI)
    for verb in ("keep", "discard", "promote"):
        code, data = await api("POST", "review", mid, verb)
        assert code == 409, (verb, data)
        check("error.json", data)
        assert data["state"] == "already_kept", data
    assert server_memory.get(mid).meta.reviewed is True  # discard did not forget it
    code, data = await api("POST", "review", "m-never-here", "keep")
    assert code == 404 and "m-never-here" in data["message"], data


async def test_a_memory_without_the_persons_words_cannot_be_promoted(api, server_memory):
    mid = unreviewed(server_memory, "From agent replies only", quote=None)
    data = await states(api, [mid])
    assert data["items"][0]["promotable"] is False
    code, data = await api("POST", "review", mid, "promote")
    assert code == 409 and data["error"] == "refused_by_policy", data
    assert server_memory.get(mid).meta.reviewed is False


async def test_bad_input_is_a_4xx_naming_the_field(api, server_memory, memory_home: Path):
    mid = unreviewed(server_memory, "Vouchers count as discounts")
    for params, field in [
        ({}, "ids"),
        ({"ids": "a/b"}, "ids"),
        ({"ids": ",".join(f"m-{i}" for i in range(201))}, "ids"),
        ({"ids": mid, "project": "../etc"}, "project"),
    ]:
        code, data = await api("GET", "review", params=params)
        assert code == 422 and data["field"] == field, (params, data)
        assert field in data["message"], data
    code, data = await api("GET", "review", params={"ids": mid, "project": "nowhere"})
    assert code == 404 and data["field"] == "project", data
    for body, field in [
        ({"kind": "fact"}, "kind"),
        ({"kind": None}, "kind"),
        ({"kind": "rule", "x": 1}, "x"),
        ({"project": 3}, "project"),
        ("[1]", "body"),
    ]:
        code, data = await api("POST", "review", mid, "promote", body=body)
        assert code == 422 and data["field"] == field, (body, data)
    code, data = await api("POST", "review", mid, "keep", body={"reason": "x"})
    assert code == 422 and data["field"] == "reason", data
    code, data = await api("POST", "review", "not an id", "keep")
    assert code == 422 and data["field"] == "id", data
    assert server_memory.get(mid).meta.reviewed is False  # nothing refused changed it
    code, data = await api("POST", "review", mid, "keep", body={"project": None})
    assert code == 200 and data["status"] == "kept", data


async def test_a_project_layer_memory_is_found_in_its_project(api, server_memory, jp_root_dir):
    folder = jp_root_dir / "sales-q3"
    folder.mkdir()
    server_memory.focus(folder)
    mid = unreviewed(server_memory, "Q3 is July to September", "q3 runs july to september")
    server_memory.focus(None)
    assert server_memory.get(mid).layer == "project"
    data = await states(api, [mid])  # the server focuses no project: found in the registered one
    assert data["missing"] == [] and data["items"][0]["project"] == "sales-q3"
    data = await states(api, [mid], project="sales-q3")
    (state,) = data["items"]
    assert state["layer"] == "project" and state["project"] == "sales-q3"
    code, data = await api("POST", "review", mid, "promote", body={"project": "sales-q3"})
    assert code == 200, data
    assert server_memory.proposal(data["proposal"]["id"]).project == "sales-q3"


async def test_events_for_own_decisions_and_other_processes(api, jp_serverapp, server_memory):
    seen: list[dict] = []

    async def listener(logger, schema_id, data):
        seen.append(dict(data))

    jp_serverapp.event_logger.add_listener(schema_id=SCHEMA_ID, listener=listener)
    mine = unreviewed(server_memory, "Freight belongs to cost of goods sold")
    other = unreviewed(server_memory, "Headcount is taken on the last working day")
    await until(lambda: {"area": "memories", "reason": "external"} in seen)
    seen.clear()
    code, _ = await api("POST", "review", mine, "keep")
    assert code == 200
    assert {"area": "memories", "reason": "keep", "id": mine} in seen
    await asyncio.sleep(0.5)  # a few polls: the server's own change is not reported twice
    assert not any(e["reason"] == "external" for e in seen), seen
    code, data = await api("POST", "review", other, "promote")
    assert code == 200
    assert {"area": "memories", "reason": "promote", "id": other} in seen
    assert {"area": "queue", "reason": "propose", "id": data["proposal"]["id"]} in seen
    seen.clear()
    third = unreviewed(server_memory, "Royalties accrue monthly")
    await until(lambda: {"area": "memories", "reason": "external"} in seen)
    seen.clear()
    server_memory.review_memory(third, "discard")  # another process (a kernel, the CLI)
    await until(lambda: {"area": "memories", "reason": "external"} in seen)
