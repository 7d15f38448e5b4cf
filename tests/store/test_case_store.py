"""CaseStore: the only disk I/O of case memory, on real files."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from jupyter_memory.exceptions import NotFoundError, ParseError, UnsafeNameError
from jupyter_memory.store.cases.files import (
    CaseStore,
    list_case_ids,
    read_team_profile,
    read_text_file,
    stat_entries,
)

AT = datetime(2026, 6, 20, tzinfo=timezone.utc)
NAME = "2026-06-20_insight_dealer-pattern.md"


def test_write_read_delete_with_audit(tmp_path: Path):
    store = CaseStore(tmp_path, "CASE-2026-001")
    path = store.write(NAME, "# x\n", action="case.create", actor="t", at=AT)
    assert path == tmp_path / "cases/CASE-2026-001/case_memory" / NAME
    assert store.read_entry(NAME) == "# x\n"
    assert store.list_names() == ([NAME], [])
    assert store.delete(NAME, actor="t", at=AT) is True
    assert store.delete(NAME, actor="t", at=AT) is False
    recs = list(store.audit.records())
    assert [r["action"] for r in recs] == ["case.create", "case.delete"]
    assert recs[0]["path"] == f"cases/CASE-2026-001/case_memory/{NAME}" and "sha256" in recs[0]
    assert store.audit.path == tmp_path / "cases/.case-memory/audit.jsonl"
    with pytest.raises(NotFoundError, match=NAME):
        store.read_entry(NAME)


def test_lock_lives_outside_the_case_folder(tmp_path: Path):
    store = CaseStore(tmp_path, "CASE-2026-001")
    with store.locked():
        pass
    assert (tmp_path / "cases/.case-memory/locks/CASE-2026-001").is_dir()
    assert not store.case_dir.exists()


def test_stray_files_and_case_listing(tmp_path: Path):
    store = CaseStore(tmp_path, "CASE-2026-001")
    store.write(NAME, "# x\n", action="case.create", actor="t", at=AT)
    for extra in ("notes.md", "INDEX.md", "INDEX.pre-archive.md", "2026-06-20_gossip_x.md"):
        (store.memory_dir / extra).write_text("x", "utf-8")
    assert store.list_names() == ([NAME], ["2026-06-20_gossip_x.md", "notes.md"])
    (tmp_path / "cases/not-a-case/case_memory").mkdir(parents=True)
    (tmp_path / "cases/CASE-2026-002").mkdir()  # no case_memory/: not listed
    assert list_case_ids(tmp_path) == ["CASE-2026-001"]
    [(case, name, day, kind, path, mtime, size)] = list(stat_entries(tmp_path))
    assert (case, name, day, kind) == ("CASE-2026-001", NAME, "2026-06-20", "insight")
    assert read_text_file(path) == "# x\n" and size == 4 and mtime > 0
    assert read_text_file(tmp_path / "gone.md") is None


def test_registry_and_working_papers_are_read_only_inputs(tmp_path: Path):
    store = CaseStore(tmp_path, "CASE-2026-001")
    assert store.read_registry() is None and store.read_working_papers() == []
    store.case_dir.mkdir(parents=True)
    store.registry_path.write_text('[{"id": "E-1", "description": "d"}]', "utf-8")
    assert store.read_registry() == [{"id": "E-1", "description": "d"}]
    wp = store.case_dir / "working_papers" / "sub"
    wp.mkdir(parents=True)
    (wp / "a.md").write_text("结论", "utf-8")
    (wp / "b.txt").write_text("ignored", "utf-8")
    assert store.read_working_papers() == [("working_papers/sub/a.md", "结论")]
    store.registry_path.write_text("{\n  oops", "utf-8")
    with pytest.raises(ParseError) as err:
        store.read_registry()
    assert "evidence_registry.json:2" in str(err.value)


def test_non_utf8_entry_is_a_parse_error_naming_the_file(tmp_path: Path):
    store = CaseStore(tmp_path, "CASE-2026-001")
    store.memory_dir.mkdir(parents=True)
    (store.memory_dir / NAME).write_bytes(b"\xff\xfe broken")
    with pytest.raises(ParseError, match=NAME):
        store.read_entry(NAME)


@pytest.mark.parametrize("name", ["../x.md", "a/b.md", "..", "~x.md"])
def test_unsafe_entry_names(tmp_path: Path, name: str):
    store = CaseStore(tmp_path, "CASE-2026-001")
    with pytest.raises(UnsafeNameError):
        store.write(name, "x", action="case.create", actor="t", at=AT)
    assert not (tmp_path / "cases").exists() or not any((tmp_path / "cases").rglob("*.md"))


def test_team_profile_reader(tmp_path: Path):
    assert read_team_profile(tmp_path) == (tmp_path.resolve() / "team-profile.md", None)
    (tmp_path / "team-profile.md").write_text("Memory Write Policy: silent\n", "utf-8")
    assert read_team_profile(tmp_path)[1] == "Memory Write Policy: silent\n"
