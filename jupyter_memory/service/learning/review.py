"""The person reviews what the session digest (or an agent) stored: Keep, Discard, Promote.

Extracted memories are stored ``reviewed: false`` and reach no agent until the
person looks at them (docs/design.md invariant 3):

* **Keep** — ``reviewed: true`` (``update``); from then on agent recall
  may return it like any memory the person wrote.
* **Discard** — ``forget``: the file and every derived trace go.
* **Promote to knowledge** — a queue *proposal* (``propose``, source
  ``session-digest``) whose evidence is the person's original message, kept in
  the memory's evidence when it was extracted. The proposal still waits for
  Apply in the queue; nothing is applied here. The memory itself is marked
  reviewed and remembers the proposal id (``promoted_to``). When the queue
  already holds the same knowledge, nothing is queued and the memory stays
  unreviewed (status ``skipped`` with the queue's reason). A memory whose
  sources were only agent replies has no evidence of the person's words and
  cannot be promoted (invariant 4).

Whether agents may see unreviewed memories at all is the person's switch
``agent_unreviewed`` (off by default): see :attr:`ReviewService.agent_sees_unreviewed`.

:class:`ReviewService` gets the memory operations and the knowledge queue in
its constructor (:mod:`.ports`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..._i18n import M_
from ...core.memories.models import MemoryEntry
from ...core.names import validate_id
from ...core.text import normalize
from ...exceptions import ConflictError, NotFoundError, PolicyError, ValidationError
from ..context import ServiceContext
from ..memories.locate import Located, find, locate
from .ports import ProposalQueue, ReviewWrites
from .results import ReviewDecision, UnreviewedMemory
from .review_state import ReviewState, ReviewStates, review_state

DECISIONS = ("keep", "discard", "promote")


def _gone(memory_id: str) -> NotFoundError:
    return NotFoundError(
        M_(
            "no memory with id {memory_id!r}: discarded or forgotten, or kept in another "
            "memory home",
            memory_id=memory_id,
        )
    )


MIN_LINE_CHARS = 8
_WORD = re.compile(r"[A-Za-z0-9_]+|[\u3400-\u9fff]")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(normalize(text)))


def best_quote(message: str, content: str) -> str:
    """The line of the person's message that shares most words with the memory, or all of it."""
    lines = [ln.strip() for ln in message.splitlines() if len(ln.strip()) >= MIN_LINE_CHARS]
    if len(lines) <= 1:
        return message.strip()
    want = _words(content)
    best = max(lines, key=lambda ln: len(_words(ln) & want))
    return best if _words(best) & want else message.strip()


class ReviewService:
    """The person's review of unreviewed memories: Keep, Discard, Promote to knowledge."""

    def __init__(
        self,
        ctx: ServiceContext,
        writer: ReviewWrites,
        queue: ProposalQueue,
    ) -> None:
        self.ctx = ctx
        self.writer = writer
        self.queue = queue

    def unreviewed_count(self) -> int:
        """How many memories wait for review (index rows only: cheap at a session's start)."""
        return sum(
            1 for root in self.ctx.projects.roots() for row in root.rows() if not row.reviewed
        )

    def unreviewed(self, *, limit: int | None = None) -> list[UnreviewedMemory]:
        """Memories waiting for review, newest first, with their evidence and scene."""
        rows = [
            (root, row)
            for root in self.ctx.projects.roots()
            for row in root.rows()
            if not row.reviewed
        ]
        rows.sort(key=lambda rr: rr[1].updated, reverse=True)
        out = []
        for root, row in rows[:limit] if limit else rows:
            entry = root.read(row.name)
            extra = entry.meta.model_extra or {}
            out.append(
                UnreviewedMemory(
                    id=row.id,
                    title=row.title,
                    text=entry.text,
                    type=row.type,
                    tier=row.tier,
                    source=row.source,
                    work_type=extra.get("work_type"),
                    scene=extra.get("scene"),
                    evidence=[q.model_dump() for q in entry.meta.evidence],
                    created=row.created,
                    layer=root.layer,
                )
            )
        return out

    def keep_memory(self, memory_id: str) -> ReviewDecision:
        """The person keeps an extracted memory: ``reviewed: true``."""
        return self._keep(locate(self.ctx, memory_id))

    def discard_memory(self, memory_id: str) -> ReviewDecision:
        """The person discards an extracted memory: it is forgotten."""
        return self._discard(locate(self.ctx, memory_id))

    def promote_memory(
        self,
        memory_id: str,
        *,
        kind: str = "rule",
        layer: str | None = None,
        project: str | None = None,
    ) -> ReviewDecision:
        """Queue a knowledge proposal from a memory, quoting the person's original message.

        The proposal goes to the project the memory belongs to (as
        :meth:`review_memory`'s does), wherever the caller is focused; ``project``
        (an id or a folder) names another target. A user-layer memory's proposal
        goes where an unplaced one goes: the focus.
        """
        where = locate(self.ctx, memory_id)
        target = project if project is not None else where.project
        return self._promote(where, kind=kind, layer=layer, project=target)

    def _keep(self, where: Located) -> ReviewDecision:
        entry = self.writer.update_at(where, reviewed=True)
        return ReviewDecision(entry.id, "kept")

    def _discard(self, where: Located) -> ReviewDecision:
        self.writer.forget_at(where)
        return ReviewDecision(where.id, "discarded")

    def _promote(
        self, where: Located, *, kind: str, layer: str | None, project: str | None
    ) -> ReviewDecision:
        memory_id = where.id
        entry = where.root.read(where.name)
        evidence = [q for q in entry.meta.evidence if q.quote.strip()]
        if not evidence:
            raise PolicyError(
                M_(
                    "memory {memory_id} keeps no words of the person (its sources were agent "
                    "replies): without an evidence quote it cannot become a proposal",
                    memory_id=memory_id,
                )
            )
        original = evidence[0]
        quote = best_quote(original.quote, entry.text)
        origin: dict[str, str] = {}
        if original.source and "#" in original.source:
            origin["message_id"] = original.source.rsplit("#", 1)[1]
        result = self.queue.propose(
            " ".join(entry.text.split()),
            kind,
            quote,
            layer,
            project,
            "session-digest",
            messages=[{"role": "user", "text": original.quote}],
            quote_origin=origin,
        )
        proposal_id = result.get("id")
        if proposal_id is None:  # the queue already knows it (pending, applied or dismissed)
            return ReviewDecision(memory_id, "skipped", reason=result.get("reason"))
        self.writer.update_at(where, reviewed=True, promoted_to=proposal_id)
        return ReviewDecision(memory_id, "promoted", proposal=result)

    # -- the cards in notebooks (issue 15) ------------------------------------------------

    def review_states(self, ids: Sequence[str], *, project: str | None = None) -> ReviewStates:
        """Each memory's review state (asked order) and the ids not found.

        ``project`` (a registered id) is where a project-layer memory lives: a
        process that focuses no project (the Jupyter server) opens it to look there.
        """
        items: list[ReviewState] = []
        missing: list[str] = []
        for memory_id in ids:
            validate_id(memory_id, field="ids")
            found = self._find(memory_id, project)
            if found is None:
                missing.append(memory_id)
            else:
                items.append(review_state(found[1], found[0].project))
        return ReviewStates(items, missing)

    def review_memory(
        self,
        memory_id: str,
        decision: str,
        *,
        kind: str = "rule",
        project: str | None = None,
    ) -> ReviewDecision:
        """Keep, discard or promote a memory that still waits for review.

        A memory decided meanwhile (another card, the CLI, another kernel) is
        refused with ``ConflictError`` (state ``already_kept`` or
        ``already_promoted``) and left as it is; one that is gone is
        ``NotFoundError``. A project-layer memory's proposal goes to its project.
        """
        if decision not in DECISIONS:
            raise ValidationError(
                M_(
                    "decision: {decision!r} is not one of {decisions}",
                    decision=decision,
                    decisions=", ".join(DECISIONS),
                ),
                field="decision",
            )
        validate_id(memory_id)
        located = self._find(memory_id, project)
        if located is None:
            raise _gone(memory_id)
        if decision == "promote":
            # Promote writes to the queue under the user root's lock; holding the
            # memory's root across it would take two roots' locks in the order
            # opposite to Apply's. The queue's duplicate check keeps a racing
            # second promotion from queueing the same knowledge twice.
            state = self._undecided(memory_id, located[0].project, located[1])
            return self._promote(located[0], kind=kind, layer=None, project=state.project)
        # Check and decide under the memory's root lock: two cards, the CLI and
        # the panel deciding at once see one decision, never two.
        with located[0].root.locked():
            again = self._find(memory_id, project)
            if again is None:
                raise _gone(memory_id)
            self._undecided(memory_id, again[0].project, again[1])
            if decision == "keep":
                return self._keep(again[0])
            return self._discard(again[0])

    @staticmethod
    def _undecided(memory_id: str, project: str | None, entry: MemoryEntry) -> ReviewState:
        state = review_state(entry, project)
        if state.decided:
            raise ConflictError(
                M_(
                    "memory {memory_id} was already reviewed ({state}); nothing changed",
                    memory_id=memory_id,
                    state=state.state,
                ),
                state=f"already_{state.state}",
            )
        return state

    def _find(self, memory_id: str, project: str | None) -> tuple[Located, MemoryEntry] | None:
        """Where the memory is and what it holds (``locate``: ``project``, focus, User, others)."""
        where = find(self.ctx, memory_id, project)
        return None if where is None else (where, where.root.read(where.name))

    # -- what agents may see -------------------------------------------------------------

    @property
    def agent_sees_unreviewed(self) -> bool:
        """The person's switch: may agent recall return unreviewed memories? (default off)"""
        return bool(self.ctx.settings.read().get("agent_unreviewed", False))
