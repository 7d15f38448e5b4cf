"""Agent conversations in the session digest (spec 001, spec 003 capture): :class:`AgentSessions`.

A kernel's cells reach the digest inbox as they run and the session is
digested when the kernel ends. Conversations with agents get the same:

* **recording** — :meth:`AgentSessions.record_agent_turn` keeps one turn of a
  conversation, the person's words (role ``user``) and the agent's reply (role
  ``assistant``), in the inbox of its session, so the digest sees them and the
  self-learner sees a person correcting the agent (a correction is a user
  message right after an assistant one). ``%%ask`` records into its kernel's
  session (between the cells it sits among); a Jupyter AI chat into
  ``chat:<chat file>``; an MCP session into ``mcp:<conversation>``.
* **ending** — :meth:`AgentSessions.end_agent_session` is the kernel's exit rule
  for an agent session that ended (an MCP client disconnected): digested now
  when that is quick for sure (the embedded extractor, at most
  ``QUICK_MAX_MESSAGES`` pending), else left pending for the next digest.
* **idle** — :meth:`AgentSessions.digest_idle_sessions` digests every chat or
  MCP session whose newest message is older than ``IDLE_MINUTES``: a chat has
  no exit, going quiet is its end. The server extension runs it periodically
  in a thread (with an LLM, if one is configured: nothing waits on it there).
* **notes and suggestions** (issue 32) — :meth:`AgentSessions.chat_notes` makes
  a proposal of every explicit note marker in a person's chat message at once,
  without an LLM (as a cell's). A chat turn that went idle is a conversation's
  end: with an LLM configured, ending it (``allow_llm``) first makes one
  extraction call over the person's messages of the turn (within the daily
  budget; a spent one is said in ``budget_notice``), then digests.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ..._i18n import M_
from ...core.event_time import event_datetime
from ...exceptions import PolicyError, ValidationError
from ..context import ServiceContext
from ..results import MappingResult
from .digest import DigestService
from .ports import ChatExtraction

IDLE_MINUTES = 15.0
QUICK_MAX_MESSAGES = 1_000
AGENT_SESSION_PREFIXES = ("chat:", "mcp:")
MAX_TURN_CHARS = 200_000


@dataclass(frozen=True, eq=False)
class AgentSessionEnd(MappingResult):
    """What ending (or idling out) one agent session did."""

    session_key: str
    digested: bool
    stored: int = 0
    left: str | None = None  # why it stays pending, when it does
    # "3 memories from this session wait for review: …" (issue 32), None when none
    notice: str | None = None
    budget_notice: str | None = None  # the LLM budget was spent (or went over)
    proposals: tuple[str, ...] = ()  # ids the turn's LLM extraction queued
    called_llm: bool = False  # for the extraction (the digest may call it too)

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_key": self.session_key,
            "digested": self.digested,
            "stored": self.stored,
            "left": self.left,
            "notice": self.notice,
            "budget_notice": self.budget_notice,
            "proposals": list(self.proposals),
            "called_llm": self.called_llm,
        }


def _text(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(M_("must be a string"), field=name)
    if len(value) > MAX_TURN_CHARS:
        raise ValidationError(M_("is over {limit:,} characters", limit=MAX_TURN_CHARS), field=name)
    return value if value.strip() else None


class AgentSessions:
    """Agent conversations recorded, ended and idled out like kernel sessions."""

    def __init__(
        self, ctx: ServiceContext, digest: DigestService, queue: ChatExtraction | None = None
    ) -> None:
        self.ctx = ctx
        self.digest = digest
        self.queue = queue

    def chat_notes(
        self, session_key: str, text: str, *, message_id: str | None = None
    ) -> list[Any]:
        """The explicit notes of one chat message the person wrote, as proposals (no LLM).

        Like a cell's per-run round: respects Automatic suggestions and makes
        nothing while memory is off; an ordinary message makes none.
        """
        said = _text(text, "text")
        if said is None or self.queue is None:
            return []
        message = {"role": "user", "text": said, "message_id": message_id}
        return self.queue.extract([message], conversation=session_key, llm=False)

    def _turn_extraction(self, session_key: str) -> tuple[list[Any], bool, str | None]:
        """One LLM extraction over the person's pending messages of a chat (its turn's end)."""
        if self.queue is None or self.ctx.settings.llm is None:
            return [], False, None
        said = [
            {"role": "user", "text": m["text"], "message_id": m.get("id")}
            for inbox in self.digest.store.pending(session_key)
            for m in inbox["messages"][inbox["consumed"] :]
            if m.get("role") == "user" and isinstance(m.get("text"), str)
        ]
        if not said:
            return [], False, None
        made = self.queue.extract(said, conversation=session_key, background=True, llm=True)
        return made, self.queue.last_extraction_called_llm, self.queue.last_extraction_notice

    def record_agent_turn(
        self,
        session_key: str,
        *,
        person: str | None = None,
        reply: str | None = None,
        turn_id: str | None = None,
    ) -> int:
        """Keep one turn (the person's words, the agent's reply) for the digest.

        Returns how many messages of the session are pending. Either side may be
        missing (a reply still streaming, a person's message with no answer yet).
        """
        said, answered = _text(person, "person"), _text(reply, "reply")
        if said is None and answered is None:
            raise ValidationError(
                M_("a turn needs the person's words or the reply"), field="person"
            )
        turn = turn_id or uuid.uuid4().hex[:12]
        now_ms = int(self.ctx.clock().timestamp() * 1000)
        base: dict[str, Any] = {"kind": "chat", "timestamp": now_ms, "recorded_at": now_ms}
        messages: list[dict[str, Any]] = []
        if said is not None:
            messages.append({"id": f"{turn}:person", "role": "user", "text": said, **base})
        if answered is not None:
            messages.append({"id": f"{turn}:reply", "role": "assistant", "text": answered, **base})
        return self.digest.digest_record(session_key, messages)

    def end_agent_session(self, session_key: str, *, allow_llm: bool = False) -> AgentSessionEnd:
        """The session ended: digest it now if that is quick for sure, else leave it pending.

        ``allow_llm``: digest with the configured LLM too (a background caller
        that nothing waits on); at a process exit it is left for the next digest.
        """
        if not self.ctx.settings.enabled:
            raise PolicyError(M_("memory is disabled by the person; nothing is extracted"))
        pending = self.digest.digest_pending(session_key)
        if pending == 0:
            return AgentSessionEnd(session_key, False, left="nothing pending")
        if self.ctx.settings.llm is not None and not allow_llm:
            return AgentSessionEnd(
                session_key, False, left="an LLM is configured: digested next time"
            )
        if pending > QUICK_MAX_MESSAGES and not allow_llm:
            return AgentSessionEnd(
                session_key, False, left=f"{pending} messages pending: digested next time"
            )
        made: list[Any] = []
        called, said = False, None
        if allow_llm and session_key.startswith("chat:"):
            made, called, said = self._turn_extraction(session_key)
        # A session's end, nobody waiting: a background LLM use under the daily budget.
        report = self.digest.digest(session=session_key, background=True)
        return AgentSessionEnd(
            session_key,
            True,
            stored=len(report.stored),
            notice=report.review_notice(),
            budget_notice=report.notice or said,
            proposals=tuple(p.id for p in made),
            called_llm=called,
        )

    def digest_idle_sessions(self, idle_minutes: float = IDLE_MINUTES) -> list[AgentSessionEnd]:
        """Digest every chat and MCP session quiet for ``idle_minutes`` (its end)."""
        if not self.ctx.settings.enabled:
            return []
        cutoff = self.ctx.clock() - timedelta(minutes=idle_minutes)
        out = []
        for inbox in self.digest.store.pending():
            key = str(inbox["session_key"])
            if not key.startswith(AGENT_SESSION_PREFIXES):
                continue
            times = [event_datetime(m.get("recorded_at")) for m in inbox["messages"]]
            newest = max((t for t in times if t is not None), default=None)
            if newest is not None and newest <= cutoff:
                out.append(self.end_agent_session(key, allow_llm=True))
        return out


__all__ = ["AGENT_SESSION_PREFIXES", "AgentSessionEnd", "AgentSessions", "IDLE_MINUTES"]
