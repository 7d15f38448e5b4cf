"""Writing index rows: an entry's columns, its FTS tokens, and removing them again.

Functions over an open connection; :class:`.sqlite_index.SqliteIndex` owns the
connection, the transactions and the lock discipline.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..._i18n import M_
from ...core.memories.embedding import embed_key
from ...core.memories.models import EvidenceQuote, MemoryEntry
from ...core.text import index_tokens
from ...exceptions import JupyterMemoryError
from . import sqlite_postings as postings
from .files import FileStat
from .sqlite_db import attached, ts

# json.dumps(..., ensure_ascii=False) builds a new encoder per call: a tenth of
# a rebuild's row-writing time. Same output; the few tag lists notes share
# are encoded once.
_encode = json.JSONEncoder(ensure_ascii=False).encode
_TAGS_JSON: dict[tuple[str, ...], str] = {}


def _tags_json(tags: list[str]) -> str:
    key = tuple(tags)
    text = _TAGS_JSON.get(key)
    if text is None:
        if len(_TAGS_JSON) >= 10_000:
            _TAGS_JSON.clear()
        text = _TAGS_JSON[key] = _encode(tags)
    return text


def _evidence_json(evidence: list[EvidenceQuote]) -> str:
    """The evidence quotes a snippet-level hit shows (spec 003's L2), as stored."""
    if not evidence:
        return ""
    return _encode([[q.quote, q.source] for q in evidence])


def values(entry: MemoryEntry, stat: FileStat) -> tuple[Any, ...]:
    m = entry.meta
    return (
        m.id,
        stat.name,
        stat.mtime_ns,
        stat.size,
        m.title,
        m.type.value,
        m.tier.value,
        m.scope,
        m.project,
        _tags_json(m.tags),
        m.source.value,
        m.confidence,
        ts(m.created),
        ts(m.updated),
        int(m.reviewed),
        entry.text,
        embed_key(m.title, entry.text),
        " ".join(m.supersedes),
        _evidence_json(m.evidence),
    )


def fts_tokens(entry: MemoryEntry) -> tuple[list[str], list[str], list[str]]:
    """The search tokens of an entry's title, tags and body."""
    m = entry.meta
    return index_tokens(m.title), index_tokens(" ".join(m.tags)), index_tokens(entry.text)


def fts_values(entry: MemoryEntry) -> tuple[str, str, str]:
    """The FTS5 columns: each column's tokens joined by spaces."""
    title, tags, body = fts_tokens(entry)
    return " ".join(title), " ".join(tags), " ".join(body)


def upsert(con: sqlite3.Connection, entry: MemoryEntry, stat: FileStat) -> None:
    """Index one entry (its row, its FTS tokens); the caller holds the root lock."""
    # An unchanged text keeps its embedding (same ekey); a changed one
    # is re-embedded because its ekey no longer matches.
    remove(con, stat.name, keep_embedding=True)
    try:
        cur = con.execute(
            "INSERT INTO entries (id, name, mtime_ns, size, title, type, tier, scope, project,"
            " tags, source, confidence, created, updated, reviewed, body, ekey, supersedes,"
            " evidence) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            values(entry, stat),
        )
    except sqlite3.IntegrityError:
        old = con.execute("SELECT name FROM entries WHERE id = ?", (entry.meta.id,)).fetchone()
        raise JupyterMemoryError(
            M_(
                "id {id} is used by both {first} and {second}",
                id=entry.meta.id,
                first=old[0] if old else "?",
                second=stat.name,
            )
        ) from None
    cols = fts_values(entry)
    con.execute(
        "INSERT INTO fts (rowid, title, tags, body) VALUES (?,?,?,?)", (cur.lastrowid, *cols)
    )
    # Same transaction: the term statistics stay exact for every process.
    postings.add(con, int(cur.lastrowid or 0), *cols)
    con.execute("DELETE FROM problems WHERE name = ?", (stat.name,))


def remove(con: sqlite3.Connection, name: str, *, keep_embedding: bool = False) -> None:
    """Drop a file's row, its tokens and (unless kept) its embedding."""
    row = con.execute("SELECT rowid, id FROM entries WHERE name = ?", (name,)).fetchone()
    if row is not None:
        postings.remove(con, row[0])  # reads the row's tokens from fts: first
        con.execute("DELETE FROM fts WHERE rowid = ?", (row[0],))
        con.execute("DELETE FROM entries WHERE rowid = ?", (row[0],))
        # An embedding is a derived trace of the text: it goes with the entry.
        if not keep_embedding and attached(con, "emb"):
            con.execute("DELETE FROM emb.vectors WHERE id = ?", (row[1],))
    con.execute("DELETE FROM problems WHERE name = ?", (name,))
