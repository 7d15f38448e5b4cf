"""One page of the memory listing (``%memories``), ordered in SQL (issue 16).

The listing shows HOT, then WARM, then COLD memories, newest first within each
heat (:meth:`MemoryReader.list`). Deciding the heat of 100,000 memories in
Python took seconds; here SQLite computes it, newest first along the index
on ``updated``, and stops once the page is full, so only the page's rows are
read. The expression mirrors
``core.memories.sectors.decide_tier``: the attention score of
:func:`.sqlite_result.attention_sql` and the sector TTL (a memory past its
TTL is COLD whatever its score). The caller decides the heat of the page's
rows again in Python, so what is shown is always the core's verdict; a test
compares the two orders on generated memories.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from ...core.memories.attention import ACCESS_CAP, ACCESS_WEIGHT, HOT, WARM
from ...core.memories.sectors import BASE_TTL_DAYS, SEMANTIC_TTL_DAYS
from .search_index import IndexedMemory
from .sqlite_db import ts
from .sqlite_result import COLUMNS, attention_sql, row_of


def _expired_sql() -> str:
    access = f"MIN({ACCESS_CAP}, 1.0 + {ACCESS_WEIGHT} * ln(1 + COALESCE(a.access_count, 0)))"
    ttl_cases = []
    for sector, days in BASE_TTL_DAYS.items():
        if days is None:
            ttl_cases.append(f"WHEN '{sector}' THEN NULL")
        elif sector in ("episodic", "procedural"):  # use stretches their lifetime
            ttl_cases.append(f"WHEN '{sector}' THEN {days!r} * {access}")
        else:
            ttl_cases.append(f"WHEN '{sector}' THEN {days!r}")
    ttl = f"(CASE e.type {' '.join(ttl_cases)} ELSE {SEMANTIC_TTL_DAYS!r} END)"
    since = "CASE e.type WHEN 'episodic' THEN e.updated ELSE MAX(e.updated, COALESCE(a.last_accessed, e.updated)) END"
    age = f"MAX(0.0, (:now - ({since})) / 86400.0)"
    return f"({ttl} IS NOT NULL AND {age} > {ttl})"


def heat_rank_sql() -> str:
    """0 HOT, 1 WARM, 2 COLD, as ``decide_tier`` decides it."""
    att = attention_sql()
    return (
        f"(CASE WHEN {_expired_sql()} THEN 2 WHEN {att} > {HOT!r} THEN 0"
        f" WHEN {att} >= {WARM!r} THEN 1 ELSE 2 END)"
    )


def heat_page(
    con: sqlite3.Connection, *, now: datetime, limit: int, include_cold: bool
) -> tuple[list[IndexedMemory], int]:
    """The first ``limit`` rows of the listing order, and how many memories the index holds.

    One query per heat, newest first along the index on ``updated``, stopped by
    ``LIMIT``: HOT memories are recent, so the first page is found after a few
    rows, not after deciding the heat of all of them. Only a home with fewer
    HOT (then WARM) memories than the page reads further (a full scan in SQL).
    """
    rank = heat_rank_sql()
    params: dict[str, float | int] = {"now": ts(now)}
    rows: list[IndexedMemory] = []
    for heat in (0, 1, 2) if include_cold else (0, 1):
        params["limit"] = max(0, limit - len(rows))
        if not params["limit"]:
            break
        rows.extend(
            row_of(r)
            for r in con.execute(
                f"SELECT {COLUMNS}, 0.0, 0.0 FROM entries e LEFT JOIN acc.access a"
                f" ON a.id = e.id WHERE {rank} = {heat} ORDER BY e.updated DESC LIMIT :limit",
                params,
            )
        )
    (total,) = con.execute("SELECT COUNT(*) FROM entries").fetchone()
    return rows, int(total)
