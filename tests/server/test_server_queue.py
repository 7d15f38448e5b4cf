"""Queue routes: list pending with evidence, apply, dismiss, process all, 409 on repeats."""

from __future__ import annotations

from pathlib import Path


def propose(mem, text: str, *, kind: str = "rule", project: str | None = None) -> str:
    """A manual proposal (the person typed it, so it is its own evidence)."""
    layer = "project" if project else None
    result = mem.propose(text, kind, text, layer=layer, project=project, source="manual")
    assert result["status"] == "queued", result
    return result["proposal"]["id"]


async def test_queue_lists_pending_with_evidence_and_origin(api, server_memory):
    pid = propose(server_memory, "Revenue always excludes refunds")
    result = server_memory.propose(
        "口径：收入不含退款",
        "info",
        "收入不含退款",
        source="chat-extraction",
        messages=[{"role": "user", "text": "注意，收入不含退款。", "id": "m1"}],
        quote_origin={"message_id": "m1"},
    )
    assert result["status"] == "queued", result
    code, data = await api("GET", "queue")
    assert code == 200
    assert data["count"] == 2 and data["enabled"] is True
    by_id = {p["id"]: p for p in data["items"]}
    assert by_id[pid]["evidence_quote"] == "Revenue always excludes refunds"
    zh = by_id[result["proposal"]["id"]]
    assert zh["source"] == "chat-extraction" and zh["kind"] == "info"
    assert zh["quote_origin"]["message_id"] == "m1"


async def test_apply_to_project_writes_the_file_and_leaves_the_list(
    api, server_memory, jp_root_dir
):
    folder = jp_root_dir / "sales-q3"
    folder.mkdir()
    server_memory.focus(folder)
    pid = propose(server_memory, "Fiscal weeks start on Monday")
    code, data = await api(
        "POST", "queue", pid, "apply", body={"to": "project", "project": "sales-q3"}
    )
    assert code == 200, data
    assert data["status"] == "applied" and data["project"] == "sales-q3"
    knowledge = folder / ".jupyter-memory" / "knowledge.md"
    assert "Fiscal weeks start on Monday" in knowledge.read_text(encoding="utf-8")
    code, data = await api("GET", "queue")
    assert data["count"] == 0
    # A second apply is refused with 409 and changes nothing.
    before = knowledge.read_bytes()
    code, data = await api("POST", "queue", pid, "apply", body={"to": "user"})
    assert code == 409 and data["state"] == "already_saved"
    assert knowledge.read_bytes() == before


async def test_apply_to_project_without_one_asks_to_pick(api, server_memory, memory_home: Path):
    pid = propose(server_memory, "Always round currency at the end")
    code, data = await api("POST", "queue", pid, "apply", body={"to": "project"})
    assert code == 422 and "pick a project" in data["message"]
    code, data = await api("GET", "queue")
    assert data["count"] == 1


async def test_dismiss_then_409(api, server_memory):
    pid = propose(server_memory, "Never trust the staging table")
    code, data = await api("POST", "queue", pid, "dismiss")
    assert code == 200 and data["status"] == "dismissed"
    code, data = await api("POST", "queue", pid, "dismiss")
    assert code == 409 and data["state"] == "already_dismissed"
    code, data = await api("POST", "queue", pid, "apply", body={"to": "user"})
    assert code == 409


async def test_unknown_id_404_bad_id_422_bad_body_422(api, server_memory):
    code, data = await api("POST", "queue", "no-such-id", "apply", body={"to": "user"})
    assert code == 404, data
    code, data = await api("POST", "queue", "..", "dismiss")
    assert code in (404, 422), data
    pid = propose(server_memory, "Dates are stored in UTC")
    code, data = await api("POST", "queue", pid, "apply", body={"to": "team"})
    assert code == 422 and data["field"] == "to"
    code, data = await api("POST", "queue", pid, "apply", body="{not json")
    assert code == 422
    code, data = await api("POST", "queue", pid, "apply", body={"to": "user", "extra": 1})
    assert code == 422 and data["field"] == "extra"
    code, data = await api(
        "POST", "queue", pid, "apply", body={"to": "project", "project": "../../etc"}
    )
    assert code == 422 and data["field"] == "project"
    code, data = await api("GET", "queue")
    assert data["count"] == 1


async def test_process_all_applies_each_item_to_its_suggested_layer(
    api, server_memory, jp_root_dir
):
    folder = jp_root_dir / "sales-q3"
    folder.mkdir()
    server_memory.focus(folder)
    with_project = propose(server_memory, "Region codes are ISO 3166", project="sales-q3")
    server_memory.focus(None)
    to_user = propose(server_memory, "收入口径不含退款")
    needs_pick = server_memory.propose(
        "Weekly numbers are Monday to Sunday",
        "rule",
        "Weekly numbers are Monday to Sunday",
        layer="project",
    )["proposal"]["id"]
    # The layer picker is gone: a body naming one is refused, naming the field.
    code, data = await api("POST", "queue", "process-all", body={"to": "project"})
    assert code == 422 and data["field"] == "to", data
    code, data = await api("POST", "queue", "process-all", body={})
    assert code == 200, data
    where = {a["id"]: (a["layer"], a["project"]) for a in data["applied"]}
    assert where == {with_project: ("project", "sales-q3"), to_user: ("user", None)}
    assert data["skipped"] == [
        {
            "id": needs_pick,
            "text": "Weekly numbers are Monday to Sunday",
            "reason": "pick a project",
        }
    ]
    assert "收入口径不含退款" in server_memory.knowledge("user")
    assert "收入口径不含退款" not in server_memory.knowledge("project", "sales-q3")
    code, data = await api("GET", "queue")
    assert [p["id"] for p in data["items"]] == [needs_pick]


async def test_purge_a_dismissed_proposal(api, server_memory, memory_home: Path):
    text = "Never trust the qzplvwkst staging table"
    pid = propose(server_memory, text)
    code, data = await api("POST", "queue", pid, "purge")
    assert code == 409 and "only a dismissed proposal is purged" in data["message"], data
    await api("POST", "queue", pid, "dismiss")
    code, data = await api("POST", "queue", pid, "purge")
    assert code == 200 and data == {"id": pid, "status": "purged"}
    code, data = await api("POST", "queue", pid, "purge")
    assert code == 200 and data["status"] == "already_purged"
    held = [p for p in memory_home.rglob("*") if p.is_file() and b"qzplvwkst" in p.read_bytes()]
    assert held == []
