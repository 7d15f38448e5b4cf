"""Processes that open a root with no index at the same moment (a team's
notebooks, an MCP server and a CLI call on a fresh clone) agree on one index:
none deletes the database another is still creating."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from jupyter_memory.store.layout import RootLayout
from jupyter_memory.store.memories.sqlite_index import SqliteIndex

OPENERS = 6
ROUNDS = 8


def _open(root: str, go: object, out: object) -> None:
    go.wait()  # type: ignore[attr-defined]
    try:
        index = SqliteIndex(RootLayout(Path(root)))
        count = index.connection().execute("SELECT count(*) FROM entries").fetchone()[0]
        out.put(("ok", count))  # type: ignore[attr-defined]
    except Exception as exc:  # the parent reports which opener failed and why
        out.put(("error", f"{type(exc).__name__}: {exc}"))  # type: ignore[attr-defined]


def test_processes_opening_a_fresh_root_at_once_all_succeed(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    for n in range(ROUNDS):
        root = tmp_path / f"root{n}"
        (root / "memories").mkdir(parents=True)
        go, out = ctx.Event(), ctx.Queue()
        procs = [ctx.Process(target=_open, args=(str(root), go, out)) for _ in range(OPENERS)]
        for p in procs:
            p.start()
        go.set()
        results = [out.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        assert all(kind == "ok" for kind, _ in results), (n, results)
        # One index is left, the one CURRENT names; no other database file remains.
        current = (root / ".index" / "CURRENT").read_text("utf-8").strip()
        left = sorted(f.name for f in (root / ".index").glob("index-*.sqlite"))
        assert left == [current], (n, left)
