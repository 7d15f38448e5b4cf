"""Postings and term statistics (store/memories/sqlite_postings.py) against FTS5 itself.

Ranking reads bm25 from our own postings instead of FTS5's ``bm25()``; these
tests hold the two to the same candidates and the same scores, and the term
statistics to a recount, after writes from this process, from another
process, hand edits and a rebuild.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.memories.ranking import DEFAULT_RANKING
from jupyter_memory.core.text import relaxed_groups, search_groups
from jupyter_memory.store.memories import sqlite_postings as postings
from jupyter_memory.store.memories.search_index import SearchQuery
from jupyter_memory.store.memories.sqlite_queries import _fts_group, search

WORDS = [
    *("refund", "revenue", "order", "customer", "churn", "cohort", "window", "budget"),
    *("target", "tax", "price", "discount", "invoice", "audit", "model", "query"),
    *("café", "cafe", "naïve", "naive", "q3", "2023"),
]
WEIGHTS = DEFAULT_RANKING.bm25_weights  # the production column weights
HAN = ["收入", "退款", "订单", "用户", "渠道", "口径", "税"]


def _note(rng: random.Random) -> tuple[str, str, list[str]]:
    if rng.random() < 0.3:
        text = "".join(rng.choice(HAN) for _ in range(rng.randint(2, 8))) + "。"
        return text, rng.choice(HAN), [rng.choice(["财务", "sales"])]
    words = [rng.choice(WORDS) for _ in range(rng.randint(3, 14))]
    title = " ".join(rng.sample(WORDS, 2))
    return " ".join(words) + ".", title, [rng.choice(["sales", "ops"])]


def _fill(mem: Memory, n: int, seed: int = 3) -> list[str]:
    """``n`` notes (text, title, tags) written by one bulk import: indexed as ``n``
    remembers would index them, in a fraction of the time (no write per note)."""
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        text, title, tags = _note(rng)
        lines.append(json.dumps({"text": text, "title": title, "tags": tags}, ensure_ascii=False))
    src = mem.home.parent / f"fill-{seed}-{n}.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ids = mem.hooks.import_jsonl(src)
    assert len(ids) == n
    return ids


def _recount(con: sqlite3.Connection) -> None:
    """terms, totals and postings agree with the FTS5 rows they were made from."""
    df: dict[str, int] = {}
    n = tokens = 0
    for title, tags, body in con.execute("SELECT title, tags, body FROM fts"):
        cols = [str(title).split(), str(tags).split(), str(body).split()]
        n += 1
        tokens += sum(len(c) for c in cols)
        for term in {postings.term_key(t) for c in cols for t in c}:
            df[term] = df.get(term, 0) + 1
    assert con.execute("SELECT n, tokens FROM totals").fetchone() == (n, tokens)
    assert n == con.execute("SELECT count(*) FROM entries").fetchone()[0]
    stored = dict(con.execute("SELECT term, df FROM terms WHERE df > 0"))
    assert stored == df
    counted = dict(con.execute("SELECT term, count(*) FROM postings GROUP BY term"))
    assert counted == df
    # FTS5 agrees on how many rows hold a plain term (the IDF's input).
    for term in [t for t in df if t.isascii()][:20]:
        fts_df = con.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (f'"{term}"',))
        assert fts_df.fetchone()[0] == df[term], term


def _fts_ranking(
    con: sqlite3.Connection, text: str, every: bool, cap: int, weights: Sequence[float] = WEIGHTS
) -> dict[int, float]:
    groups = search_groups(text)
    groups = groups if every else relaxed_groups(groups)
    match = (" AND " if every else " OR ").join(_fts_group(g) for g in groups)
    w = ", ".join(str(float(x)) for x in weights)
    sql = f"SELECT rowid, -bm25(fts, {w}) FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT ?"
    return {int(r): float(s) for r, s in con.execute(sql, (match, cap))}


def _postings_ranking(
    con: sqlite3.Connection,
    text: str,
    every: bool,
    cap: int,
    fts_match: bool | None = None,
    weights: Sequence[float] = WEIGHTS,
    idf_of: Callable[[int, int], float] = postings.fts5_idf,
) -> dict[int, float]:
    groups = search_groups(text)
    terms = postings.plain_terms(groups if every else relaxed_groups(groups))
    assert terms is not None
    built = postings.candidates_sql(
        terms,
        postings.statistics(con, terms, idf_of),
        every=every,
        weights=weights,
        where=None,
        fts_match=fts_match,
    )
    if built is None:
        return {}
    sql, params = built
    return {int(r): float(s) for r, s in con.execute(sql, {**params, "cap": cap})}


QUERIES = [
    "refund",
    "refunds revenue",
    "window budget tax",
    "café",
    "cafe",
    "收入",
    "退款 refund",
    "q3 2023",
    "audit naive",
    "nothing-here refund",
]


def _assert_same_as_fts5(
    con: sqlite3.Connection, cap: int = 1000, weights: Sequence[float] = WEIGHTS
) -> None:
    for text in QUERIES:
        if postings.plain_terms(search_groups(text)) is None:
            continue
        # Any word; all words driven by postings; all words matched by FTS5.
        for every, fts_match in ((False, None), (True, False), (True, True)):
            ours = _postings_ranking(con, text, every, cap, fts_match, weights)
            theirs = _fts_ranking(con, text, every, cap, weights)
            assert ours.keys() == theirs.keys(), (text, every, fts_match)
            for rid, score in theirs.items():
                assert ours[rid] == pytest.approx(score, rel=1e-12), (text, every, rid)


def test_scores_and_candidates_equal_fts5_bm25(mem: Memory):
    _fill(mem, 300)
    con = mem.hooks.user.index.connection()
    _recount(con)
    _assert_same_as_fts5(con)
    # A bound smaller than the matches: the same newest ones on both sides.
    _assert_same_as_fts5(con, cap=7)
    # Weights other than the production ones (their weighted tf is not stored).
    _assert_same_as_fts5(con, weights=(1.0, 1.0, 1.0))
    _assert_same_as_fts5(con, cap=7, weights=(0.5, 3.0, 1.25))


def test_the_stored_weighted_tf_is_the_production_expression_to_the_bit(mem: Memory):
    _fill(mem, 120)
    con = mem.hooks.user.index.connection()
    assert WEIGHTS == (1.0, 2.0, 1.0)
    rows = con.execute(
        "SELECT w, 1.0 * tf_title + 2.0 * tf_tags + 1.0 * tf_body, tf_title, tf_tags, tf_body"
        " FROM postings"
    ).fetchall()
    assert rows and any(r[3] for r in rows)  # tags count, and twice
    for w, inline, *tfs in rows:
        assert type(w) is float and w == inline == sum(
            x * f for x, f in zip(WEIGHTS, tfs, strict=True)
        )


def test_statistics_follow_update_and_forget(mem: Memory):
    ids = _fill(mem, 60)
    for memory_id in ids[:10]:
        mem.update(memory_id, text="window tax refund café")
    for memory_id in ids[10:25]:
        mem.forget(memory_id)
    con = mem.hooks.user.index.connection()
    _recount(con)
    _assert_same_as_fts5(con)


def test_statistics_follow_writes_of_another_process(mem: Memory, memory_home: Path):
    ids = _fill(mem, 40)
    con = mem.hooks.user.index.connection()
    before = mem.recall("refund", limit=5)  # this process holds its connection open
    script = textwrap.dedent(
        f"""
        from jupyter_memory import Memory
        m = Memory(home={str(memory_home)!r}, semantic=False)
        for i in range(30):
            m.remember("refund refund budget from the other kernel " + str(i), title="refund")
        m.update({ids[0]!r}, text="only tax now")
        m.forget({ids[1]!r})
        m.close()
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    after = mem.recall("refund", limit=5)
    assert after != before and all("other kernel" in mem.get(h.id).text for h in after)
    con = mem.hooks.user.index.connection()
    _recount(con)
    _assert_same_as_fts5(con)


def test_hand_edit_and_rebuild_keep_statistics(mem: Memory, memory_home: Path):
    ids = _fill(mem, 50)
    path = memory_home / "memories" / mem.hooks.user.index.name_of(ids[2])
    path.write_text(path.read_text("utf-8").replace(".\n", " 退款 window.\n"), "utf-8")
    (memory_home / "memories" / str(mem.hooks.user.index.name_of(ids[3]))).unlink()
    assert mem.recall("window")  # syncs the folder
    _recount(mem.hooks.user.index.connection())
    mem.hooks.rebuild_index()
    con = mem.hooks.user.index.connection()
    _recount(con)
    _assert_same_as_fts5(con)


def test_recall_uses_postings_with_lucene_idf(mem: Memory):
    _fill(mem, 200, seed=9)
    con = mem.hooks.user.index.connection()
    for text in ("refund budget", "收入", "window tax audit", "cafe"):
        rows = search(con, SearchQuery(text=text, limit=10, now=mem.hooks.clock()))
        # Widened to any word when fewer than the limit hold every word.
        lucene = postings.lucene_idf
        fts = {
            **_postings_ranking(con, text, False, 1000, idf_of=lucene),
            **_postings_ranking(con, text, True, 1000, idf_of=lucene),
        }
        top = sorted(fts.values(), reverse=True)
        assert rows and all(r.relevance == pytest.approx(fts[_rid(con, r.id)]) for r in rows)
        assert max(r.relevance for r in rows) == pytest.approx(top[0])


def test_a_word_in_most_notes_still_counts(mem: Memory):
    # FTS5's idf is 0 (floored at 1e-6) for a word in half the notes or more: a
    # chat's speaker names. The note naming Caroline and her painting must then
    # rank above a shorter one about someone else's painting (issue 33).
    for i in range(4):
        mem.remember(f"Caroline went hiking on trail {i} with friends")
    both = mem.remember("Caroline painted a sunrise over the lake")
    other = mem.remember("Melanie painted a sunrise")
    hits = mem.recall("Caroline painted sunrise", level="index", record_access=False)
    order = [h.id for h in hits]
    assert order.index(both.id) < order.index(other.id)


def _rid(con: sqlite3.Connection, memory_id: str) -> int:
    return int(con.execute("SELECT rowid FROM entries WHERE id = ?", (memory_id,)).fetchone()[0])


def test_a_covering_limit_reaches_every_match_past_the_bound(mem: Memory, memory_home: Path):
    src = memory_home.parent / "many.jsonl"
    lines = [{"text": f"退款 第{i}条 refund"} for i in range(1100)]
    src.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", "utf-8")
    ids = set(mem.hooks.import_jsonl(src))
    for query in ("退款", "refund"):
        # recall() caps its limit at 1,000; the index takes any limit.
        rows = mem.hooks.user.index.search(SearchQuery(text=query, limit=len(ids) + 10))
        assert {r.id for r in rows} == ids


def test_filters_apply_before_the_bound(mem: Memory):
    rng = random.Random(5)
    for i in range(120):
        kind = "procedural" if i % 3 == 0 else "semantic"
        words = " ".join(rng.choice(WORDS[:8]) for _ in range(6))
        mem.remember(f"refund {words}", type=kind, tags=["ops" if i % 2 else "sales"])
    con = mem.hooks.user.index.connection()
    want = {
        str(r[0])
        for r in con.execute(
            "SELECT e.id FROM fts JOIN entries e ON e.rowid = fts.rowid"
            " WHERE fts MATCH '\"refund\" AND \"window\"' AND e.type = 'procedural'"
        )
    }
    for fts_match in (True, False):
        old = postings.FTS_MATCH_DENSITY, postings.FTS_MATCH_MIN_DF
        postings.FTS_MATCH_DENSITY, postings.FTS_MATCH_MIN_DF = (1.1, 0) if fts_match else (0, 0)
        try:
            rows = search(
                con,
                SearchQuery(
                    text="refund window", types=["procedural"], limit=100, now=mem.hooks.clock()
                ),
            )
        finally:
            postings.FTS_MATCH_DENSITY, postings.FTS_MATCH_MIN_DF = old
        # Every all-word match passing the filter; the widened pass adds any-word ones.
        assert want <= {r.id for r in rows} and all(r.type == "procedural" for r in rows)
        assert len(rows) == 40  # the procedural third of the notes: all hold "refund"
