"""The derived index: never the authority, always rebuildable."""

from __future__ import annotations

import os
from pathlib import Path

from jupyter_memory import Memory


def test_hand_edit_is_picked_up(mem: Memory):
    entry = mem.remember("alpha beta", title="first")
    path = Path(entry.path)
    text = path.read_text().replace("alpha beta", "gamma delta")
    tmp = path.with_suffix(".new")
    tmp.write_text(text)
    os.replace(tmp, path)  # editors save by rename: the folder's mtime changes
    assert [h.id for h in mem.recall("gamma")] == [entry.id]
    assert mem.recall("alpha") == []


def test_file_deleted_by_hand_leaves_index(mem: Memory):
    entry = mem.remember("ephemeral words")
    Path(entry.path).unlink()
    assert mem.recall("ephemeral") == []


def test_corrupt_index_is_rebuilt_with_notice(memory_home: Path):
    mem = Memory(home=memory_home)
    entry = mem.remember("durable words")
    mem.close()
    current = (memory_home / ".index" / "CURRENT").read_text().strip()
    (memory_home / ".index" / current).write_bytes(b"this is not a database" * 100)
    for wal in (memory_home / ".index").glob(current + "-*"):
        wal.unlink()
    mem2 = Memory(home=memory_home)
    report = mem2.doctor()
    assert report["ok"]
    assert any("corrupt" in n for n in report["notices"])
    assert [h.id for h in mem2.recall("durable")] == [entry.id]


def test_missing_index_is_rebuilt(memory_home: Path):
    import shutil

    mem = Memory(home=memory_home)
    entry = mem.remember("words that survive")
    mem.close()
    shutil.rmtree(memory_home / ".index")
    assert [h.id for h in Memory(home=memory_home).recall("survive")] == [entry.id]


def test_unreadable_file_listed_by_doctor_and_recall_works(mem: Memory, memory_home: Path):
    good = mem.remember("still findable")
    bad = memory_home / "memories" / "2026-11-30_semantic_broken.md"
    bad.write_bytes(b"---\nid: [oops\n---\nbody")
    bad.chmod(0o600)  # a hand-written 0644 file is doctor's other finding (test_private_modes)
    original = bad.read_bytes()
    assert [h.id for h in mem.recall("findable")] == [good.id]
    report = mem.doctor()
    assert not report["ok"]
    (problem,) = report["problems"]
    assert problem["path"].endswith("broken.md") and problem["kind"] == "unreadable"
    assert "malformed YAML" in problem["message"]
    assert bad.read_bytes() == original  # doctor never rewrites


def test_symlink_in_memory_folder_not_followed(mem: Memory, memory_home: Path, tmp_path: Path):
    mem.remember("inside")
    outside = tmp_path / "secret.md"
    outside.write_text(
        "---\nid: m-x\ntitle: secret\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nsecret outside"
    )
    (memory_home / "memories" / "2026-11-30_semantic_link.md").symlink_to(outside)
    assert mem.recall("secret") == []
    report = mem.doctor()
    assert any(p["kind"] == "symlink" for p in report["problems"])


def test_duplicate_id_reported(mem: Memory, memory_home: Path):
    entry = mem.remember("twin text")
    src = Path(entry.path)
    (src.parent / "2026-11-30_semantic_copy.md").write_bytes(src.read_bytes())
    report = mem.doctor()
    assert not report["ok"]
    assert any("used by both" in p["message"] for p in report["problems"])


def test_access_stats_survive_rebuild_without_touching_files(mem: Memory):
    entry = mem.remember("counted words")
    before = Path(entry.path).read_bytes()
    for _ in range(3):
        mem.recall("counted")
    assert Path(entry.path).read_bytes() == before
    mem.hooks.rebuild_index()
    (row,) = [r for r in mem.memories() if r["id"] == entry.id]
    assert row["access_count"] == 3


def test_stale_temp_files_cleaned(mem: Memory, memory_home: Path):
    mem.remember("x")
    tmp = memory_home / "memories" / ".2026-11-30_x.md.abc.tmp"
    tmp.write_text("half")
    mem.hooks.rebuild_index()
    assert not tmp.exists()
