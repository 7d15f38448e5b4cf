"""The end of a chat turn: the chat went quiet after the person's last message (issue 32).

A Jupyter AI chat has no exit. After each turn the persona re-arms one timer
per chat; when ``idle_seconds`` pass without a new turn, the turn has ended:
``Memory.hooks.end_agent_session(key, allow_llm=True)`` makes (with an LLM
configured) one extraction call over the person's messages, within the daily
budget, and digests the turn. What it did is said in the chat (``say``: the
persona's message), never silently; a failure is said too. The server's
periodic idle digest (``server/backend.py``) is the fallback for a chat with
no live persona (the server restarted).

Kept apart from the persona so it runs (and is tested) without Jupyter AI.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .._i18n import localized, tr
from ..exceptions import JupyterMemoryError, PolicyError

CHAT_IDLE_MINUTES = 5.0  # as a notebook's idle boundary (MemoryMagics.llm_idle_minutes)


class ChatBoundary:
    def __init__(
        self,
        end_session: Callable[[str], Any],
        say: Callable[[str], None],
        idle_seconds: float = CHAT_IDLE_MINUTES * 60.0,
    ) -> None:
        self._end_session = end_session  # key -> AgentSessionEnd
        self._say = say
        self.idle_seconds = idle_seconds
        self._lock = threading.Lock()
        self._timers: dict[str, threading.Timer] = {}
        self.last: Any = None  # the last AgentSessionEnd (tests, logs)

    def on_turn(self, key: str) -> None:
        """A turn was recorded: the chat's end waits for ``idle_seconds`` of quiet again."""
        with self._lock:
            old = self._timers.pop(key, None)
            if old is not None:
                old.cancel()
            timer = threading.Timer(self.idle_seconds, self.run, args=(key,))
            timer.daemon = True
            self._timers[key] = timer
            timer.start()

    def run(self, key: str) -> Any:
        """The turn's end: extraction and digest, and what they did, said in the chat."""
        try:
            end = self._end_session(key)
        except PolicyError:
            return None  # memory is off: the person switched it off, nothing to say
        except JupyterMemoryError as exc:
            said = tr("extraction at the end of the conversation failed: {error}")
            self._say(said.format(error=exc.localized()))
            return None
        finally:
            with self._lock:  # this round is over (a newer turn may have re-armed another)
                if self._timers.get(key) is threading.current_thread():
                    del self._timers[key]
        self.last = end
        for notice in chat_notices(end):
            self._say(notice)
        return end

    def wait(self, timeout: float = 30.0) -> None:
        """Until every armed timer has fired and its round ended (tests)."""
        with self._lock:
            timers = list(self._timers.values())
        for timer in timers:
            timer.join(timeout)

    def stop(self) -> None:
        with self._lock:
            for timer in self._timers.values():
                timer.cancel()
            self._timers.clear()


def ending_in_own_memory(memory: Any) -> Callable[[str], Any]:
    """``end_session`` for a timer thread: a ``Memory`` of its own on the same home and
    project (the persona's serves the event loop meanwhile), as the server's idle pass."""
    from ..service.memory import Memory

    home, project = memory.home, memory.project_id

    def end(key: str) -> Any:
        with Memory(home=home, project=project) as mem:
            return mem.hooks.end_agent_session(key, allow_llm=True)

    return end


def chat_notices(end: Any) -> list[str]:
    """What the person reads in the chat after a turn's end (nothing when nothing happened)."""
    out = []
    if end.budget_notice:
        out.append(localized(end.budget_notice))
    if end.proposals:
        out.append(
            tr("{n} suggestion(s) from this chat wait in the Agent Memory panel's queue").format(
                n=len(end.proposals)
            )
        )
    if end.notice:
        out.append(localized(end.notice))
    return out


__all__ = ["CHAT_IDLE_MINUTES", "ChatBoundary", "chat_notices", "ending_in_own_memory"]
