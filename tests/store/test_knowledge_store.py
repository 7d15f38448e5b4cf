"""Knowledge and queue files on disk: caches follow hand edits, settings keep others' keys."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from jupyter_memory.core.knowledge.proposals import build_proposal
from jupyter_memory.exceptions import NotFoundError, ParseError
from jupyter_memory.store.knowledge.files import KnowledgeFile, SettingsFile
from jupyter_memory.store.knowledge.queue import QueueStore
from jupyter_memory.store.layout import RootLayout


def test_knowledge_cache_follows_a_same_size_hand_edit(tmp_path: Path) -> None:
    kf = KnowledgeFile(RootLayout(tmp_path))
    assert not kf.load().exists
    kf.write("## Rules\n- aaaa\n## Info\n")
    assert kf.load().doc.rules[0].text == "aaaa"
    st = kf.path.stat()
    kf.path.write_text("## Rules\n- bbbb\n## Info\n")  # same size, maybe same mtime tick
    os.utime(kf.path, ns=(st.st_atime_ns, st.st_mtime_ns))
    kf.write(kf.path.read_text().replace("bbbb", "cccc"))
    assert kf.load().doc.rules[0].text == "cccc"


def test_symlinked_knowledge_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.md"
    target.write_text("## Rules\n")
    (tmp_path / "knowledge.md").symlink_to(target)
    with pytest.raises(ParseError, match="symlink"):
        KnowledgeFile(RootLayout(tmp_path)).load()


def test_settings_update_keeps_unknown_keys(tmp_path: Path) -> None:
    sf = SettingsFile(RootLayout(tmp_path))
    (tmp_path / "settings.json").write_text('{"agent_writes": true}')
    assert sf.update({"enabled": False}) == {"agent_writes": True, "enabled": False}
    (tmp_path / "settings.json").write_text("[1]")
    with pytest.raises(ParseError, match="settings.json"):
        sf.read()


def test_queue_add_find_replace_and_dismissed(tmp_path: Path) -> None:
    q = QueueStore(RootLayout(tmp_path))
    p = build_proposal(
        id="p-0000000001abcdefghij",
        text="收入不含退款",
        kind="info",
        evidence_quote="收入不含退款",
        source="manual",
        created=datetime(2026, 11, 30, tzinfo=timezone.utc),
    )
    path, _ = q.add(p)
    assert path.parent == tmp_path / "queue" and q.find(p.id) == (path, p)
    q.replace(path, p.model_copy(update={"status": "dismissed"}))
    assert q.scan()[0][0][1].status == "dismissed"
    with pytest.raises(NotFoundError):
        q.find("p-missing")
    q.add_dismissed("abc")
    q.add_dismissed("abc")
    assert q.dismissed_hashes() == {"abc"}
    (tmp_path / "dismissed.json").write_text('{"x": 1}')
    with pytest.raises(ParseError, match="dismissed.json"):
        q.dismissed_hashes()
