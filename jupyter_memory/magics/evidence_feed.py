"""The person's executed cells, kept as evidence for agents in any process (issue 13).

An agent's ``propose_knowledge`` quote must be the person's words: a chat
message or a cell (docs/design.md invariant 4). The capture hook sees every
cell the person runs (never outputs, never this extension's own magics,
nothing while memory is off); this feed writes them to
``recent/person-text.json`` through ``Memory.hooks.record_person_text``, so an MCP
client or the Jupyter AI chat can quote a cell the person just ran, saved or
not. Like the digest feed it only appends to a list in the hook and writes
from a daemon thread about a second later; ``%%ask`` flushes first, so its
model can quote the cell run just before. At exit what is left is written.
"""

from __future__ import annotations

import atexit
import sys
import threading
from typing import TYPE_CHECKING, Any

from .._i18n import localized
from .flush_thread import FlushThread

if TYPE_CHECKING:
    from .cells import CapturedCell, Gotcha
    from .host import MagicsHost
    from .session import NotebookSession

MAX_CELL_CHARS = 20_000  # PersonTextLog keeps at most this much of one text


class EvidenceFeed:
    def __init__(self, session: NotebookSession) -> None:
        self.session = session
        self._buffer: list[CapturedCell] = []
        self._lock = threading.Lock()
        self._flushing = threading.Lock()
        self._thread = FlushThread(self.flush, name="jupyter-memory-evidence-feed")
        self.last_error: str | None = None

    def on_cell(self, cell: CapturedCell, _gotcha: Gotcha | None) -> None:
        """The capture hook's listener: keep cheap (an append and an event)."""
        with self._lock:
            self._buffer.append(cell)
        self._thread.wake()

    def flush(self) -> int:
        """Write the buffered cells; returns how many. A failure is said once on stderr."""
        with self._flushing:  # %%ask and the thread may flush at once: keep the order
            with self._lock:
                batch, self._buffer = self._buffer, []
            if not batch:
                return 0
            notebook = self.session.notebook
            records = [
                {
                    "role": "code",
                    "text": cell.text[:MAX_CELL_CHARS],
                    "cell_id": cell.cell_id,
                    "notebook_path": str(notebook) if notebook is not None else None,
                }
                for cell in batch
            ]
            try:
                written = int(self.session.memory.hooks.record_person_text(records))
            except Exception as exc:  # noqa: BLE001 - the cell went on; the person is told once
                text = f"{type(exc).__name__}: {localized(exc)}"
                if text != self.last_error:
                    print(f"jupyter-memory: cells not kept as evidence: {text}", file=sys.stderr)
                self.last_error = text
                return 0
            self.last_error = None
            return written

    def stop(self) -> None:
        self._thread.stop()

    def shutdown(self) -> None:
        """At exit (and ``%unload_ext``): write what is buffered (flush never raises)."""
        self.stop()
        self.flush()


def install(shell: Any, magics: MagicsHost) -> EvidenceFeed:
    feed = EvidenceFeed(magics.session)
    magics.capture.listeners.append(feed.on_cell)
    atexit.register(feed.shutdown)
    magics.evidence_feed = feed
    return feed


def uninstall(shell: Any, magics: MagicsHost) -> None:
    feed: EvidenceFeed | None = getattr(magics, "evidence_feed", None)
    if feed is None:
        return
    if feed.on_cell in magics.capture.listeners:
        magics.capture.listeners.remove(feed.on_cell)
    atexit.unregister(feed.shutdown)
    feed.shutdown()
    magics.evidence_feed = None
