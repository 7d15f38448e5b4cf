"""Read routes over the foundation service: memories, projects, cases."""

from __future__ import annotations

import shutil
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "sample_workspace"


async def test_memories_search_english_and_chinese(api, server_memory):
    server_memory.remember("Revenue excludes refunds in the Q3 report", type="semantic")
    server_memory.remember("口径：收入不含退款，按自然月统计", type="semantic")
    code, data = await api("GET", "memories", params={"q": "refunds"})
    assert code == 200
    assert data["count"] == 1
    hit = data["hits"][0]
    assert "refunds" in hit["text"] and hit["level"] == "snippet"
    code, data = await api("GET", "memories", params={"q": "退款"})
    assert code == 200 and data["count"] == 1
    assert "退款" in data["hits"][0]["text"]


async def test_memories_get_changes_nothing(api, server_memory):
    entry = server_memory.remember("always check the currency column", type="semantic")
    before = server_memory.get(entry.id)
    for _ in range(3):
        code, _data = await api("GET", "memories", params={"q": "currency"})
        assert code == 200
    rows = {r["id"]: r for r in server_memory.memories()}
    assert rows[entry.id]["access_count"] == 0
    assert server_memory.get(entry.id) == before


async def test_memories_bad_limit_is_422(api):
    code, data = await api("GET", "memories", params={"limit": "lots"})
    assert code == 422 and "limit" in data["message"]
    code, data = await api("GET", "memories", params={"limit": "0"})
    assert code == 422


async def test_projects_lists_known_and_adds_folder_under_root(api, jp_root_dir, server_memory):
    code, data = await api("GET", "projects")
    assert code == 200 and data == {"projects": []}
    (jp_root_dir / "sales-q3").mkdir()
    code, data = await api("POST", "projects", body={"path": "sales-q3"})
    assert code == 201 and data["id"] == "sales-q3"
    code, data = await api("GET", "projects")
    assert [p["id"] for p in data["projects"]] == ["sales-q3"]
    assert server_memory.hooks.known_projects()["sales-q3"] == str(
        (jp_root_dir / "sales-q3").resolve()
    )


async def test_projects_refuses_folders_outside_root(api, jp_root_dir, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    for path in ("../outside", str(outside), "sales/../../outside"):
        code, data = await api("POST", "projects", body={"path": path})
        assert code == 422, (path, data)
        assert data["field"] == "path"
    code, data = await api("POST", "projects", body={"path": "missing-folder"})
    assert code == 404


async def test_project_ids_are_validated_not_used_as_paths(api, server_memory):
    for bad in ("../../etc", "..", "a/b", "~root", "C:evil", "x\x00y"):
        code, data = await api("GET", "knowledge", "project", params={"project": bad})
        assert code == 422, (bad, data)
        assert data["field"] == "project"
        code, data = await api("GET", "memories", params={"project": bad})
        assert code == 422, (bad, data)
    code, data = await api("GET", "knowledge", "project", params={"project": "never-seen"})
    assert code == 404 and "Pick project" in data["message"]


async def test_cases_list_index_rows_and_entry(api, jp_root_dir):
    shutil.copytree(SAMPLE / "cases", jp_root_dir / "cases")
    code, data = await api("GET", "cases")
    assert code == 200
    cases = {c["id"]: c for c in data["cases"]}
    case = cases["CASE-2025-014"]
    assert len(case["rows"]) == 3
    code, detail = await api("GET", "cases", "CASE-2025-014")
    assert code == 200 and len(detail["entries"]) == 3
    name = detail["entries"][0]["file"]
    code, entry = await api("GET", "cases", "CASE-2025-014", "entries", name)
    assert code == 200 and entry["body"]
    code, hits = await api("GET", "cases", params={"q": "refund"})
    assert code == 200 and hits["count"] >= 1


async def test_cases_refuse_traversal(api, jp_root_dir):
    shutil.copytree(SAMPLE / "cases", jp_root_dir / "cases")
    code, data = await api("GET", "cases", "..%2F..%2Fetc")
    assert code in (404, 422), data
    code, data = await api("GET", "cases", "CASE-2025-014", "entries", "..%2F..%2Fteam-profile.md")
    assert code == 422, data
    code, data = await api("GET", "cases", "CASE-2025-014", "entries", "2025-01-01_think_nope.md")
    assert code == 404, data
