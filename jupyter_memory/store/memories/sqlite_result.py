"""The result tuple of recall's row queries: its columns by name, and the row it makes.

Every query that returns memories (recall, the listing, the semantic path's
check of vector hits) selects :data:`COLUMNS`, then a relevance and an
attention; :func:`row_of` reads that tuple by the names below.
:class:`Ranking` is how a lexical pass turns its candidates into rows
(production: :data:`.sqlite_queries.BY_RELEVANCE`; other ranking floors:
:mod:`.sqlite_rerank`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...core.memories.attention import ACCESS_CAP, ACCESS_WEIGHT, DECAY, combine
from .search_index import IndexedMemory
from .sqlite_db import dt

Params = dict[str, Any]
Built = tuple[str, Params]  # a statement and its named parameters
Row = tuple[Any, ...]  # one result tuple: ROW_COLUMNS, then relevance and attention

# The entry columns every row query selects, by the name row_of gives them.
ROW_COLUMNS: dict[str, str] = {
    "id": "e.id",
    "name": "e.name",
    "title": "e.title",
    "type": "e.type",
    "tier": "e.tier",
    "scope": "e.scope",
    "project": "e.project",
    "tags": "e.tags",
    "source": "e.source",
    "confidence": "e.confidence",
    "created": "e.created",
    "updated": "e.updated",
    "reviewed": "e.reviewed",
    "access_count": "COALESCE(a.access_count, 0)",
    "last_accessed": "a.last_accessed",
    "rid": "e.rowid",
}
COLUMNS = ", ".join(ROW_COLUMNS.values())
# Positions in a result tuple: the columns above, then relevance and attention.
(
    ID, NAME, TITLE, TYPE, TIER, SCOPE, PROJECT, TAGS, SOURCE, CONFIDENCE,
    CREATED, UPDATED, REVIEWED, ACCESS_COUNT, LAST_ACCESSED, RID,
    RELEVANCE, ATTENTION,
) = range(len(ROW_COLUMNS) + 2)  # fmt: skip
assert list(ROW_COLUMNS).index("rid") == RID  # the two lists name the same positions

# The tables a row's columns come from (entries, and the access sidecar).
ROW_TABLES = "entries e LEFT JOIN acc.access a ON a.id = e.id"


@functools.lru_cache(maxsize=1 << 14)
def _time(stamp: float) -> datetime:
    # The same few thousand rows come back recall after recall; a datetime is immutable.
    return dt(stamp)


@functools.lru_cache(maxsize=1 << 12)
def _tags(text: str) -> tuple[str, ...]:
    return tuple(json.loads(text))


_new_row = object.__new__


def row_of(r: Row, floor: float = 1.0) -> IndexedMemory:
    """The row of one result tuple (``COLUMNS``, relevance, attention).

    Built as ``IndexedMemory(...)`` would build it, without the dataclass's
    ``__init__`` (a recall builds up to twenty; the test holds the two equal).
    """
    relevance, attention = float(r[RELEVANCE]), float(r[ATTENTION])
    tags = r[TAGS]
    row = _new_row(IndexedMemory)
    row.__dict__ = {
        "id": r[ID],
        "name": r[NAME],
        "title": r[TITLE],
        "type": r[TYPE],
        "tier": r[TIER],
        "scope": r[SCOPE],
        "project": r[PROJECT],
        "tags": [] if tags == "[]" else list(_tags(tags)),
        "source": r[SOURCE],
        "confidence": r[CONFIDENCE],
        "created": _time(r[CREATED]),
        "updated": _time(r[UPDATED]),
        "reviewed": bool(r[REVIEWED]),
        # combine() at floor 1.0 is the relevance itself (× 1.0 + 0.0 × a finite attention)
        "score": relevance if floor == 1.0 else combine(relevance, attention, floor),
        "relevance": relevance,
        "attention": attention,
        "access_count": int(r[ACCESS_COUNT]),
        "last_accessed": None if r[LAST_ACCESSED] is None else _time(r[LAST_ACCESSED]),
        "extra": {},
        "rid": int(r[RID]),
    }
    return row


@functools.cache
def attention_sql() -> str:
    # Mirrors core.attention.attention_score (parameter :now); computed in SQL
    # so only the final top-k rows cross into Python.
    decay = " ".join(f"WHEN '{t}' THEN {1 - d!r}" for t, d in DECAY.items())
    age = "MAX(0.0, (:now - MAX(e.updated, COALESCE(a.last_accessed, 0))) / 86400.0)"
    access = f"MIN({ACCESS_CAP}, 1.0 + {ACCESS_WEIGHT} * ln(1 + COALESCE(a.access_count, 0)))"
    return (
        f"MIN(1.0, MAX(0.0, pow(CASE e.tier {decay} ELSE 0.99 END, {age})"
        f" * {access} * e.confidence))"
    )


@dataclass(frozen=True)
class Ranking:
    """How a pass's candidates ``c`` (``rid``, ``rel``) become its best rows.

    ``final(limit)`` is the SQL after ``WITH c AS (…),`` and its parameters;
    ``score`` is the score :func:`row_of` gives a result tuple, the key the
    passes are merged by; ``floor`` is what :func:`row_of` is called with.
    """

    final: Callable[[int], Built]
    score: Callable[[Row], float]
    floor: float
