"""The notebook's session digest: captured cells → ``Memory.hooks.digest_record`` → digest.

* **Feeding.** The capture hook calls :meth:`DigestFeed.on_cell` with every
  cell it captured (the person's executed source, never outputs, never this
  extension's own magics, nothing while memory is off). That only appends to a
  list: the hook stays cheap. A daemon thread writes the list to the digest
  inbox (``digest_record``, durable) about a second later, so a kernel that
  dies loses at most the last second of cells.
* **A new session.** Before the first cell after ``%load_ext`` runs, the feed
  calls ``Memory.hooks.start_session``: stale session-tier memories are cleared and
  past days' daily memories merged (see :mod:`jupyter_memory.service.memories.tiers`).
* **Repeated errors.** A cell that failed with one exception signature for the
  third time in the session (a *gotcha*) is handed, on the same flush thread,
  to ``Memory.hooks.capture_gotcha``: an unreviewed ``auto-gotcha`` memory quoting
  the cell verbatim, and one piece of evidence for the self-learner's candidate
  rule (a proposal only past its confidence gate). What it left is kept in
  :attr:`DigestFeed.last_gotcha` for ``%memory status``; a failing line too
  short to quote is said there, never printed under the person's cell.
* **Digest now.** ``%memory digest`` flushes and runs ``Memory.digest()``.
* **Shutdown.** An ``atexit`` hook flushes the inbox (one durable write) and
  then digests this session only when that is quick for sure: the embedded
  deterministic extractor (no LLM call, which could hang on the network) and at
  most ``EXIT_DIGEST_MAX_MESSAGES`` pending messages (the benchmark digests 200
  cells in a few tens of milliseconds). Otherwise the batch stays in the inbox
  — the cursor is only advanced after its memories are stored — and the next
  ``%memory digest`` or ``jupyter-memory digest`` picks it up. Errors at exit
  are printed, never raised.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import sys
import threading
import time
import uuid
from typing import TYPE_CHECKING, Any

from .._i18n import M_, localized
from .capture import OWN_MAGIC
from .flush_thread import FlushThread

if TYPE_CHECKING:
    from .cells import CapturedCell, Gotcha
    from .host import MagicsHost
    from .session import NotebookSession

EXIT_DIGEST_MAX_MESSAGES = 1_000
# How long the exit digest waits for a round that holds the service (the last cell's note
# round, a suggestion round): bounded like the boundary's own exit round. 2 s was too short
# for a note round on a loaded machine, and the session went undigested until the next one.
EXIT_LOCK_WAIT_S = 10.0
GOTCHA_REPEATS = 3  # capture.GOTCHA_REPEATS: a gotcha is the third failure
MAX_CELL_CHARS = 200_000  # BatchMessage's cap
MAX_GOTCHA_CELL_CHARS = 20_000  # capture_gotcha's cap
_ASK_CELL = re.compile(r"^\s*%%ask\b")


EXIT_BUSY = M_(
    "the service was busy at exit; this session is digested next time "
    "(%memory digest or jupyter-memory digest)"
)


def waiting_notice(n: int) -> str:
    if n == 1:
        return M_("1 memory from earlier sessions waits for review: %memories --review")
    return M_("{n} memories from earlier sessions wait for review: %memories --review", n=n)


def kernel_session_key(shell: Any) -> str:
    """The kernel's session id (ipykernel), else a fresh id for this process's shell."""
    session = getattr(getattr(shell, "kernel", None), "session", None)
    key = getattr(session, "session", None)
    if isinstance(key, str) and key:
        return f"kernel-{key}"
    return f"ipython-{os.getpid()}-{uuid.uuid4().hex[:8]}"


class DigestFeed:
    def __init__(self, session: NotebookSession, session_key: str) -> None:
        self.session = session
        self.session_key = session_key
        self._buffer: list[dict[str, Any]] = []
        self._gotchas: list[Gotcha] = []
        self.last_gotcha: dict[str, Any] | None = None
        self._lock = threading.Lock()
        # One flush at a time: a flush returns once what was buffered before it is written,
        # including what the feed's own thread took a moment earlier (``%memory status``
        # reports the gotcha it flushes). Never taken while holding the session's lock.
        self._flushing = threading.Lock()
        self._thread = FlushThread(self.flush, name="jupyter-memory-digest-feed")
        self.started: dict[str, Any] | None = None
        self._waiting = 0  # memories earlier sessions left for review, said once
        self.last_error: str | None = None
        self.closed = False

    # -- feeding (called by the capture hook: keep cheap) ----------------------------------

    def on_cell(self, cell: CapturedCell, gotcha: Gotcha | None) -> None:
        if _ASK_CELL.match(cell.text):
            return  # %%ask records its turn itself (on_agent_turn): question and reply
        now_ms = int(time.time() * 1000)
        msg: dict[str, Any] = {
            "id": cell.cell_id,
            "role": "user",
            "kind": "code",
            "text": cell.text[:MAX_CELL_CHARS],
            "timestamp": now_ms,
            "recorded_at": now_ms,
        }
        if gotcha is not None:
            msg.update(error=gotcha.signature, error_repeats=GOTCHA_REPEATS)
            if gotcha.line is not None:
                msg["error_line"] = gotcha.line
        with self._lock:
            self._buffer.append(msg)
            if gotcha is not None:
                self._gotchas.append(gotcha)
        self._thread.wake()

    def on_agent_turn(self, question: str, reply: str, turn_id: str | None = None) -> None:
        """A ``%%ask`` turn: the person's question and the model's reply, in this session's
        inbox between the cells around it, so the digest and the self-learner see a
        person correcting the agent (roles user and assistant, kind chat)."""
        now_ms = int(time.time() * 1000)
        turn = turn_id or f"ask-{now_ms}"
        base: dict[str, Any] = {"kind": "chat", "timestamp": now_ms, "recorded_at": now_ms}
        turns = [
            {"id": f"{turn}:{side}", "role": role, "text": text[:MAX_CELL_CHARS], **base}
            for side, role, text in (("person", "user", question), ("reply", "assistant", reply))
            if text.strip()
        ]
        with self._lock:
            self._buffer.extend(turns)
        self._thread.wake()

    def stop(self) -> None:
        """Stop the flush thread (the caller flushes what is left)."""
        self._thread.stop()

    def pending(self) -> int:
        with self._lock:
            return len(self._buffer)

    def flush(self) -> int:
        """Write buffered cells to the digest inbox; returns how many. Kept on failure."""
        with self._flushing:
            return self._flush()

    def _flush(self) -> int:
        with self._lock:
            batch, self._buffer = self._buffer, []
        if not batch:
            self._capture_gotchas()
            return 0
        try:
            self.session.memory.hooks.digest_record(self.session_key, batch)
        except Exception as exc:  # noqa: BLE001 - kept for the next flush, reported once
            with self._lock:
                self._buffer[:0] = batch
            self._report(exc)
            return 0
        self.last_error = None
        self._capture_gotchas()
        return len(batch)

    def _capture_gotchas(self) -> None:
        with self._lock:
            gotchas, self._gotchas = self._gotchas, []
        for gotcha in gotchas:
            text = gotcha.cell.text[:MAX_GOTCHA_CELL_CHARS]
            line = gotcha.line if gotcha.line and gotcha.line in text else None
            try:
                with self.session.lock:  # the worker's rounds use the same service
                    got = self.session.memory.hooks.capture_gotcha(
                        self.session_key,
                        gotcha.signature,
                        line,
                        text,
                        cell_id=gotcha.cell.cell_id,
                        repeats=GOTCHA_REPEATS,
                    )
            except Exception as exc:  # noqa: BLE001 - reported once, the cell goes on
                self._report(exc)
                continue
            self.last_gotcha = {"signature": gotcha.signature, **got.to_dict()}

    def _report(self, exc: BaseException) -> None:
        text = f"{type(exc).__name__}: {localized(exc)}"
        if text != self.last_error:
            print(f"jupyter-memory: session digest: {text}", file=sys.stderr)
        self.last_error = text

    # -- a new session -----------------------------------------------------------------------

    def start_session(self, info: Any = None, *_: Any) -> None:
        """``pre_run_cell``: once, before the first cell of this session runs.

        It also counts the memories earlier digests left for review (one at a
        kernel's exit told no one) and says so once, under the first cell that
        is not one of this extension's magics (``%memories --review`` needs no
        reminder).
        """
        if self.started is None:
            self.started = {}
            try:
                mem = self.session.memory
                self.started = mem.hooks.start_session(self.session_key).to_dict()
                self._waiting = mem.hooks.unreviewed_count() if mem.enabled else 0
            except Exception as exc:  # noqa: BLE001 - housekeeping must not stop the cell
                self._report(exc)
                return
        raw = getattr(info, "raw_cell", None) or ""
        if self._waiting and not OWN_MAGIC.match(raw):
            print(f"jupyter-memory: {localized(waiting_notice(self._waiting))}")
            self._waiting = 0

    # -- digest now and at exit -------------------------------------------------------------

    def digest_now(self, session: str | None = None) -> dict[str, Any]:
        self.flush()
        if self.last_error:
            raise RuntimeError(f"cells could not be recorded: {self.last_error}")
        with self.session.lock:
            report: dict[str, Any] = self.session.memory.digest(session=session).to_dict()
        return report

    def shutdown(self) -> dict[str, Any]:
        """At exit: record what is buffered; digest now only if that is quick for sure."""
        out: dict[str, Any] = {"recorded": 0, "digested": False, "left": None}
        if self.closed:
            return out
        self.closed = True
        self.stop()
        try:
            out["recorded"] = self.flush()
            if self.pending():
                # Could not be written: said on stderr; the process is ending.
                out["error"] = self.last_error
            if not self.session.started:
                return out  # nothing was ever opened: nothing captured this session
            # A suggestion round may hold the service; do not wait long for it.
            if not self.session.lock.acquire(timeout=EXIT_LOCK_WAIT_S):
                out["left"] = "the service was busy: digested next time"
                # On the kernel's stderr (the server's log): why no digest came at exit.
                print(f"jupyter-memory: session digest: {localized(EXIT_BUSY)}", file=sys.stderr)
                return out
            try:
                out.update(self._digest_at_exit())
            finally:
                self.session.lock.release()
        except Exception as exc:  # noqa: BLE001 - never raise at interpreter exit
            self._report(exc)
            out["error"] = self.last_error
        return out

    def _digest_at_exit(self) -> dict[str, Any]:
        mem = self.session.memory
        if not mem.enabled:
            return {}
        out: dict[str, Any] = {}
        pending = mem.hooks.digest_pending(self.session_key)
        if pending == 0:
            out["left"] = "nothing pending"
        elif mem.llm is not None:
            out["left"] = "an LLM is configured: digested next time, not at shutdown"
        elif pending > EXIT_DIGEST_MAX_MESSAGES:
            out["left"] = f"{pending} messages pending: digested next time"
        else:
            mem.digest(session=self.session_key)
            out["digested"] = True
        mem.hooks.end_session(self.session_key)
        return out


def install(shell: Any, magics: MagicsHost) -> DigestFeed:
    """Feed captured cells, start the session before the first cell, digest at exit."""
    feed = DigestFeed(magics.session, kernel_session_key(shell))
    magics.capture.listeners.append(feed.on_cell)
    shell.events.register("pre_run_cell", feed.start_session)
    atexit.register(feed.shutdown)
    magics.digest_feed = feed
    return feed


def uninstall(shell: Any, magics: MagicsHost) -> None:
    """``%unload_ext``: record what is buffered (nothing is lost); the kernel goes on."""
    feed: DigestFeed | None = getattr(magics, "digest_feed", None)
    if feed is None:
        return
    if feed.on_cell in magics.capture.listeners:
        magics.capture.listeners.remove(feed.on_cell)
    with contextlib.suppress(ValueError):  # already removed by hand
        shell.events.unregister("pre_run_cell", feed.start_session)
    atexit.unregister(feed.shutdown)
    feed.stop()
    feed.flush()
    magics.digest_feed = None
