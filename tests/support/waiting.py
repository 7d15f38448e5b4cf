"""Waiting in a test for something another task or process does: on a condition, never a time.

The deadline is generous (a minute): it only bounds a test whose condition never comes,
so a busy machine (a CPU burner beside the suite) makes a passing test slower, not red.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

DEADLINE_S = 60.0
POLL_S = 0.05


async def until(predicate: Callable[[], object], timeout: float = DEADLINE_S) -> None:
    """Return once ``predicate()`` is true; fail after ``timeout`` seconds of waiting."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, f"timed out after {timeout:.0f} s waiting"
        await asyncio.sleep(POLL_S)


async def polled(
    fetch: Callable[[], Awaitable[T]], done: Callable[[T], object], timeout: float = DEADLINE_S
) -> T:
    """Ask ``fetch()`` again every POLL_S until its answer is ``done``; after ``timeout``
    seconds, the last answer (the caller's assertion then shows it). A deadline in time,
    not a count of polls: a busy machine stretches every request and every sleep."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        answer = await fetch()
        if done(answer) or loop.time() >= deadline:
            return answer
        await asyncio.sleep(POLL_S)
