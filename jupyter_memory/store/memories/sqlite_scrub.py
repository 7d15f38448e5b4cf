"""After a forget: no SQLite file under ``.index/`` keeps the forgotten text.

Deleting a row is not enough to take its words out of the files (issue 29):

* a deleted FTS5 row leaves its terms in the index segments (a delete marker
  beside the old entry) until a merge drops both. SQLite 3.42 and later can be
  told to remove them at once (the ``secure-delete`` option, kept in the
  database); older versions (the venv's Python ships 3.40) get an ``optimize``,
  one merge of every segment into one, after the delete;
* a deleted row's bytes stay on its page until the page is reused; the
  connection's ``PRAGMA secure_delete`` (sqlite_db.connect) zeroes them;
* the pages written by the delete and the merge, and the older versions of
  them, are in the ``-wal`` file: a ``TRUNCATE`` checkpoint copies them into
  the database and empties it. A reader in another process holding an old
  snapshot keeps the checkpoint from truncating; its next forget, or the last
  connection's close, finishes it.
"""

from __future__ import annotations

import contextlib
import sqlite3

from .sqlite_db import attached

SECURE_DELETE_VERSION = (3, 42, 0)
CHECKPOINT_WAIT_MS = 2000


def _secure_delete_on(con: sqlite3.Connection) -> bool:
    """Is FTS5's ``secure-delete`` option set in this database (it is kept in ``fts_config``)?"""
    row = con.execute("SELECT v FROM fts_config WHERE k = 'secure-delete'").fetchone()
    return row is not None and str(row[0]) == "1"


def scrub(con: sqlite3.Connection) -> None:
    """Drop the deleted rows' terms from every FTS5 segment and empty every -wal file.

    Where SQLite has FTS5's ``secure-delete``, it is switched on here once (it
    persists in the database) with a merge for the delete that ran before it;
    later deletes remove their terms themselves and need no merge. The option
    is not set when a database is opened: an open must not write (a read-only home).
    """
    merge = True
    if sqlite3.sqlite_version_info >= SECURE_DELETE_VERSION:
        merge = not _secure_delete_on(con)
        if merge:
            con.execute("INSERT INTO fts(fts, rank) VALUES('secure-delete', 1)")
    if merge:
        con.execute("INSERT INTO fts(fts) VALUES('optimize')")
    # A TRUNCATE checkpoint waits for readers on older snapshots: not for the
    # connection's 30 s, and a reader that holds on only delays the truncation.
    (timeout,) = con.execute("PRAGMA busy_timeout").fetchone()
    con.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
    try:
        for schema in ("main", "emb", "acc"):
            if schema == "main" or attached(con, schema):
                with contextlib.suppress(sqlite3.OperationalError):
                    con.execute(f"PRAGMA {schema}.wal_checkpoint(TRUNCATE)").fetchall()
    finally:
        con.execute(f"PRAGMA busy_timeout = {int(timeout)}")
