"""A rebuild writes, row for row and row id for row id, what indexing one file at a time writes.

``test_rebuild_bulk.py`` compares the tables by file name; here every table is
read in its own order (entries and FTS5 by row id, postings and terms by key),
so the row ids, the order and every value must agree. Both ways index in the
folder's listing order. The home holds English with stems and diacritics,
Chinese, tags in both languages, and bad files: malformed YAML, invalid UTF-8,
NUL bytes, no frontmatter, a file over the size cap, a text over the length
cap, bad fields (confidence, an unsafe tag, an empty title), a hand-written
YAML file, and two files claiming one id. The rebuild runs in this process
and, with the file-count threshold lowered, in forked workers; the doctor's
findings must not change either.
"""

from __future__ import annotations

import errno
import os
import random
import re
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.frontmatter_io import MAX_FILE_BYTES
from jupyter_memory.core.memories.models import MemoryEntry
from jupyter_memory.core.progress import NoProgress
from jupyter_memory.store.memories import fork_pool, fresh_load
from jupyter_memory.store.memories.files import MemoryFiles
from jupyter_memory.store.memories.search_index import IndexSyncReport
from jupyter_memory.store.memories.sqlite_db import SCHEMA

WORDS = ["refund", "refunds", "Revenue", "order", "café", "naïve", "Ångström", "q3", "the", "churn"]
HAN = ["收入", "退款", "订单", "用户", "口径", "税", "ＡＢＣ"]


def _tables(con: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    read = {
        "entries": "SELECT * FROM entries ORDER BY rowid",
        "fts": "SELECT rowid, title, tags, body FROM fts ORDER BY rowid",
        "postings": "SELECT * FROM postings",  # WITHOUT ROWID: key order
        "terms": "SELECT * FROM terms",
        "totals": "SELECT * FROM totals",
        "problems": "SELECT * FROM problems",
        "indexes": "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name",
    }
    return {table: con.execute(sql).fetchall() for table, sql in read.items()}


@pytest.fixture(scope="module")
def template_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test home, written once per module (150 remembers and the odd files): each
    test gets its own copy (:func:`_home`), as if it had written it itself."""
    return _write_home(tmp_path_factory.mktemp("rebuild-template"))


def _home(tmp_path: Path, template: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(template, home)  # copy2: contents and mtimes as written
    return home


def _write_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    rng = random.Random(16)
    with Memory(home=home, semantic=False) as mem:
        ids = []
        for i in range(150):
            if i % 3 == 0:
                text = "".join(rng.choice(HAN) for _ in range(rng.randint(1, 12))) + "，q3。"
            else:
                text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 30)))
            title = f"{rng.choice(WORDS)} {rng.choice(HAN)} {i}"
            tags = rng.sample(["sales", "财务", "Café", "q3"], rng.randint(0, 3))
            ids.append(mem.remember(text, title=title, tags=tags).id)
        folder = mem.hooks.user.layout.memories
        raw = (folder / str(mem.hooks.user.name_of(ids[0]))).read_text("utf-8")
    other = re.sub(r'id: "[^"]+"', 'id: "m-other000000000001"', raw)
    bad = {
        "twin": raw.replace("\n\n", "\n\ntwin ", 1),
        "broken": "---\ntitle: [unclosed\n---\nx",
        "nofront": "just a note without frontmatter\n",
        "confidence": other.replace("confidence: 1.0", "confidence: 2.0"),
        "tag": re.sub(r"tags: \[[^\]]*\]", 'tags: ["../etc"]', other),
        "title": re.sub(r'title: "[^"]*"', 'title: "  "', other),
        "long": other + "x" * 200_001,
        "plain": re.sub(r'id: "[^"]+"', "id: m-plainyaml0000000001", raw).replace('"', ""),
    }
    for name, text in bad.items():
        (folder / f"2026-01-01_semantic_{name}.md").write_text(text, "utf-8")
    (folder / "2026-01-01_semantic_bytes.md").write_bytes(b"---\nid: \xff\n---\n")
    (folder / "2026-01-01_semantic_nul.md").write_bytes(raw.encode() + b"\x00")
    big = raw.replace("twin", "") + "y" * MAX_FILE_BYTES
    (folder / "2026-01-01_semantic_big.md").write_text(big, "utf-8")
    shutil.rmtree(home / ".index")
    return home


@pytest.mark.parametrize("how", ["in this process", "forked workers", "no fork", "fork fails"])
def test_rebuild_rows_and_row_ids_equal_one_by_one_indexing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, template_home: Path
) -> None:
    if how == "in this process":
        monkeypatch.setattr(fresh_load, "POOL_MIN_FILES", 10**9, raising=False)
    else:
        monkeypatch.setattr(fresh_load, "POOL_MIN_FILES", 1)
        monkeypatch.setattr(fresh_load, "CHUNK", 7)
    if how == "no fork":  # as on Windows: the same load in this process
        monkeypatch.delattr(os, "fork")
    if how == "fork fails":  # no more processes (EAGAIN): the same load in this process

        def fork() -> int:
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

        monkeypatch.setattr(os, "fork", fork)
    home = _home(tmp_path, template_home)
    with Memory(home=home, semantic=False) as mem:  # the first open indexes file by file
        mem.hooks.user.ensure_synced()
        one_by_one = _tables(mem.hooks.user.index.connection())
        doctor = mem.doctor().to_dict()
        report = mem.hooks.rebuild_index()
        bulk = _tables(mem.hooks.user.index.connection())
        assert mem.doctor().to_dict() == doctor
    assert len(one_by_one["entries"]) == 151
    assert len(one_by_one["problems"]) == 10
    assert report.layers["user"].indexed == 151
    reasons = dict(report.layers["user"].problems)
    assert len(reasons) == 10
    assert "'confidence'" in reasons["2026-01-01_semantic_confidence.md"]
    assert "'tags'" in reasons["2026-01-01_semantic_tag.md"]
    assert "'text'" in reasons["2026-01-01_semantic_long.md"]
    for table, rows in one_by_one.items():
        assert bulk[table] == rows, table


class _Interrupt:
    """A progress callback that stops the load, as Ctrl-C would, after ``after`` files."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.children_seen = 0

    def stage(self, name: str, total: int | None) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        self.children_seen = max(self.children_seen, len(_children()))
        self.after -= n
        if self.after <= 0:
            raise KeyboardInterrupt

    def close(self) -> None:
        pass


def _children() -> set[int]:
    """This process's children, live or not yet waited for."""
    tasks = Path(f"/proc/{os.getpid()}/task")
    if tasks.is_dir():  # Linux
        return {int(p) for t in tasks.iterdir() for p in (t / "children").read_text().split()}
    out = subprocess.run(["pgrep", "-P", str(os.getpid())], capture_output=True, text=True)
    return {int(p) for p in out.stdout.split()}  # pgrep leaves itself out


def _load(home: Path, progress: _Interrupt | NoProgress, fail_on: str = "") -> None:
    files = MemoryFiles(Memory(home=home, semantic=False).hooks.user.layout)
    con = sqlite3.connect(":memory:", isolation_level=None)
    con.executescript(SCHEMA)
    with files.reader() as read:

        def load(name: str) -> MemoryEntry:
            if name == fail_on:
                raise RuntimeError(f"cannot load {name}")
            return read(name)

        fresh_load.load_all(con, list(files.scan()), load, IndexSyncReport(), progress)


@pytest.fixture
def pooled_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, template_home: Path) -> Path:
    """The test home, loaded by forked workers in chunks of five files."""
    monkeypatch.setattr(fresh_load, "POOL_MIN_FILES", 1)
    monkeypatch.setattr(fresh_load, "CHUNK", 5)
    return _home(tmp_path, template_home)


def test_an_interrupted_forked_rebuild_leaves_no_process(pooled_home: Path) -> None:
    home = pooled_home
    before = _children()
    progress = _Interrupt(after=40)
    with pytest.raises(KeyboardInterrupt):
        _load(home, progress)
    assert progress.children_seen >= 1  # the load did run in workers
    assert _children() <= before  # every worker ended and was waited for


def test_an_unexpected_error_in_a_forked_load_is_raised_as_in_process(pooled_home: Path) -> None:
    home = pooled_home
    name = sorted(p.name for p in (home / "memories").glob("*.md"))[77]
    before = _children()
    with pytest.raises(RuntimeError, match=f"cannot load {name}"):
        _load(home, NoProgress(), fail_on=name)
    assert _children() <= before


@pytest.mark.slow  # processes racing: make test, not make test-fast
def test_a_worker_that_stops_answering_is_killed_and_its_files_read_here(
    pooled_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A forked child can hang where the parent's other threads held a lock at
    # fork time (a kernel has several). The load must not wait for it forever.
    monkeypatch.setattr(fork_pool, "STALL_S", 1.0)
    home = pooled_home
    parent = os.getpid()
    files = MemoryFiles(Memory(home=home, semantic=False).hooks.user.layout)
    con = sqlite3.connect(":memory:", isolation_level=None)
    con.executescript(SCHEMA)
    with files.reader() as read:

        def load(name: str) -> MemoryEntry:
            if os.getpid() != parent:
                time.sleep(3600)  # every child hangs; this process reads on
            return read(name)

        before = _children()
        started = time.monotonic()
        fresh_load.load_all(con, list(files.scan()), load, IndexSyncReport(), NoProgress())
        took = time.monotonic() - started
    indexed = con.execute("SELECT (SELECT count(*) FROM entries) + (SELECT count(*) FROM problems)")
    assert indexed.fetchone()[0] == len(list(files.scan()))  # every file, read here
    assert took < 20, took  # a stall per child, not per chunk, and never an hour
    assert _children() <= before
