"""Queue-change events: who is told after a proposal is created, applied or dismissed.

The widgets' queue badge and the AGENTS.md auto-sync listen here; the queue
itself knows neither of them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ...store.knowledge.queue import QueueStore

QueueListener = Callable[[dict[str, Any]], None]


class QueueEvents:
    """Listeners of one queue; an event carries the pending count after the change."""

    def __init__(self, store: QueueStore) -> None:
        self.store = store
        self._listeners: list[QueueListener] = []

    def on_queue_change(self, callback: QueueListener) -> Callable[[], None]:
        """Call ``callback(event)`` after every queue change; returns an unsubscribe function.

        ``event`` has ``action`` (created, superseded, applied, dismissed),
        ``id`` and ``pending`` (the pending count after the change).
        """
        self._listeners.append(callback)

        def unsubscribe() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unsubscribe

    def emit(self, action: str, proposal_id: str, **extra: Any) -> None:
        listeners = list(self._listeners)
        if not listeners:
            return
        good, _ = self.store.scan()
        event = {"action": action, "id": proposal_id, "pending": sum(p.is_pending for _, p in good)}
        event.update(extra)
        for listener in listeners:
            # The change is already durable; a broken listener must not undo or
            # hide it, so its error becomes a warning instead of a failed apply.
            try:
                listener(event)
            except Exception as exc:  # noqa: BLE001 - listener code is not ours
                warnings.warn(f"queue listener failed: {exc!r}", RuntimeWarning, stacklevel=2)


__all__ = ["QueueEvents", "QueueListener"]
