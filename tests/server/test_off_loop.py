"""The routes' worker pool (server/off_loop.py): a request behind another names what it waits on."""

from __future__ import annotations

import asyncio
import threading

import pytest

from jupyter_memory.exceptions import BusyError
from jupyter_memory.server.off_loop import OffLoop, current_lane
from jupyter_memory.store.deadline import waiting


async def test_a_write_behind_a_waiting_write_is_busy_naming_what_it_waits_on() -> None:
    pool = OffLoop(workers=2, deadline=0.5)
    started, free = threading.Event(), threading.Event()

    def ahead() -> str:
        with waiting("home lock /h/.jupyter-memory.lock"):
            started.set()
            free.wait(30)
        return "done"

    first = asyncio.ensure_future(pool.run(ahead))
    await asyncio.get_running_loop().run_in_executor(None, started.wait, 30)
    try:
        with pytest.raises(BusyError) as caught:
            await pool.run(lambda: "never")
        # Each read lane is its own: neither waits behind the write.
        assert await pool.run(current_lane, lane="read") == "read"
        assert await pool.run(current_lane, lane="listing") == "listing"
    finally:
        free.set()
    assert await first == "done"
    assert caught.value.held_by == "home lock /h/.jupyter-memory.lock"
    assert await pool.run(current_lane) == "write"
    assert current_lane() is None
    pool.shutdown()


def test_every_route_verb_runs_off_the_loop() -> None:
    """A verb left synchronous would run its memory work on the server's only loop."""
    from jupyter_memory.server.base import OFF_LOOP_VERBS
    from jupyter_memory.server.routes import ROUTES

    def runs_off_loop(verb: object) -> bool:
        """Through @off_loop, or written async (beneath web.authenticated and
        @authorized, whose own wrapper is async for any verb)."""
        chain = []
        while verb is not None:
            chain.append(verb)
            verb = getattr(verb, "__wrapped__", None)
        return asyncio.iscoroutinefunction(chain[-1]) or any(f in OFF_LOOP_VERBS for f in chain)

    sync = [
        f"{handler.__name__}.{verb}"
        for _, handler in ROUTES
        for verb in ("get", "put", "post", "delete", "patch")
        if verb in vars(handler) and not runs_off_loop(vars(handler)[verb])
    ]
    assert sync == []


async def test_a_slow_request_is_logged_with_where_its_time_went(caplog) -> None:
    import logging

    log = logging.getLogger("test-off-loop")
    pool = OffLoop(workers=2, deadline=30, log=log, slow=0.0)  # every request is "slow"
    with caplog.at_level(logging.INFO, logger="test-off-loop"):
        assert await pool.run(current_lane, lane="listing", what="GET /jupyter-memory/queue") == (
            "listing"
        )
    pool.shutdown()
    [line] = [r.getMessage() for r in caplog.records]
    assert line.startswith("jupyter-memory: GET /jupyter-memory/queue took ")
    assert " for a worker, " in line and " for the listing lane, " in line
    assert line.endswith(" of its own work")
    quiet = OffLoop(workers=1, deadline=30, log=log)  # the default: only past SLOW_S
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="test-off-loop"):
        await quiet.run(current_lane, lane="read", what="GET /jupyter-memory/settings")
    quiet.shutdown()
    assert caplog.records == []
