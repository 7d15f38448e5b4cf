"""A daemon thread that calls ``flush`` once a burst of cells has settled.

The digest feed and the evidence feed both buffer what the capture hook hands
them (an append, never disk work on the person's cell) and write it here, off
the kernel's main thread, one write per burst.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

FLUSH_DELAY_S = 1.0


class FlushThread:
    """Wake with :meth:`wake`; ``flush`` runs ``delay`` seconds later (a burst is one write)."""

    def __init__(self, flush: Callable[[], object], *, name: str, delay: float = FLUSH_DELAY_S):
        self._flush = flush
        self._name = name
        self._delay = delay
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def wake(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
            self._thread.start()
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            if self._stop.wait(self._delay):  # gather a burst of cells into one write
                return
            self._wake.clear()
            self._flush()

    def stop(self) -> None:
        """Stop the thread (the caller flushes what is left)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=self._delay + 1)


__all__ = ["FLUSH_DELAY_S", "FlushThread"]
