"""The postings cache (store/memories/postings_cache.py) against the SQL it stands in for.

Recall may take its candidates from per-term postings held in memory rather
than from SQLite's rows; these tests hold the two to the same hits (ids,
order, scores to the bit, attention, the all-words flag) over random small
homes and queries, and hold the cache to dropping what it read after every
kind of change: a write from another process, this process's own writes, a
rebuild, a forget.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_memory import Memory
from jupyter_memory.core.memories.ranking import DEFAULT_RANKING
from jupyter_memory.store.memories import postings_cache
from jupyter_memory.store.memories.postings_cache import PostingsCache
from jupyter_memory.store.memories.search_index import IndexedMemory, SearchQuery
from jupyter_memory.store.memories.sqlite_index import SqliteIndex
from jupyter_memory.store.memories.sqlite_queries import search

WORDS = ["refund", "revenue", "order", "churn", "window", "budget", "tax", "audit", "q3"]
HAN = ["收入", "退款", "订单", "用户", "渠道"]
NOW = datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def _cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    # Off by default (docs/recall.md); every index these tests open keeps one.
    monkeypatch.setenv(postings_cache.ENV, "on")


def _key(rows: list[IndexedMemory]) -> list[dict[str, object]]:
    # Every field: metadata, access counts, scores to the bit, the all-words flag.
    return [dict(vars(r)) for r in rows]


def _import(mem: Memory, notes: list[tuple[str, str, list[str]]], tag: str) -> list[str]:
    src = mem.home.parent / f"notes-{tag}.jsonl"
    lines = [
        json.dumps({"text": text, "title": title, "tags": tags}, ensure_ascii=False)
        for text, title, tags in notes
    ]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ids: list[str] = mem.hooks.import_jsonl(src)
    return ids


def _sql_and_cache(
    index: SqliteIndex, cache: PostingsCache, query: SearchQuery
) -> tuple[list[IndexedMemory], list[IndexedMemory]]:
    con = index.connection()
    return search(con, query), search(con, query, cache)


word = st.sampled_from(WORDS)
english = st.lists(word, min_size=1, max_size=12).map(" ".join)
chinese = st.lists(st.sampled_from(HAN), min_size=1, max_size=5).map("".join)
note = st.tuples(
    st.one_of(english, chinese), st.one_of(english, chinese), st.lists(word, max_size=2)
)
query_text = st.one_of(
    st.lists(word, min_size=1, max_size=4).map(" ".join), st.sampled_from(HAN), chinese
)


# 15 homes of up to 40 notes, each asked 12 queries under 3 caps: breaking the
# any-word sum order, the all-words driver's stop or the prefix extension on
# purpose is caught within the first 5 examples.
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    notes=st.lists(note, min_size=1, max_size=40),
    queries=st.lists(query_text, min_size=12, max_size=12),
    seed=st.integers(0, 1000),
)
def test_the_cache_answers_what_the_sql_answers(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    notes: list[tuple[str, str, list[str]]],
    queries: list[str],
    seed: int,
) -> None:
    # Reads of one or two postings at a time, so a query extends prefixes many times.
    monkeypatch.setattr(postings_cache, "FIRST_READ", 1 + seed % 2)
    # So few entries' columns held that a query's hits overflow them.
    monkeypatch.setattr(postings_cache, "ENTRIES_HELD", 2 + seed % 5)
    home = tmp_path_factory.mktemp("home") / "memory"
    with Memory(home=home, semantic=False) as mem:
        _import(mem, notes, "h")
        index = mem.hooks.user.index
        assert isinstance(index, SqliteIndex)
        cache = PostingsCache()
        rng = random.Random(seed)
        for text in queries:
            for caps in ((200, 1000), (2, 3), (1, 5)):
                ranking = dataclasses.replace(
                    DEFAULT_RANKING,
                    all_words_cap=caps[0],
                    candidate_cap=caps[1],
                    idf=rng.choice(["lucene", "fts5"]),
                    relaxation=rng.choice(["all_then_any", "any"]),
                )
                query = SearchQuery(
                    text=text, limit=rng.choice([1, 3, 10]), now=NOW, ranking=ranking
                )
                sql, cached = _sql_and_cache(index, cache, query)
                assert _key(cached) == _key(sql), (text, caps, query.limit)


def _filled(mem: Memory, n: int = 60) -> list[str]:
    rng = random.Random(5)
    notes = []
    for i in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 9))]
        han = "".join(rng.choice(HAN) for _ in range(3))
        notes.append((" ".join(words) + f" {han}", f"note {i}", ["ops"]))
    return _import(mem, notes, "fill")


def _asked(mem: Memory) -> PostingsCache:
    """The user index's cache after recalls that engage it (the first search of a
    connection may go by SQL alone: postings_cache.engaged)."""
    index = mem.hooks.user.index
    assert isinstance(index, SqliteIndex) and index.postings_cache is not None
    for text in ("refund", "refund budget", "收入", "window tax churn"):
        index.search(SearchQuery(text=text, now=NOW))
        index.search(SearchQuery(text=text, now=NOW))
    assert index.postings_cache.held > 0
    return index.postings_cache


def _same_as_sql(mem: Memory, text: str, limit: int = 10) -> list[IndexedMemory]:
    index = mem.hooks.user.index
    assert isinstance(index, SqliteIndex) and index.postings_cache is not None
    query = SearchQuery(text=text, limit=limit, now=NOW)
    con = index.connection()
    cached = index.search(query)
    assert _key(cached) == _key(search(con, query))
    return cached


def test_a_write_from_another_process_drops_what_was_read(mem: Memory, memory_home: Path):
    ids = _filled(mem)
    cache = _asked(mem)
    drops = cache.drops
    before = _same_as_sql(mem, "refund", limit=5)
    script = textwrap.dedent(
        f"""
        from jupyter_memory import Memory
        m = Memory(home={str(memory_home)!r}, semantic=False)
        for i in range(8):
            m.remember("refund refund refund from the other kernel " + str(i), title="refund")
        m.forget({ids[0]!r})
        m.close()
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    after = _same_as_sql(mem, "refund", limit=5)
    assert cache.drops > drops
    assert after != before
    assert all("other kernel" in mem.get(h.id).text for h in after)
    assert ids[0] not in {h.id for h in _same_as_sql(mem, "refund budget window", limit=100)}


def test_own_writes_and_a_forget_drop_what_was_read(mem: Memory):
    ids = _filled(mem)
    cache = _asked(mem)
    hit = _same_as_sql(mem, "refund", limit=1)[0]
    drops = cache.drops
    # Dropped at the next search's check, which sees the connection's own changes.
    mem.forget(hit.id)
    assert hit.id not in {h.id for h in _same_as_sql(mem, "refund", limit=100)}
    assert cache.drops > drops
    _asked(mem)
    drops = cache.drops
    new = mem.remember("a refund note about 收入 written now", title="refund 收入")
    assert _same_as_sql(mem, "refund", limit=1)[0].id == new.id
    assert cache.drops > drops
    _asked(mem)
    mem.update(ids[5], text="only churn tax now")
    assert ids[5] in {h.id for h in _same_as_sql(mem, "churn tax", limit=100)}
    assert ids[5] not in {h.id for h in _same_as_sql(mem, "refund", limit=100)}


def test_a_rebuild_drops_what_was_read(mem: Memory, memory_home: Path):
    ids = _filled(mem)
    cache = _asked(mem)
    index = mem.hooks.user.index
    assert isinstance(index, SqliteIndex)
    con = index.connection()
    # An edit the index has not seen (no sync before the rebuild): only the rebuild
    # brings it, and answers read before it must not survive it.
    name = index.name_of(ids[3])
    assert name is not None
    path = memory_home / "memories" / name
    path.write_text(path.read_text("utf-8").replace("note 3", "note 3 zebra"), "utf-8")
    mem.hooks.rebuild_index()
    assert cache.held == 0 and index.connection() is not con
    assert [h.id for h in _same_as_sql(mem, "zebra")] == [ids[3]]
    _asked(mem)
    _same_as_sql(mem, "refund budget")


def test_access_counts_written_by_this_process_keep_what_was_read(mem: Memory):
    _filled(mem)
    cache = _asked(mem)
    index = mem.hooks.user.index
    assert isinstance(index, SqliteIndex)
    drops, held = cache.drops, cache.held
    hits = _same_as_sql(mem, "refund")
    index.record_access([h.id for h in hits], NOW)
    index.flush_access()
    # The access counts are not postings: the cache stays, and the rows it is joined
    # to show the new counts.
    assert (cache.drops, cache.held) == (drops, held)
    counted = _same_as_sql(mem, "refund")
    assert {h.id: h.access_count for h in counted}[hits[0].id] == 1


def test_memory_stays_within_the_budget(mem: Memory):
    _filled(mem, 120)
    index = mem.hooks.user.index
    assert isinstance(index, SqliteIndex)
    index.postings_cache = cache = PostingsCache(budget=40)
    for text in [*WORDS, *HAN, "refund budget", "window tax churn"]:
        index.search(SearchQuery(text=text, now=NOW))
        _same_as_sql(mem, text)
        # Beyond the budget only by the lists the last query itself needed.
        assert cache.held <= 40 + 3 * 120
    assert cache.held <= 40 + 3 * 120
    assert len(cache._lists) < len(WORDS) + len(HAN)


def test_a_first_search_in_a_process_without_numpy_goes_by_sql() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from jupyter_memory.store.memories.postings_cache import engaged\n"
            "print(engaged(0), engaged(1), 'numpy' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["False", "True", "False"]


def test_a_commit_of_another_connection_during_an_access_write_still_shows(mem: Memory):
    _filled(mem, 20)
    index = mem.hooks.user.index
    assert isinstance(index, SqliteIndex) and index._current is not None
    con = index.connection()
    cache = PostingsCache()
    cache.valid(con)
    assert cache.valid(con)
    # Between the check and the access write's end, another connection commits.
    other = sqlite3.connect(index.layout.index_dir / index._current)
    with other:
        other.execute("INSERT INTO meta VALUES ('written by another connection', 'x')")
    other.close()
    before = con.total_changes
    with con:
        con.execute(
            "INSERT INTO acc.access (id, last_accessed, access_count) VALUES ('x', 0, 1)"
            " ON CONFLICT(id) DO UPDATE SET access_count = access_count + 1"
        )
    cache.after_access_write(con, True, before, 1)
    assert not cache.valid(con)


def test_off_by_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(postings_cache.ENV)
    with Memory(home=tmp_path / "memory", semantic=False) as mem:
        mem.remember("a refund note", title="refund")
        index = mem.hooks.user.index
        assert isinstance(index, SqliteIndex) and index.postings_cache is None
        assert [h.title for h in mem.recall("refund")] == ["refund"]
