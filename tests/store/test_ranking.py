"""Ranking of the lexical engine: analysis at both ends, relaxation, weights, attention."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

from jupyter_memory import Memory
from jupyter_memory.core.memories.attention import RELEVANCE_FLOOR, combine
from jupyter_memory.store.memories.search_index import SearchQuery
from jupyter_memory.store.memories.sqlite_index import SCHEMA_VERSION


def _ids(hits) -> list[str]:
    return [h.id for h in hits]


def test_inflected_forms_find_each_other(mem: Memory):
    a = mem.remember("Revenue excludes refunded orders")
    assert _ids(mem.recall("refunds")) == [a.id]
    assert _ids(mem.recall("excluding refund")) == [a.id]
    assert _ids(mem.recall("order")) == [a.id]


def test_stopwords_neither_match_nor_block(mem: Memory):
    a = mem.remember("The refund policy is strict")
    mem.remember("Something else entirely")
    assert _ids(mem.recall("what is the refund policy?")) == [a.id]
    assert mem.recall("what is the") == []


def test_single_chinese_character_finds_it_anywhere_in_a_run(mem: Memory):
    start = mem.remember("个税按月申报")  # 税 inside a run
    end = mem.remember("这是个税")  # 税 ends the run
    alone = mem.remember("税 单独")
    mem.remember("收入不含退款")
    assert set(_ids(mem.recall("税", limit=10))) == {start.id, end.id, alone.id}


def test_long_chinese_question_is_relaxed_to_its_bigrams(mem: Memory):
    a = mem.remember("卡罗琳参加了支持小组，感觉被接纳")
    mem.remember("梅兰妮喜欢画画")
    assert _ids(mem.recall("卡罗琳什么时候去的支持小组", limit=1)) == [a.id]


def test_mixed_language_query(mem: Memory):
    a = mem.remember("Q3收入不含 refunds")
    b = mem.remember("Q3 revenue in English only")
    hits = _ids(mem.recall("Q3 收入 refund"))
    assert hits[0] == a.id and b.id in hits


def test_widening_keeps_one_bm25_order(mem: Memory):
    all_words = mem.remember("refund policy for enterprise customers")
    mem.remember("refund requests pile up")
    mem.remember("enterprise customers renew yearly")
    mem.remember("policy documents live in the wiki")
    rows = mem.hooks.user.index.search(
        SearchQuery(text="refund policy enterprise", limit=10, now=mem.hooks.clock())
    )
    assert rows[0].id == all_words.id
    assert len(rows) == 4
    scores = [r.score for r in rows]
    assert scores == sorted(scores, reverse=True)


def test_title_outweighs_body(mem: Memory):
    in_body = mem.remember("notes about churn and the quarterly numbers", title="Quarterly notes")
    in_title = mem.remember("the quarterly numbers and other notes", title="Churn")
    assert _ids(mem.recall("churn"))[:2] == [in_title.id, in_body.id]


def test_attention_does_not_drown_relevance(mem: Memory, clock):
    old_exact = mem.remember(
        "warehouse stock counts drift after returns",
        tier="session",
        created=clock() - timedelta(days=400),
    )
    fresh_weak = mem.remember("warehouse opening hours")
    hits = mem.recall("warehouse stock drift returns", limit=2)
    assert _ids(hits) == [old_exact.id, fresh_weak.id]
    assert hits[0].attention < 0.01 < hits[1].attention
    # The factor only scales relevance within [RELEVANCE_FLOOR, 1].
    assert combine(1.0, 0.0) == RELEVANCE_FLOOR and combine(1.0, 1.0) == 1.0


def test_attention_breaks_ties_between_equal_matches(mem: Memory, clock):
    old = mem.remember("budget review notes", created=clock() - timedelta(days=300))
    new = mem.remember("budget review notes")
    assert _ids(mem.recall("budget review")) == [new.id, old.id]


def test_old_schema_is_rebuilt_with_a_notice(memory_home, clock):
    m = Memory(home=memory_home, clock=clock)
    a = m.remember("rebuild me with stems")
    con = m.hooks.user.index.connection()
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    m.close()
    m2 = Memory(home=memory_home, clock=clock)
    assert _ids(m2.recall("stem")) == [a.id]
    m2.close()
    current = (memory_home / ".index" / "CURRENT").read_text().strip()
    db = sqlite3.connect(memory_home / ".index" / current)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()


def test_an_index_built_by_another_stemmer_version_is_rebuilt(memory_home, clock):
    # Stored tokens are stems: a PyStemmer upgrade may stem differently, so the
    # index records the analyser it was built with and rebuilds when it changed.
    import Stemmer

    m = Memory(home=memory_home, clock=clock)
    a = m.remember("running totals per region")
    con = m.hooks.user.index.connection()
    con.execute("UPDATE meta SET value = 'analyzer 1; PyStemmer 0.0.1' WHERE key = 'analyzer'")
    # An older stemmer's token, which today's query would never produce.
    con.execute("UPDATE fts SET body = 'runningz' WHERE rowid = 1")
    m.close()
    m2 = Memory(home=memory_home, clock=clock)
    assert _ids(m2.recall("run")) == [a.id]
    assert any("PyStemmer 0.0.1" in n for n in m2.hooks.user.last_report.notices)
    m2.close()
    current = (memory_home / ".index" / "CURRENT").read_text().strip()
    db = sqlite3.connect(memory_home / ".index" / current)
    (value,) = db.execute("SELECT value FROM meta WHERE key = 'analyzer'").fetchone()
    assert value.endswith(f"PyStemmer {Stemmer.version()}")
    db.close()
