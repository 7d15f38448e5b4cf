"""The rebuild's own ways of doing what indexing one file does.

* :func:`fresh_load.insert_many` puts many rows in one statement: the same
  rows in the same order as one statement per row, whatever the count;
* :meth:`MemoryFiles.reader` reads every file through one folder descriptor:
  the same entries, refusals and messages as :meth:`MemoryFiles.read`;
* a tag list many notes share is encoded to JSON once.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.memories.models import MemoryEntry
from jupyter_memory.exceptions import JupyterMemoryError, ParseError, UnsafeNameError
from jupyter_memory.store.memories import fresh_load, sqlite_rows
from jupyter_memory.store.memories.files import MemoryFiles


@pytest.mark.parametrize("width", [2, 6, 18])
def test_insert_many_writes_the_rows_one_statement_a_row_writes(width: int) -> None:
    per = fresh_load._MAX_PARAMS // width
    for count in (0, 1, per - 1, per, per + 1, 3 * per + 2):
        rows = [
            (i, *(f"v{i}-{c}" if c % 2 else i * c for c in range(1, width))) for i in range(count)
        ]
        con = sqlite3.connect(":memory:")
        cols = ", ".join(f"c{c}" for c in range(width))
        con.execute(f"CREATE TABLE t ({cols})")  # rowid order is insertion order
        fresh_load.insert_many(con, "INSERT INTO t", width, iter(rows), count)
        assert con.execute("SELECT * FROM t ORDER BY rowid").fetchall() == rows, count


def _home_with_notes(tmp_path: Path) -> tuple[Path, list[str]]:
    home = tmp_path / "home"
    with Memory(home=home, semantic=False) as mem:
        mem.remember("退款口径：按自然月统计，含税。", title="退款口径")
        mem.remember("Refunds are counted by calendar month, tax included.", title="Refunds")
    names = sorted(p.name for p in (home / "memories").glob("*.md"))
    return home, names


def _files(home: Path) -> MemoryFiles:
    with Memory(home=home, semantic=False) as mem:
        return MemoryFiles(mem.hooks.user.layout)


def _outcome(read: Callable[[str], MemoryEntry], name: str) -> object:
    try:
        return read(name).model_dump()
    except (JupyterMemoryError, OSError) as exc:
        return (type(exc), str(exc))


def test_reader_reads_what_read_reads(tmp_path: Path) -> None:
    home, names = _home_with_notes(tmp_path)
    folder = home / "memories"
    outside = tmp_path / "outside.md"
    outside.write_bytes((folder / names[0]).read_bytes())
    (folder / "2026-01-01_semantic_link.md").symlink_to(outside)
    (folder / "2026-01-01_semantic_broken.md").write_text("---\ntitle: [x\n---\n", "utf-8")
    files = _files(home)
    asked = [*names, "2026-01-01_semantic_link.md", "2026-01-01_semantic_broken.md"]
    asked += ["2026-01-01_semantic_gone.md", "../escape.md", ".hidden.md"]
    with files.reader() as read:
        by_reader = [_outcome(read, n) for n in asked]
    assert by_reader == [_outcome(files.read, n) for n in asked]
    texts = {o["meta"]["title"]: o["text"] for o in by_reader[:2] if isinstance(o, dict)}
    assert texts == {
        "退款口径": "退款口径：按自然月统计，含税。",
        "Refunds": "Refunds are counted by calendar month, tax included.",
    }
    kinds = [o[0] for o in by_reader[2:] if isinstance(o, tuple)]
    assert kinds == [ParseError, ParseError, FileNotFoundError, UnsafeNameError, UnsafeNameError]
    assert "symlink" in str(by_reader[2][1])  # type: ignore[index]


def test_reader_of_a_linked_memories_folder_refuses_as_read_does(tmp_path: Path) -> None:
    home, names = _home_with_notes(tmp_path)
    real = tmp_path / "real-memories"
    (home / "memories").rename(real)
    (home / "memories").symlink_to(real, target_is_directory=True)
    files = _files(home)
    with files.reader() as read:
        outcomes = [_outcome(read, n) for n in names]
    assert outcomes == [_outcome(files.read, n) for n in names]
    assert all(isinstance(o, tuple) and o[0] is ParseError and "symlink" in o[1] for o in outcomes)


def test_a_shared_tag_list_is_stored_as_json_dumps_writes_it() -> None:
    for tags in ([], ["sales"], ["财务", 'q"3', "a\\b"], ["sales"], ["b", "a"], ["a", "b"]):
        assert sqlite_rows._tags_json(list(tags)) == json.dumps(tags, ensure_ascii=False)
