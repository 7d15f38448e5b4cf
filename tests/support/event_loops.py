"""A test that leaves a closed socket registered in the event loop later tests reuse fails.

jupyter_client's and nbclient's blocking calls run their coroutines on one event loop
per thread, kept by ``jupyter_core.utils`` (``run_sync``). A pyzmq asyncio socket used
on a second loop (a kernel's cell run from inside an ``asyncio.run`` coroutine: its
``run_sync`` goes to a runner thread's loop) is registered on both loops but removed
at close from the last one only. The first loop keeps a reader for the closed file
descriptor, and epoll has already forgotten it: the next socket given the same number
is then "registered" without epoll hearing of it, and a later test waiting on it
(``execute_interactive``) sleeps out its whole timeout before it polls again, passing
a minute late (seen as a 60 s ``tests/magics/test_completion.py``). This check makes
the leak a failure of the test that caused it.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def stale_readers() -> list[int]:
    """File descriptors the thread's jupyter_core loop still watches though they are closed."""
    utils = sys.modules.get("jupyter_core.utils")
    if utils is None:  # no jupyter_client call ran in this process: no such loop
        return []
    holder = getattr(utils, "_loop", None)
    if holder is None:
        raise RuntimeError(
            "jupyter_core.utils no longer keeps its loop in `_loop`: update "
            "tests/support/event_loops.py to find the loop run_sync uses"
        )
    loop: Any = holder.get()
    if loop is None or loop.is_closed():
        return []
    return sorted(key.fd for key in loop._selector.get_map().values() if not _is_open(key.fd))


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True
