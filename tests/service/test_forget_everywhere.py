"""A forgotten memory's text leaves every file under the roots (issue 29, finding 2).

Every byte under the memory home and the project folder is read after the
forget, the index's SQLite files included (connections closed first), and the
memory's words must be in none of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.store.memories.cold_archive import archive_file

# Words no stemmer changes and nothing else in a store holds.
WORD = "qzvkrmplatypwx"
TEXT = f"the quarterly bonus pool is {WORD} dollars for the zbrgtwhl team"
TITLE = f"Bonus pool {WORD}"
NEEDLES = (WORD.encode(), b"zbrgtwhl", TEXT.encode())


def _leaks(*folders: Path) -> list[str]:
    out = []
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                data = path.read_bytes()
                out += [f"{path}: {n.decode()}" for n in NEEDLES if n in data]
    return out


def _captured(mem: Memory) -> None:
    """The memory's text as a kernel would have captured it: cell log and digest inbox."""
    mem.hooks.record_person_text(
        [{"role": "person", "text": f"%remember {TEXT}", "source": "cell 3"}]
    )
    mem.hooks.record_person_text(
        [{"role": "person", "text": "an unrelated cell", "source": "cell 4"}]
    )
    mem.hooks.digest_record(
        "kernel:abc",
        [
            {
                "id": "c3",
                "role": "user",
                "text": f"%remember {TEXT}",
                "timestamp": "2026-11-30T09:00:00Z",
            },
            {
                "id": "c4",
                "role": "user",
                "text": "an unrelated cell",
                "timestamp": "2026-11-30T09:01:00Z",
            },
        ],
    )


@pytest.mark.parametrize("scope", ["user", "project"])
def test_forget_leaves_no_byte_of_the_text(
    memory_home: Path, project_dir: Path, clock, scope: str
) -> None:
    mem = Memory(home=memory_home, project=project_dir, clock=clock)
    try:
        _captured(mem)
        keep = mem.remember("revenue excludes refunds", title="Revenue", scope=scope)
        e = mem.remember(
            TEXT, title=TITLE, scope=scope, evidence=[{"quote": TEXT, "source": "cell 3"}]
        )
        assert [h.id for h in mem.recall(WORD)] == [e.id]
        mem.hooks.rebuild_index()  # segments of an older index, then new ones on top
        mem.remember("another note about churn", title="other", scope=scope)
        assert _leaks(memory_home, project_dir)  # the test sees the text before the forget
        mem.forget(e.id)
        left = mem.recall(WORD)
        assert left == []
        assert [h.id for h in mem.recall("refunds")] == [keep.id]
    finally:
        mem.close()
    leaks = _leaks(memory_home, project_dir)
    assert leaks == [], "\n".join(leaks)
    # what did not hold the text is still there
    kept = json.loads((memory_home / "recent" / "person-text.json").read_text())
    assert [r["text"] for r in kept] == ["an unrelated cell"]
    assert "\n" in (memory_home / "audit.jsonl").read_text()


def test_forget_of_an_archived_memory(memory_home: Path, clock) -> None:
    mem = Memory(home=memory_home, clock=clock)
    try:
        e = mem.remember(TEXT, title=TITLE)
        root = mem.hooks.ctx.user  # the cold archive's own move, as `cold-archive` makes it
        archive_file(root, root.name_of(e.id))
        assert _leaks(memory_home)
        mem.forget(e.id)
    finally:
        mem.close()
    leaks = _leaks(memory_home)
    assert leaks == [], "\n".join(leaks)


def test_audit_lines_carry_no_slug(mem: Memory, memory_home: Path) -> None:
    e = mem.remember(TEXT, title=TITLE)
    mem.update(e.id, tags=["x"])
    audit = (memory_home / "audit.jsonl").read_text()
    assert WORD not in audit and e.id in audit


def test_cli_forget_leaves_no_byte(memory_home: Path) -> None:
    """The same through the CLI's main(), each call opening and closing its own home
    (index files closed between); the process boundary has its own tests."""
    from tests.support.cli import run_main

    def cli(*argv: str) -> str:
        done = run_main([*argv, "--home", str(memory_home)])
        assert done.returncode == 0, done.stderr
        return done.stdout

    made = json.loads(cli("remember", TEXT, "--title", TITLE, "--json"))
    cli("remember", "revenue excludes refunds")
    assert WORD in cli("recall", WORD)
    assert _leaks(memory_home)
    cli("forget", made["id"])
    assert WORD not in cli("recall", WORD)
    leaks = _leaks(memory_home)
    assert leaks == [], "\n".join(leaks)


def test_a_reader_holding_a_snapshot_does_not_fail_the_forget(
    mem: Memory, memory_home: Path, monkeypatch: pytest.MonkeyPatch
):
    import sqlite3

    from jupyter_memory.store.memories import sqlite_scrub

    # The checkpoint gives up on the reader after this wait (2 s in production): the
    # same path, sooner.
    monkeypatch.setattr(sqlite_scrub, "CHECKPOINT_WAIT_MS", 50)
    e = mem.remember(TEXT, title=TITLE)
    mem.recall(WORD)
    index = memory_home / ".index" / (memory_home / ".index" / "CURRENT").read_text().strip()
    reader = sqlite3.connect(index, isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM entries").fetchone()  # holds its snapshot
        assert mem.forget(e.id).id == e.id  # the checkpoint cannot truncate yet: no error
        assert mem.recall(WORD) == []
    finally:
        reader.close()
    mem.forget(mem.remember("another note to forget").id)  # the next forget empties the -wal
    mem.close()
    leaks = _leaks(memory_home)
    assert leaks == [], "\n".join(leaks)
