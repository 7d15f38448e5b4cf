"""Knowledge routes (read, save cap, Library status, reorganize job), settings, change events."""

from __future__ import annotations

import asyncio
import hashlib

from jupyter_memory.server.changes import SCHEMA_ID
from tests.support.waiting import polled, until

RULES = "## Rules\n\n- Revenue excludes refunds\n\n## Info\n\n- 财年从四月开始\n"


async def save(api, layer: str, text: str, **kwargs):
    """A person's save from the panel: read the version first, then save naming it."""
    code, data = await api("GET", "knowledge", layer, **kwargs)
    assert code == 200, data
    return await api(
        "PUT", "knowledge", layer, body={"text": text, "base": data["version"]}, **kwargs
    )


async def test_read_save_and_library_status(api, memory_home):
    code, data = await api("GET", "knowledge", "user")
    assert code == 200 and "## Rules" in data["text"]
    assert data["status"]["rules"] == 0 and data["status"]["exists"] is False
    code, data = await save(api, "user", RULES)
    assert code == 200, data
    assert data["status"]["rules"] == 1 and data["status"]["info"] == 1
    assert data["status"]["mode"] == "flat" and data["status"]["last_updated"]
    assert "财年从四月开始" in (memory_home / "knowledge.md").read_text(encoding="utf-8")
    code, status = await api("GET", "knowledge", "user", "status")
    assert code == 200 and status["chars"] == data["status"]["chars"]


async def test_oversize_save_is_413_and_file_untouched(api, memory_home):
    await save(api, "user", RULES)
    before = (memory_home / "knowledge.md").read_bytes()
    big = "## Rules\n\n" + "".join(f"- rule number {i} is long enough\n" for i in range(400))
    assert len(big) > 8000
    code, data = await save(api, "user", big)
    assert code == 413, data
    assert "8000" in data["message"].replace(",", "")
    assert (memory_home / "knowledge.md").read_bytes() == before


async def test_malformed_save_is_422_naming_the_line(api, memory_home):
    await save(api, "user", RULES)
    before = (memory_home / "knowledge.md").read_bytes()
    bad = "## Rules\n\n- ok\n      - - ?\n"
    code, data = await save(api, "user", bad)
    assert code == 422, data
    assert "knowledge.md:4" in data["message"]
    assert (memory_home / "knowledge.md").read_bytes() == before


async def test_unknown_layer_and_missing_project(api):
    code, data = await api("GET", "knowledge", "team")
    assert code == 404
    code, data = await api("GET", "knowledge", "project")
    assert code == 422 and data["error"] == "project_required"


async def test_reorganize_runs_as_a_job_with_progress(api, memory_home):
    text = "## Rules\n\n- Revenue excludes refunds\n- revenue excludes refunds\n\n## Info\n\n- x\n"
    await save(api, "user", text)
    code, job = await api("POST", "knowledge", "user", "reorganize")
    assert code == 202 and job["state"] == "running"
    code, again = await api("POST", "knowledge", "user", "reorganize")
    assert code == 409, again
    code, job = await polled(
        lambda: api("GET", "knowledge", "user", "reorganize"),
        lambda answer: answer[1]["state"] != "running",
    )
    assert job["state"] == "done", job
    assert job["elapsed"] > 0
    assert (memory_home / "knowledge.md.bak").exists()
    code, data = await api("GET", "knowledge", "user")
    assert data["text"].lower().count("revenue excludes refunds") == 1


async def test_settings_switches(api, server_memory):
    code, data = await api("GET", "settings")
    spend = data.pop("llm_spend")
    assert code == 200 and data == {
        "enabled": True,
        "auto_suggestions": True,
        "agents_md_autosync": False,
        "llm_configured": False,
        "llm_budget": {"calls_per_day": 40, "tokens_per_day": 200_000},
    }
    assert (spend["calls"], spend["tokens"], spend["spent"]) == (0, 0, False)
    # the daily LLM budget is the person's to set (issue 32); a field left out keeps its value
    code, data = await api("PUT", "settings", body={"llm_budget": {"calls_per_day": 10}})
    assert code == 200 and data["llm_budget"] == {"calls_per_day": 10, "tokens_per_day": 200_000}
    assert server_memory.settings["llm_budget"]["calls_per_day"] == 10
    code, data = await api("PUT", "settings", body={"llm_budget": {"calls_per_day": -1}})
    assert code == 422 and "calls_per_day" in data["field"]
    code, data = await api("PUT", "settings", body={"enabled": False})
    assert code == 200 and data["enabled"] is False
    assert server_memory.settings["enabled"] is False
    code, data = await api("GET", "queue")
    assert data["enabled"] is False
    code, data = await api("PUT", "settings", body={"agents_md_autosync": True})
    assert code == 200 and data["agents_md_autosync"] is True
    assert server_memory.settings["agents_md_autosync"] is True
    code, data = await api("PUT", "settings", body={"enabled": "maybe"})
    assert code == 422 and data["field"] == "enabled"


async def test_events_for_own_changes_and_other_processes(api, jp_serverapp, server_memory):
    seen: list[dict] = []

    async def listener(logger, schema_id, data):
        seen.append(dict(data))

    jp_serverapp.event_logger.add_listener(schema_id=SCHEMA_ID, listener=listener)
    r = server_memory.propose("Always label axes", "rule", "Always label axes", source="manual")
    pid = r["proposal"]["id"]
    # Another process (here: a second Memory) added a proposal: noticed by polling.
    await until(lambda: {"area": "queue", "reason": "external"} in seen)
    seen.clear()
    code, _ = await api("POST", "queue", pid, "dismiss")
    assert code == 200
    await until(lambda: any(e.get("reason") == "dismiss" for e in seen))
    assert {"area": "queue", "reason": "dismiss", "id": pid} in seen
    await asyncio.sleep(0.5)  # a few polls: the server's own change is not reported twice
    assert not any(e["reason"] == "external" for e in seen), seen
    server_memory.save_knowledge("user", RULES)
    await until(lambda: {"area": "knowledge", "reason": "external"} in seen)


async def test_project_layer_save_and_reorganize(api, server_memory, jp_root_dir):
    folder = jp_root_dir / "sales-q3"
    folder.mkdir()
    server_memory.focus(folder)
    text = "## Rules\n\n- Join on order_id\n- join on order_id\n\n## Info\n"
    code, data = await save(api, "project", text, params={"project": "sales-q3"})
    assert code == 200 and data["status"]["rules"] == 2, data
    code, job = await api(
        "POST", "knowledge", "project", "reorganize", params={"project": "sales-q3"}
    )
    assert code == 202 and job["project"] == "sales-q3"
    code, job = await polled(
        lambda: api("GET", "knowledge", "project", "reorganize", params={"project": "sales-q3"}),
        lambda answer: answer[1]["state"] != "running",
    )
    assert job["state"] == "done", job
    saved = (folder / ".jupyter-memory" / "knowledge.md").read_text(encoding="utf-8")
    assert saved.lower().count("join on order_id") == 1
    # The user file was not touched by the project's reorganize.
    code, job = await api("GET", "knowledge", "user", "reorganize")
    assert code == 404


# -- compare-and-swap saves (issue 19 B) ------------------------------------------------


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def test_every_read_returns_the_version_of_the_file_bytes(api, memory_home):
    code, data = await api("GET", "knowledge", "user")
    assert code == 200 and data["version"] == sha(b"") and data["status"]["version"] == sha(b"")
    code, data = await save(api, "user", RULES)
    assert code == 200, data
    on_disk = (memory_home / "knowledge.md").read_bytes()
    assert data["version"] == data["saved"]["version"] == sha(on_disk)
    assert data["text"] == on_disk.decode("utf-8")
    code, status = await api("GET", "knowledge", "user", "status")
    assert status["version"] == sha(on_disk)


async def test_a_save_without_a_base_is_refused_naming_the_field(api, memory_home):
    await save(api, "user", RULES)
    before = (memory_home / "knowledge.md").read_bytes()
    code, data = await api("PUT", "knowledge", "user", body={"text": "## Rules\n\n- mine\n"})
    assert code == 422 and data["field"] == "base", data
    assert "base" in data["message"] and "version" in data["message"]
    code, data = await api("PUT", "knowledge", "user", body={"text": RULES, "base": None})
    assert code == 422 and data["field"] == "base", data
    code, data = await api("PUT", "knowledge", "user", body={"text": RULES, "base": "nope"})
    assert code == 422 and data["field"] == "base", data
    assert (memory_home / "knowledge.md").read_bytes() == before


async def test_a_stale_save_after_an_apply_is_409_with_both_versions(
    api, server_memory, memory_home
):
    await save(api, "user", RULES)
    code, opened = await api("GET", "knowledge", "user")  # the panel editor opens
    pid = server_memory.propose(
        "Always label chart axes", "rule", "Always label chart axes", source="manual"
    )["proposal"]["id"]
    code, applied = await api("POST", "queue", pid, "apply", body={"to": "user"})
    assert code == 200 and applied["status"] == "applied", applied
    after_apply = (memory_home / "knowledge.md").read_bytes()
    mine = opened["text"].replace("## Info", "- Amounts are in EUR\n\n## Info")
    code, data = await api(
        "PUT", "knowledge", "user", body={"text": mine, "base": opened["version"]}
    )
    assert code == 409, data
    assert data["error"] == "conflict" and data["state"] == "stale_version"
    assert str(memory_home / "knowledge.md") in data["message"]
    assert data["current"] == {"text": after_apply.decode("utf-8"), "version": sha(after_apply)}
    assert data["yours"] == {"text": mine, "base": opened["version"]}
    assert (memory_home / "knowledge.md").read_bytes() == after_apply
    assert server_memory.proposal(pid).status == "applied"
    # Resolved against the version the 409 named: the Apply and the edit are both kept.
    merged = data["current"]["text"].replace("## Info", "- Amounts are in EUR\n\n## Info")
    code, done = await api(
        "PUT", "knowledge", "user", body={"text": merged, "base": data["current"]["version"]}
    )
    assert code == 200, done
    final = (memory_home / "knowledge.md").read_text(encoding="utf-8")
    assert "Always label chart axes" in final and "Amounts are in EUR" in final
