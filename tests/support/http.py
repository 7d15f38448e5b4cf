"""Serve a test's ``http.server`` on a thread, and stop it without waiting.

``serve_forever`` looks for a shutdown request once per ``poll_interval``, 0.5 s by
default: that is how long ``shutdown()`` blocks, once per test that starts a server
(the LLM stand-in of tests/openai_test_server.py is started by a hundred tests).
"""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager

POLL_S = 0.01


@contextmanager
def serving(server: socketserver.BaseServer) -> Iterator[socketserver.BaseServer]:
    """``server`` answering on a daemon thread; shut down and closed on exit."""
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
