"""A rebuild's bulk load (store/memories/fresh_load.py) writes what indexing one by one writes.

The same home is indexed twice: once file by file (a first open's full look,
the path every write takes) and once by ``rebuild_index``; every table —
entries, FTS5 columns, postings, term statistics, totals, problems — must
hold the same rows, compared by file name since row ids follow the order
of indexing. The home holds English with stems and diacritics, Chinese, an
unreadable file, malformed frontmatter and two files claiming one id.
"""

from __future__ import annotations

import random
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.store.memories import fresh_load

WORDS = ["refund", "refunds", "revenue", "order", "café", "naïve", "q3", "2023", "the", "churn"]
HAN = ["收入", "退款", "订单", "用户", "口径", "税"]


def _tables(con: sqlite3.Connection) -> dict[str, object]:
    name_of = dict(con.execute("SELECT rowid, name FROM entries"))
    cols = [r[1] for r in con.execute("PRAGMA table_info(entries)") if r[1] != "rowid"]
    entries = sorted(con.execute(f"SELECT {', '.join(cols)} FROM entries").fetchall())
    fts = sorted((name_of[r[0]], *r[1:]) for r in con.execute("SELECT rowid, * FROM fts"))
    post = sorted((r[0], name_of[r[1]], *r[2:]) for r in con.execute("SELECT * FROM postings"))
    return {
        "entries": entries,
        "fts": fts,
        "postings": post,
        "terms": sorted(con.execute("SELECT * FROM terms").fetchall()),
        "totals": con.execute("SELECT n, tokens FROM totals").fetchall(),
        "problems": sorted(con.execute("SELECT name, reason FROM problems").fetchall()),
        "indexes": sorted(con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'")),
    }


_BUILT: list[Path] = []  # the home below, written once per session (every run reads it)


def _written_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """120 memories written one by one, plus a twin, an unreadable and two malformed files."""
    if _BUILT:
        return _BUILT[0]
    home = tmp_path_factory.mktemp("rebuild-bulk") / "home"
    rng = random.Random(7)
    with Memory(home=home, semantic=False) as mem:
        ids = []
        for i in range(120):
            if i % 4 == 0:
                text = "".join(rng.choice(HAN) for _ in range(rng.randint(2, 9))) + "。"
            else:
                text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
            title = f"{rng.choice(WORDS)} {rng.choice(HAN)} {i}"
            ids.append(mem.remember(text, title=title, tags=[rng.choice(["sales", "财务"])]).id)
        folder = mem.hooks.user.layout.memories
        first = folder / str(mem.hooks.user.name_of(ids[0]))
    raw = first.read_text("utf-8")
    (folder / "2026-01-01_semantic_twin.md").write_text(raw.replace("\n\n", "\n\ntwin "), "utf-8")
    (folder / "2026-01-01_semantic_broken.md").write_text("---\ntitle: [unclosed\n---\nx", "utf-8")
    (folder / "2026-01-01_semantic_bytes.md").write_bytes(b"---\nid: \xff\n---\n")
    (folder / "2026-01-01_semantic_plain.md").write_text(
        re.sub(r'id: "[^"]+"', "id: m-plainyaml0000000001", raw).replace('"', ""), "utf-8"
    )
    _BUILT.append(home)
    return home


@pytest.mark.parametrize("run", [20_000, 7], ids=["one run", "runs of 7 entries"])
def test_rebuild_writes_the_rows_one_by_one_indexing_writes(
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    run: int,
) -> None:
    monkeypatch.setattr(fresh_load, "_RUN", run)
    home = tmp_path / "home"
    shutil.copytree(_written_home(tmp_path_factory), home, symlinks=True)

    shutil.rmtree(home / ".index")  # the next open indexes every file one by one, in scan order
    with Memory(home=home, semantic=False) as mem:
        index = mem.hooks.user.index
        mem.hooks.user.ensure_synced()
        one_by_one = _tables(index.connection())
        report = mem.hooks.rebuild_index()
        bulk = _tables(index.connection())
    assert len(one_by_one["entries"]) == 121  # type: ignore[arg-type]
    assert len(one_by_one["problems"]) == 3  # type: ignore[arg-type]
    assert report.layers["user"].indexed == 121
    for table in one_by_one:
        assert bulk[table] == one_by_one[table], table
