"""Repeated errors (spec 003, 陷阱提取器 "错误 3x → 自动陷阱"): :class:`GotchaCapture`.

When one exception signature fails for the ``GOTCHA_REPEATS``-th time in a
session, the capture layer calls :meth:`GotchaCapture.capture_gotcha`, which

1. writes an ``auto-gotcha`` memory — unreviewed (Invariant 3: no agent sees it
   until the person keeps it), quoting the person's failing cell verbatim
   however short its failing line is; while that memory waits for review, a
   later session's failure of the same signature adds its cell to it (one
   memory per repeated error, not one per session);
2. adds one piece of evidence for this session to the candidate rule
   ``gotcha:<signature>`` of the self-learner; a queue proposal comes only when
   that candidate passes the confidence gate, as for corrections.

A failing line too short to be a proposal's evidence (``x``, ``df``) is never an
error: the whole cell is the quote, and when even the cell is too short the
candidate is shown as *blocked* and the result says so (``quote_note``), which
``%memory status`` prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..._i18n import M_
from ...core.learning.corrections import GOTCHA_REPEATS, usable_quote
from ...core.memories.models import MemoryEntry, MemoryType, Source, Tier
from ...exceptions import PolicyError, ValidationError
from ..context import ServiceContext
from ..results import MappingResult
from ..secret_guard import redacted
from .candidates import SelfLearner
from .ports import GotchaWrites, MemoryListing
from .results import CandidateRule, LearnedProposal

MAX_SIGNATURE_CHARS = 300
MAX_CELL_CHARS = 20_000
GOTCHA_MEMORY = "Watch out: `{line}` fails with {signature} ({seen})."
GOTCHA_MEMORY_PLAIN = "Watch out: a cell fails with {signature} ({seen})."
MAX_MEMORY_QUOTES = 10  # the newest failing cells an auto-gotcha memory keeps


def _seen(repeats: int, sessions: int) -> str:
    if sessions <= 1:
        return f"seen {repeats} times in one session"
    return f"seen {repeats} times in a session, in {sessions} sessions"


@dataclass(frozen=True, eq=False)
class GotchaCaptured(MappingResult):
    """What one repeated error left behind: the memory, the candidate, any proposal."""

    memory_id: str
    candidate: CandidateRule
    proposed: list[LearnedProposal] = field(default_factory=list)
    quote_note: str | None = None  # why a proposal could not quote the failing line

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "candidate": self.candidate.to_dict(),
            "proposed": [p.to_dict() for p in self.proposed],
            "quote_note": self.quote_note,
        }


def _text(value: Any, name: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(M_("must be a non-empty string"), field=name)
    if len(value) > limit:
        raise ValidationError(M_("is over {limit} characters", limit=limit), field=name)
    return value


def quote_note(line: str | None, cell_text: str) -> str | None:
    """Why the failing line is not a proposal's quote, in the person's terms; None if it is."""
    if line and usable_quote(line):
        return None
    what = M_("the failing line {line!r}", line=line) if line else M_("no single failing line")
    if usable_quote(cell_text.strip()):
        return M_("{what} is too short to quote: the whole cell is the quote", what=what)
    return M_(
        "{what} and its cell are too short to quote: no proposal can come from this "
        "session (the memory keeps the cell)",
        what=what,
    )


class GotchaCapture:
    """Writes the auto-gotcha memory and feeds the self-learner."""

    def __init__(
        self,
        ctx: ServiceContext,
        memories: GotchaWrites,
        reader: MemoryListing,
        learner: SelfLearner,
    ) -> None:
        self.ctx = ctx
        self.memories = memories
        self.reader = reader
        self.learner = learner

    def _unreviewed_memory(self, key: str) -> MemoryEntry | None:
        """The auto-gotcha memory of candidate ``key`` still waiting for review, if any."""
        for row in self.reader.list():
            source = getattr(row["source"], "value", row["source"])
            if source != Source.auto_gotcha.value or row["reviewed"]:
                continue
            entry = self.reader.get(row["id"])
            if (entry.meta.model_extra or {}).get("candidate") == key:
                return entry
        return None

    def capture_gotcha(
        self,
        session_key: str,
        signature: str,
        line: str | None,
        cell_text: str,
        *,
        cell_id: str | None = None,
        repeats: int = GOTCHA_REPEATS,
    ) -> GotchaCaptured:
        """The same error ``repeats`` times in ``session_key``; ``line`` is the failing line
        of the person's cell ``cell_text`` (None when no line of the cell failed)."""
        if not self.ctx.settings.enabled:
            raise PolicyError(M_("memory is disabled by the person; nothing is captured"))
        _text(session_key, "session_key", 200)
        _text(signature, "signature", MAX_SIGNATURE_CHARS)
        _text(cell_text, "cell_text", MAX_CELL_CHARS)
        if line is not None:
            _text(line, "line", MAX_CELL_CHARS)
            if line.strip() not in cell_text:
                raise ValidationError(M_("is not a line of the person's cell"), field="line")
            line = line.strip()
        # The cell becomes a memory's quote and the learner's evidence: redacted first.
        signature, cell_text = redacted(signature), redacted(cell_text)
        if line is not None:
            line = redacted(line)
            if line not in cell_text:  # a secret that spans the line's edge
                line = None
        candidate, proposed = self.learner.add_gotcha(session_key, signature, line, cell_text)
        template = GOTCHA_MEMORY if line else GOTCHA_MEMORY_PLAIN
        source = f"{session_key}#{cell_id}" if cell_id else session_key
        quote = {"quote": cell_text, "source": source}
        # One memory per repeated error while it waits for review: a later session adds
        # its failing cell to it rather than a copy the person would review again.
        known = self._unreviewed_memory(candidate.key)
        if known is not None:
            quotes = [q.model_dump(exclude_none=True) for q in known.meta.evidence]
            sessions = {str(q.get("source", "")).split("#")[0] for q in quotes}
            if session_key not in sessions:
                quotes = [*quotes, quote][-MAX_MEMORY_QUOTES:]
                sessions.add(session_key)
            entry = self.memories.update(
                known.id,
                text=template.format(
                    line=line, signature=signature, seen=_seen(repeats, len(sessions))
                ),
                evidence=quotes,
                confidence=max(candidate.confidence, 0.1),
            )
            return GotchaCaptured(entry.id, candidate, proposed, quote_note(line, cell_text))
        entry = self.memories.remember(
            template.format(line=line, signature=signature, seen=_seen(repeats, 1)),
            type=MemoryType.reflective,
            tier=Tier.durable,
            tags=["gotcha"],
            source=Source.auto_gotcha,
            confidence=max(candidate.confidence, 0.1),
            evidence=[quote],
            reviewed=False,
            extra={
                k: v
                for k, v in {
                    "error": signature,
                    "failing_line": line,
                    "candidate": candidate.key,
                }.items()
                if v is not None
            },
        )
        return GotchaCaptured(entry.id, candidate, proposed, quote_note(line, cell_text))


__all__ = ["GotchaCaptured", "GotchaCapture", "quote_note"]
