"""Wires :class:`~.boundary.ConversationBoundary` into the kernel (capture hook, atexit)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .host import MagicsHost

import atexit
from typing import Any

from . import memory_cmd
from .boundary import ConversationBoundary


def install(shell: Any, magics: MagicsHost) -> ConversationBoundary:
    feed = ConversationBoundary(
        lambda boundary: memory_cmd.boundary_round(magics, boundary),
        lambda proposals: memory_cmd.show_cards(magics, proposals),
        lambda: float(magics.llm_idle_minutes) * 60.0,
        lambda: magics.session.flags()[0],
    )
    magics.capture.listeners.append(feed.on_cell)
    atexit.register(feed.shutdown)
    magics.boundary = feed
    return feed


def uninstall(shell: Any, magics: MagicsHost) -> None:
    feed: ConversationBoundary | None = getattr(magics, "boundary", None)
    if feed is None:
        return
    if feed.on_cell in magics.capture.listeners:
        magics.capture.listeners.remove(feed.on_cell)
    atexit.unregister(feed.shutdown)
    feed.stop()
    magics.boundary = None
