"""GET /queue/proposals?ids=…: the live state of the proposals the notebook's cards show.

A card in a saved notebook carries only its proposal id and a snapshot; the lab
extension asks this route what became of each proposal (pending, applied where,
dismissed, superseded) and whether it is in this server's queue at all.
"""

from __future__ import annotations


def propose(mem, text: str, *, kind: str = "rule") -> str:
    result = mem.propose(text, kind, text, source="manual")
    assert result["status"] == "queued", result
    return str(result["proposal"]["id"])


async def test_states_of_pending_decided_and_unknown_proposals(api, server_memory, jp_root_dir):
    folder = jp_root_dir / "sales-q3"
    folder.mkdir()
    server_memory.focus(folder)
    pending = propose(server_memory, "口径：收入不含退款", kind="info")
    saved = propose(server_memory, "Revenue always excludes refunds")
    dismissed = propose(server_memory, "Weeks start on Monday")
    server_memory.apply(saved, to="project", project="sales-q3")
    server_memory.dismiss(dismissed)
    ids = ",".join([pending, saved, dismissed, "p-not-here"])
    code, data = await api("GET", "queue/proposals", params={"ids": ids})
    assert code == 200, data
    by_id = {p["id"]: p for p in data["items"]}
    assert [p["id"] for p in data["items"]] == [pending, saved, dismissed]  # asked order
    assert by_id[pending]["status"] == "pending"
    assert by_id[pending]["text"] == "口径：收入不含退款"
    assert by_id[saved]["status"] == "applied"
    assert by_id[saved]["applied_to"] == "project"
    assert by_id[saved]["applied_project"] == "sales-q3"
    assert by_id[dismissed]["status"] == "dismissed"
    assert data["missing"] == ["p-not-here"]


async def test_a_decision_by_another_process_is_seen_at_once(api, server_memory):
    pid = propose(server_memory, "Always use UTC timestamps")
    code, data = await api("GET", "queue/proposals", params={"ids": pid})
    assert data["items"][0]["status"] == "pending"
    server_memory.dismiss(pid)  # the CLI, a kernel: not through this server
    code, data = await api("GET", "queue/proposals", params={"ids": pid})
    assert code == 200 and data["items"][0]["status"] == "dismissed"


async def test_bad_ids_are_refused_naming_the_field(api):
    code, data = await api("GET", "queue/proposals", params={"ids": "../etc"})
    assert code == 422 and data["field"] == "ids", data
    code, data = await api("GET", "queue/proposals")
    assert code == 422 and data["field"] == "ids", data
    too_many = ",".join(f"p-{i}" for i in range(201))
    code, data = await api("GET", "queue/proposals", params={"ids": too_many})
    assert code == 422 and "200" in data["message"], data
