"""Recall's rows are built without the dataclass's ``__init__`` (issue 16): they must
be the rows ``IndexedMemory(...)`` builds, each with lists of its own."""

from __future__ import annotations

import json
from dataclasses import fields

from jupyter_memory import Memory
from jupyter_memory.core.memories.attention import combine
from jupyter_memory.store.memories.search_index import IndexedMemory
from jupyter_memory.store.memories.sqlite_db import dt
from jupyter_memory.store.memories.sqlite_result import COLUMNS, row_of


def _built(r: tuple[object, ...], floor: float) -> IndexedMemory:
    return IndexedMemory(
        id=r[0],
        name=r[1],
        title=r[2],
        type=r[3],
        tier=r[4],
        scope=r[5],
        project=r[6],
        tags=json.loads(r[7]),
        source=r[8],
        confidence=r[9],
        created=dt(r[10]),
        updated=dt(r[11]),
        reviewed=bool(r[12]),
        access_count=int(r[13]),
        last_accessed=None if r[14] is None else dt(r[14]),
        rid=int(r[15]),
        relevance=float(r[16]),
        attention=float(r[17]),
        score=combine(float(r[16]), float(r[17]), floor),
    )


def test_row_of_builds_what_the_dataclass_builds(mem: Memory) -> None:
    mem.remember("退款 refund policy", title="Refunds 退款", tags=["q3", "财务"])
    mem.remember("another refund note", tags=["q3", "财务"])
    mem.remember("no tags at all, 没有标签", type="episodic", tier="daily")
    mem.recall("refund")  # counts accesses: last_accessed and access_count are set
    mem.hooks.user.index.flush_access()
    con = mem.hooks.user.index.connection()
    sql = f"SELECT {COLUMNS}, 2.5, 0.75 FROM entries e LEFT JOIN acc.access a ON a.id = e.id"
    rows = con.execute(sql).fetchall()
    assert len(rows) == 3 and any(r[14] is not None for r in rows)
    names = {f.name for f in fields(IndexedMemory)}
    built = [row_of(r, 0.85) for r in rows]
    for r, fast in zip(rows, built, strict=True):
        assert fast == _built(r, 0.85)
        assert vars(fast).keys() == names  # every field, none more
        assert fast.extra == {} and fast.extra is not row_of(r).extra
    # Rows with the same tags do not share one list: a caller may change its own.
    tagged = [row for row in built if row.tags]
    assert tagged[0].tags == tagged[1].tags and tagged[0].tags is not tagged[1].tags
    tagged[0].tags.append("changed")
    assert row_of(rows[built.index(tagged[1])]).tags == ["q3", "财务"]
