"""The SQLite files under ``<root>/.index/``: schemas, connections, transactions.

Shared by the index (:mod:`.sqlite_index`) and the stored embeddings
(:mod:`.embeddings`), which attach to the same connection.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

from ...core.memories.ranking import DEFAULT_RANKING
from ..layout import RootLayout
from ..links import linked, refuse_link
from ..private import create_private_file

# The production column weights (title, tags, body): each posting keeps its
# weighted term frequency under them (``postings.w``), so ranking reads one
# column instead of computing it twice per candidate (issue 16).
STORED_WEIGHTS: tuple[float, ...] = tuple(float(w) for w in DEFAULT_RANKING.bm25_weights)


def read_pointer(layout: RootLayout) -> str | None:
    """The live database's file name from ``CURRENT``; None when it is missing, a
    link, or names no index file of ours."""
    pointer = layout.index_dir / "CURRENT"
    if linked(layout.index_root, pointer):
        return None
    try:
        name = pointer.read_text("utf-8").strip()
    except OSError:
        return None
    if not name.startswith("index-") or "/" in name or not name.endswith(".sqlite"):
        return None
    return name


def weighted_tf(prefix: str, weights: tuple[float, ...]) -> str:
    """The weighted term frequency of a postings row, as SQL (one expression everywhere)."""
    w0, w1, w2 = weights
    return f"({w0!r} * {prefix}tf_title + {w1!r} * {prefix}tf_tags + {w2!r} * {prefix}tf_body)"


SCHEMA = f"""
CREATE TABLE IF NOT EXISTS entries (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL UNIQUE,
  mtime_ns INTEGER NOT NULL,
  size INTEGER NOT NULL,
  title TEXT NOT NULL,
  type TEXT NOT NULL,
  tier TEXT NOT NULL,
  scope TEXT NOT NULL,
  project TEXT,
  tags TEXT NOT NULL,
  source TEXT NOT NULL,
  confidence REAL NOT NULL,
  created REAL NOT NULL,
  updated REAL NOT NULL,
  reviewed INTEGER NOT NULL,
  body TEXT NOT NULL,
  ekey TEXT NOT NULL,
  supersedes TEXT NOT NULL DEFAULT '',
  evidence TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS entries_updated ON entries(updated);
-- The few entries that supersede others (issue 33), found without a scan.
CREATE INDEX IF NOT EXISTS entries_supersedes ON entries(supersedes) WHERE supersedes != '';
CREATE TABLE IF NOT EXISTS problems (name TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, reason TEXT);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
  title, tags, body, tokenize = 'unicode61 remove_diacritics 2'
);
-- Postings and term statistics beside FTS5 (sqlite_postings.py): written in
-- the same transaction as the FTS5 row, read by ranking instead of bm25().
CREATE TABLE IF NOT EXISTS postings (
  term TEXT NOT NULL, rid INTEGER NOT NULL,
  tf_title INTEGER NOT NULL, tf_tags INTEGER NOT NULL, tf_body INTEGER NOT NULL,
  dl INTEGER NOT NULL,
  w REAL GENERATED ALWAYS AS {weighted_tf("", STORED_WEIGHTS)} STORED,
  PRIMARY KEY (term, rid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS terms (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS totals (
  one INTEGER PRIMARY KEY CHECK (one = 1), n INTEGER NOT NULL, tokens INTEGER NOT NULL
);
INSERT OR IGNORE INTO totals VALUES (1, 0, 0);
"""

ACCESS_SCHEMA = """
CREATE TABLE IF NOT EXISTS access (
  id TEXT PRIMARY KEY, last_accessed REAL NOT NULL, access_count INTEGER NOT NULL
);
"""


def ts(dt: datetime) -> float:
    return dt.timestamp()


def dt(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=timezone.utc)


EMBED_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
  rid INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, ekey TEXT NOT NULL,
  vec BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS model (name TEXT NOT NULL);
"""


def connect(path: Path, root: Path) -> sqlite3.Connection:
    # SQLite opens (and creates) through links: a linked .index/ or database
    # file would put the store's text outside it (issue 19).
    refuse_link(root, path)
    con = open_db(path, timeout=30.0, check_same_thread=False)
    con.execute("PRAGMA busy_timeout = 30000")
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA synchronous = NORMAL")
    # A deleted row's bytes are zeroed, not left on a free page: a forgotten
    # memory's text must not stay in the file (issue 29). Databases attached
    # later (access counts, embeddings) take this setting from the main one.
    con.execute("PRAGMA secure_delete = ON")
    return con


def open_db(
    path: Path, *, timeout: float = 5.0, check_same_thread: bool = True
) -> sqlite3.Connection:
    """``sqlite3.connect`` (autocommit) on a file created 0600 first: SQLite would create
    it with the umask's mode (0644: readable by everyone), and it gives the -wal, -shm
    and -journal files the database file's mode (store/private.py)."""
    create_private_file(path)
    return sqlite3.connect(
        str(path), timeout=timeout, isolation_level=None, check_same_thread=check_same_thread
    )


def attached(con: sqlite3.Connection, schema: str) -> bool:
    return any(r[1] == schema for r in con.execute("PRAGMA database_list"))


@contextlib.contextmanager
def transaction(con: sqlite3.Connection) -> Iterator[None]:
    con.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
