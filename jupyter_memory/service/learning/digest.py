"""The session digest (issue 8, spec 001): :class:`DigestService`.

``digest()`` turns batches of new session messages into *unreviewed* memories:

1. gather batches — the messages recorded with :meth:`DigestService.digest_record`
   (cells, chat turns) past each session's cursor, and new messages of Jupyter
   AI ``*.chat`` files in the focused project (read-only);
2. extract — with the configured LLM (our spec-001 prompt) or the embedded
   deterministic extractor — and put the result through the strict validator;
3. store what was accepted with ``source: session-digest``, ``reviewed: false``
   (never injected into an agent's context until the person reviews it), give
   new scenes a pool id, and only then advance the cursor. A crash in between
   digests the batch again; it never loses it.

Each batch also feeds the self-learner (:mod:`.candidates`). Review of what was
stored is :mod:`.review`; the daily merge and the cold archive are tier
housekeeping of the memories domain (:mod:`jupyter_memory.service.memories`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from ..._i18n import M_
from ...core.learning.digest_extract import extract_work_memories
from ...core.learning.digest_prompt import extract_with_llm
from ...core.learning.work_memory import (
    Batch,
    BatchMessage,
    Rejection,
    ValidationReport,
    WorkMemory,
    validate_work_memories,
)
from ...core.learning.work_memory_types import WorkMemoryType
from ...core.memories.models import MemoryEntry, MemoryType, Source, Tier
from ...core.validation import validation_error
from ...exceptions import LLMBudgetSpentError, PolicyError, ValidationError
from ...store.learning.chat_files import find_chat_files, read_chat_messages
from ...store.learning.digest_store import DigestStore
from ..context import ServiceContext
from ..llm_budget import MeteredClient, over_budget_note
from ..secret_guard import redacted_records
from .candidates import SelfLearner
from .ports import WorkMemoryWriter
from .results import DigestedBatch, DigestReport, LearnedProposal, StoredWorkMemory

# Spec 001 types → spec 003 sectors and tiers. Tasks are progress ("what
# happened / what is next"): episodic, daily. The rest is lasting knowledge.
SECTOR = {
    WorkMemoryType.work_fact: MemoryType.semantic,
    WorkMemoryType.work_method: MemoryType.procedural,
    WorkMemoryType.work_task: MemoryType.episodic,
    WorkMemoryType.work_artifact: MemoryType.semantic,
}
TIER = {
    WorkMemoryType.work_fact: Tier.durable,
    WorkMemoryType.work_method: Tier.durable,
    WorkMemoryType.work_task: Tier.daily,
    WorkMemoryType.work_artifact: Tier.durable,
}
MAX_QUOTE_CHARS = 500
NO_PROJECT = "-"


class DigestService:
    """Records session messages and digests them into unreviewed work memories."""

    def __init__(
        self, ctx: ServiceContext, memories: WorkMemoryWriter, learner: SelfLearner
    ) -> None:
        self.ctx = ctx
        self.memories = memories
        self.learner = learner
        self.store = DigestStore(ctx.home)

    # -- recording -----------------------------------------------------------------------

    def digest_record(self, session_key: str, messages: list[dict[str, Any]]) -> int:
        """Keep new messages of a session for the next digest; returns how many are pending.

        Each message is ``{"id", "role", "text", "timestamp", ...}`` as in a batch;
        a bad one is refused (field named) and nothing is recorded.
        """
        if not self.ctx.settings.enabled:
            raise PolicyError(M_("memory is disabled by the person; nothing is recorded"))
        if not isinstance(session_key, str) or not session_key.strip():
            raise ValidationError(M_("must be a non-empty string"), field="session_key")
        # A message without its own project was recorded in the focused one (the
        # kernel's notebook, the CLI's --project): kept with it, so the digest labels
        # its scene from the message, whatever is focused when the digest runs.
        recorded = self.ctx.projects.project_id
        clean = []
        for i, raw in enumerate(messages):
            try:
                msg = BatchMessage.model_validate(raw)
            except PydanticValidationError as exc:
                raise validation_error(exc, default="message", prefix=f"messages[{i}]") from None
            if msg.project is None and recorded is not None:
                msg.project = recorded
            clean.append(msg.model_dump(mode="json", exclude_none=True))
        with self.ctx.semantic.foreground():  # the background embedder waits meanwhile
            # Redacted before the inbox: the digest and its memories never see a secret.
            return self.store.append(session_key, redacted_records(clean))

    def digest_pending(self, session: str | None = None) -> int:
        """How many recorded messages (of one session, or all) wait for the next digest."""
        return sum(
            len(inbox["messages"]) - int(inbox["consumed"]) for inbox in self.store.pending(session)
        )

    # -- digesting -----------------------------------------------------------------------

    def _batches(self, session: str | None) -> list[tuple[str, Batch, int]]:
        """``(cursor source, batch, new cursor)`` for every source with new messages."""
        out: list[tuple[str, Batch, int]] = []
        for inbox in self.store.pending(session):
            consumed = int(inbox["consumed"])
            batch = _batch(
                inbox["session_key"], inbox["messages"][consumed:], inbox["messages"][:consumed]
            )
            out.append((f"inbox:{inbox['session_key']}", batch, len(inbox["messages"])))
        project_dir = self.ctx.projects.project_dir
        if project_dir is None:
            return out
        cursors = self.store.cursors()
        for path in find_chat_files(project_dir):
            if self.store.has_inbox(f"chat:{path.resolve()}"):
                continue  # the Memory persona records this chat's turns in the inbox
            key = str(path.relative_to(project_dir))
            if session is not None and session != key:
                continue
            # a chat file in the project's folder belongs to that project
            # The chat file is the person's; what the digest derives from it is redacted.
            messages = [
                {**m, "project": m.get("project") or self.ctx.projects.project_id}
                for m in redacted_records(read_chat_messages(path))
            ]
            done = cursors.get(f"chat:{path}", 0)
            if len(messages) <= done:
                continue
            batch = _batch(key, messages[done:], messages[max(0, done - 12) : done])
            out.append((f"chat:{path}", batch, len(messages)))
        return out

    def _extract(
        self, batch: Batch, pool: list[dict[str, str]], client: MeteredClient | None
    ) -> ValidationReport:
        # Scene labels take their project from the messages (spec 001): one they name,
        # or the one they were recorded in; registered ids only help to match a name.
        # The project focused now (perhaps another notebook's) is never a guess.
        known = sorted(self.ctx.projects.known())
        if client is not None:
            return extract_with_llm(client, batch, pool, known_projects=known)
        scenes = extract_work_memories(batch, pool, known_projects=known)
        return validate_work_memories(batch, [s.to_spec() for s in scenes], pool)

    def _store_work_memory(
        self, memory: WorkMemory, batch: Batch, scene_id: str | None
    ) -> MemoryEntry:
        by_id = {m.id: m for m in batch.messages if batch.session_of(m) == memory.session_key}
        quotes = [
            {"quote": by_id[i].text[:MAX_QUOTE_CHARS], "source": f"{memory.session_key}#{i}"}
            for i in memory.source_message_ids
            if i in by_id and by_id[i].role == "user"
        ]
        extra: dict[str, Any] = {
            "work_type": memory.type.value,
            "priority": memory.priority,
            "scene": memory.scene.label,
            "scene_id": scene_id,
            "session_key": memory.session_key,
            "source_message_ids": memory.source_message_ids,
            "event_start": memory.event_start,
            "event_end": memory.event_end,
            "work_metadata": memory.metadata,
        }
        if memory.task_state is not None:
            extra["task_state"] = memory.task_state.value
        return self.memories.remember(
            memory.content,
            type=SECTOR[memory.type],
            tier=TIER[memory.type],
            tags=[memory.type.value, "digest"],
            source=Source.session_digest,
            confidence=memory.priority / 100.0,
            evidence=quotes,
            reviewed=False,
            extra={k: v for k, v in extra.items() if v is not None},
        )

    def digest(self, session: str | None = None, *, background: bool = False) -> DigestReport:
        """Digest every batch not yet consumed (or one session's); report what was stored.

        An LLM call counts against today's budget (llm_budget.py). A
        ``background`` digest (a session's end, nobody asked) whose budget is
        spent uses the embedded extractor instead and says so in ``notice``; a
        person's request runs anyway and ``notice`` says it went over.
        """
        if not self.ctx.settings.enabled:
            raise PolicyError(M_("memory is disabled by the person; nothing is extracted"))
        focused = self.ctx.projects.project_id
        llm = self.ctx.settings.llm
        client = None
        notice: str | None = None
        if llm is not None:
            budget = self.ctx.settings.budget
            spend = budget.spend()
            if background and spend.spent:
                notice = spend.notice("digest")
            else:
                client = budget.client(llm, use="digest", background=background)
        extractor = "llm" if client is not None else "deterministic"
        batches: list[DigestedBatch] = []
        stored: list[StoredWorkMemory] = []
        rejected: list[Rejection] = []
        proposed: list[LearnedProposal] = []
        for source, batch, cursor in self._batches(session):
            # the pool of the project the batch was recorded in (older inboxes: focus)
            project_key = _recorded_project(batch) or focused or NO_PROJECT
            pool = self.store.pool(project_key)
            try:
                verdict = self._extract(batch, pool, client)
            except LLMBudgetSpentError as exc:
                # spent during this background digest: the rest without an LLM, said once
                notice, client, extractor = str(exc), None, "deterministic"
                verdict = self._extract(batch, pool, None)
            new_labels = [m.scene.label for m in verdict.accepted if m.scene.status == "new"]
            ids = (
                self.store.add_scenes(project_key, [x for x in new_labels if x])
                if new_labels
                else {}
            )
            here = []
            for memory in verdict.accepted:
                scene_id = memory.scene.id or (ids.get(memory.scene.label or "") or None)
                entry = self._store_work_memory(memory, batch, scene_id)
                here.append(StoredWorkMemory(entry.id, memory.type.value, entry.title))
            proposed.extend(self.learner.learn(batch))
            if source.startswith("inbox:"):
                self.store.consume(batch.session_key, cursor)
            else:
                self.store.set_cursor(source, cursor)
            batches.append(
                DigestedBatch(
                    source=source,
                    session_key=batch.session_key,
                    messages=len(batch.messages),
                    stored=len(here),
                    rejected=len(verdict.rejected),
                )
            )
            stored.extend(here)
            rejected.extend(verdict.rejected)
        if client is not None and client.went_over and client.spend is not None:
            notice = over_budget_note(client.spend)
        return DigestReport(extractor, batches, stored, rejected, proposed, notice)


def _recorded_project(batch: Batch) -> str | None:
    """The project most of the batch's new messages were recorded in, if they say."""
    counts = Counter(m.project for m in batch.messages if m.project)
    return counts.most_common(1)[0][0] if counts else None


def _unique(
    messages: list[dict[str, Any]], *, besides: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """One message per id, the newest version (a re-run cell or an edited chat message
    keeps its id); ids in ``besides`` (the new messages) are left out of background."""
    latest: dict[str, dict[str, Any]] = {}
    for msg in messages:
        if msg["id"] not in besides:
            latest.pop(msg["id"], None)
            latest[msg["id"]] = msg
    return list(latest.values())


def _batch(session_key: str, new: list[dict[str, Any]], old: list[dict[str, Any]]) -> Batch:
    messages = _unique(new)
    ids = frozenset(m["id"] for m in messages)
    return Batch.model_validate(
        {"session_key": session_key, "messages": messages, "background": _unique(old, besides=ids)}
    )
