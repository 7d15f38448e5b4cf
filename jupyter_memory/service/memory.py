"""The ``Memory`` facade: the one place where memory policy lives.

Adapters (magics, CLI, REST, MCP) call these methods and render the results;
they never touch files. Clock and id generator are injected for tests.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..core.knowledge.evidence import SourceText
from ..core.knowledge.format import KnowledgeDoc
from ..core.knowledge.proposals import Proposal
from ..core.llm import LLMClient
from ..core.memories.disclosure import Level
from ..core.memories.hits import RecallHit
from ..core.memories.models import MemoryEntry, MemoryType, Source, Tier, utcnow
from ..core.memories.recall_query import RecallQuery
from ..core.memories.sectors import TierDecision
from ..exceptions import ValidationError
from ..store.audit import AuditLog
from ..store.memories.search_index import IndexedMemory
from ..store.root import StoreRoot
from .context import ServiceContext
from .focus import FocusResolution
from .knowledge.events import QueueListener
from .knowledge.results import (
    CatalogExpansion,
    DecisionResult,
    KnowledgeFileStatus,
    KnowledgeRead,
    ProcessAllResult,
    ProposeResult,
    ReorganizeResult,
)
from .knowledge.wiring import knowledge_services
from .learning.results import (
    CandidateRule,
    DigestReport,
    ReviewDecision,
    UnreviewedMemory,
)
from .learning.wiring import learning_services
from .memories.maintenance import MemoryMaintenance
from .memories.reader import MemoryReader
from .memories.recall import MemoryRecall
from .memories.results import DoctorReport, EmbedReport, ForgetResult, MemoryStats, RebuildReport
from .memories.semantic import SemanticRecall, default_embedder_factory
from .memories.tier_results import (
    ColdArchivedMemory,
    ColdArchiveReport,
    ColdRestore,
    DailyMerge,
    SessionStart,
)
from .memories.writer import MemoryWriter
from .paths import RegisteredProject, resolve_home


class Memory:
    """Governed memory for one person: a user home and, optionally, a focused project."""

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        project: str | os.PathLike[str] | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        id_factory: Callable[[], str] | None = None,
        actor: str = "person",
        semantic: bool | Callable[[], Any] | None = None,
    ) -> None:
        # Optional embeddings (docs/recall.md): None = on when the extra is installed.
        self._semantic = SemanticRecall(default_embedder_factory(semantic))
        self.ctx = ServiceContext.open(
            resolve_home(home),
            clock=clock or utcnow,
            actor=actor,
            semantic=self._semantic,
            id_factory=id_factory,
        )
        # memory services
        self.memory_writer = MemoryWriter(self.ctx)
        self.memory_recall = MemoryRecall(self.ctx)
        self.memory_reader = MemoryReader(self.ctx)
        self.memory_upkeep = MemoryMaintenance(self.ctx)
        # end memory services
        # knowledge services
        self.knowledge_services = knowledge_services(self.ctx)
        # end knowledge services
        # learning services (tiers and the cold archive included)
        self.learning_services = learning_services(
            self.ctx,
            writer=self.memory_writer,
            reader=self.memory_reader,
            queue=self.knowledge_services.queue,
        )
        # end learning services
        if project is not None:
            self.focus(project)

    # -- the shared context ------------------------------------------------------------

    @property
    def home(self) -> Path:
        return self.ctx.home

    @property
    def user(self) -> StoreRoot:
        return self.ctx.user

    @property
    def audit(self) -> AuditLog:
        return self.ctx.audit

    @property
    def clock(self) -> Callable[[], datetime]:
        return self.ctx.clock

    @property
    def actor(self) -> str:
        return self.ctx.actor

    @property
    def semantic(self) -> SemanticRecall:
        return self._semantic

    @property
    def project_id(self) -> str | None:
        return self.ctx.projects.project_id

    @property
    def project_dir(self) -> Path | None:
        return self.ctx.projects.project_dir

    @property
    def project_root(self) -> StoreRoot | None:
        return self.ctx.projects.project_root

    # -- projects ---------------------------------------------------------------------

    def known_projects(self) -> dict[str, str]:
        return self.ctx.projects.known()

    def _project(self, project: str | os.PathLike[str]) -> tuple[str, StoreRoot]:
        return self.ctx.projects.resolve(project)

    def register_project(self, project: str | os.PathLike[str]) -> str:
        """A person's act: the id of a project folder (registering it) or of a known id."""
        return self.ctx.projects.register(project)

    def registered_project(self, project: str) -> RegisteredProject:
        """What an agent's ``project`` names: a registered id, or a registered folder's path.

        Anything else is refused (``PolicyError`` for a folder, ``NotFoundError``
        for an id); nothing is registered or created. The result, passed to any
        method here, resolves among registered projects only.
        """
        return self.ctx.projects.registered(project)

    def focus(
        self,
        project: str | os.PathLike[str] | None,
        *,
        notebook: str | os.PathLike[str] | None = None,
    ) -> str | None:
        """Focus a project folder (or a known project id); ``None`` unfocuses.

        With ``notebook`` (a person's act for that notebook), the choice is kept
        in the memory home so every surface beside it resolves the same project.
        """
        at = self.clock().isoformat()
        return self.ctx.projects.focus(project, notebook=notebook, at=at)

    def focus_of(
        self,
        *,
        notebook: str | os.PathLike[str] | None = None,
        folder: str | os.PathLike[str] | None = None,
    ) -> FocusResolution:
        """Which project a notebook, or a chat / MCP session in ``folder``, works in.

        Reads only: it never registers a project nor changes any focus.
        """
        if notebook is not None:
            return self.ctx.projects.notebooks.for_notebook(notebook)
        if folder is None:
            raise ValidationError("name a notebook or a folder", field="notebook")
        return self.ctx.projects.notebooks.for_folder(folder)

    def follow_focus(self, notebook: str | os.PathLike[str]) -> str | None:
        """Work in the person's focus for ``notebook`` (chosen here or in the panel); never registers."""
        return self.ctx.projects.follow(notebook)

    def adopt_focus(self, resolution: FocusResolution) -> str | None:
        """Work in a focus resolved by :meth:`focus_of` (registered, or none); never registers."""
        return self.ctx.projects.adopt(resolution)

    @property
    def focus_source(self) -> str:
        """How this process's focus was decided: explicit, beside, folder or none."""
        return self.ctx.projects.source

    def _roots(self, project: str | os.PathLike[str] | None = None) -> list[StoreRoot]:
        return self.ctx.projects.roots(project)

    def _new_id(self) -> str:
        return self.ctx.new_id()

    # -- settings ---------------------------------------------------------------------

    @property
    def settings(self) -> dict[str, Any]:
        """The switches: ``enabled`` (master), ``auto_suggestions``, ``extract_max_messages``, ``llm``."""
        return self.ctx.settings.read()

    def update_settings(
        self,
        *,
        enabled: bool | None = None,
        auto_suggestions: bool | None = None,
        extract_max_messages: int | None = None,
        llm: dict[str, str] | None = None,
        agent_unreviewed: bool | None = None,
        agents_md_autosync: bool | None = None,
    ) -> dict[str, Any]:
        """Persist switches (a person's act); returns the new settings."""
        return self.ctx.settings.update(
            enabled=enabled,
            auto_suggestions=auto_suggestions,
            extract_max_messages=extract_max_messages,
            llm=llm,
            agent_unreviewed=agent_unreviewed,
            agents_md_autosync=agents_md_autosync,
        )

    @property
    def enabled(self) -> bool:
        return self.ctx.settings.enabled

    @property
    def llm(self) -> LLMClient | None:
        """The configured LLM client, or ``None`` (the deterministic default)."""
        return self.ctx.settings.llm

    @llm.setter
    def llm(self, client: LLMClient | None) -> None:
        self.ctx.settings.llm = client

    # -- memories (delegation: service/memories/) ------------------------------------

    def remember(
        self,
        text: str,
        title: str | None = None,
        type: str | MemoryType = MemoryType.procedural,
        tier: str | Tier = Tier.durable,
        tags: Iterable[str] = (),
        scope: str | None = None,
        source: str | Source = Source.manual,
        *,
        project: str | os.PathLike[str] | None = None,
        agent: str | None = None,
        confidence: float = 1.0,
        evidence: Iterable[Any] = (),
        reviewed: bool = True,
        related: Iterable[str] = (),
        created: datetime | None = None,
        extra: dict[str, Any] | None = None,
    ) -> MemoryEntry:
        """Store a memory durably and return it (with its absolute ``path``)."""
        return self.memory_writer.remember(
            text, title, type, tier, tags, scope, source, project=project, agent=agent,
            confidence=confidence, evidence=evidence, reviewed=reviewed, related=related,
            created=created, extra=extra,
        )  # fmt: skip

    def update(self, memory_id: str, **changes: Any) -> MemoryEntry:
        """Change a memory's text or metadata (``reviewed=True`` after review, tags, …)."""
        return self.memory_writer.update(memory_id, **changes)

    def forget(self, memory_id: str) -> ForgetResult:
        """Delete a memory and every derived trace; the audit keeps id, hash and time only."""
        return self.memory_writer.forget(memory_id)

    def import_jsonl(self, path: str | os.PathLike[str], *, source: str = "import") -> list[str]:
        """Bulk import: validate every line first (nothing written on error), then batch writes."""
        return self.memory_writer.import_jsonl(path, source=source)

    def get(self, memory_id: str) -> MemoryEntry:
        return self.memory_reader.get(memory_id)

    def recall(
        self,
        query: str = "",
        *,
        type: str | Sequence[str] | None = None,
        tier: str | Sequence[str] | None = None,
        scope: str | None = None,
        agent: str | None = None,
        project: str | os.PathLike[str] | None = None,
        tags: str | Sequence[str] = (),
        since: datetime | None = None,
        recent: str | timedelta | None = None,
        limit: int = 10,
        level: str | Level = Level.snippet,
        budget: int | None = None,
        reviewed_only: bool = False,
        record_access: bool = True,
        mode: str | None = None,
    ) -> list[RecallHit]:
        """Ranked hits from the focused project (first) and the user layer.

        ``mode``: "lexical", "semantic" or "hybrid" (default when the semantic
        extra is installed, else lexical); see docs/recall.md.
        """
        return self.recall_query(
            RecallQuery.of(
                query, type=type, tier=tier, scope=scope, agent=agent, project=project,
                tags=tags, since=since, recent=recent, limit=limit, level=level,
                budget=budget, reviewed_only=reviewed_only, record_access=record_access,
                mode=mode,
            )
        )  # fmt: skip

    def recall_query(self, query: RecallQuery) -> list[RecallHit]:
        """:meth:`recall` for a query an adapter built with ``RecallQuery.of``."""
        return self.memory_recall.recall(query)

    def list(self, *, limit: int | None = None, include_cold: bool = True) -> list[dict[str, Any]]:
        """All memories with attention and heat, HOT then WARM then COLD, newest first."""
        return self.memory_reader.list(limit=limit, include_cold=include_cold)

    def stats(self) -> MemoryStats:
        return self.memory_reader.stats()

    def export(self) -> builtins.list[dict[str, Any]]:
        return self.memory_reader.export()

    def audit_records(self) -> builtins.list[dict[str, Any]]:
        """Audit records, oldest first; a forgotten memory's show only its deletion."""
        return self.memory_reader.audit_records()

    def rebuild_index(self) -> RebuildReport:
        return self.memory_upkeep.rebuild_index()

    def doctor(self) -> DoctorReport:
        """Check every root; never rewrites a stored file. ``ok`` is False on any problem."""
        return self.memory_upkeep.doctor()

    def embed(self, *, rebuild: bool = False, timeout: float | None = None) -> EmbedReport:
        """Embed what is pending now (or everything with ``rebuild``) and wait for it."""
        return self.memory_upkeep.embed(rebuild=rebuild, timeout=timeout)

    def close(self) -> None:
        self.memory_upkeep.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- knowledge (delegation) --

    def on_queue_change(self, callback: QueueListener) -> Callable[[], None]:
        """Call ``callback(event)`` after every queue change; returns an unsubscribe function."""
        return self.knowledge_services.events.on_queue_change(callback)

    def knowledge(self, layer: str = "user", project: str | os.PathLike[str] | None = None) -> str:
        return self.knowledge_services.files.knowledge(layer, project)

    def knowledge_version(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> str:
        return self.knowledge_services.files.knowledge_version(layer, project)

    def read_knowledge(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> KnowledgeRead:
        return self.knowledge_services.files.read_knowledge(layer, project)

    def knowledge_doc(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> KnowledgeDoc:
        return self.knowledge_services.files.knowledge_doc(layer, project)

    def save_knowledge(
        self,
        layer: str,
        text: str,
        project: str | os.PathLike[str] | None = None,
        *,
        base: str | None = None,
    ) -> KnowledgeFileStatus:
        return self.knowledge_services.files.save_knowledge(layer, text, project, base=base)

    def library_status(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> KnowledgeFileStatus:
        return self.knowledge_services.files.library_status(layer, project)

    def reorganize(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> ReorganizeResult:
        return self.knowledge_services.files.reorganize(layer, project)

    def context(
        self, project: str | os.PathLike[str] | None = None, *, conversation: str | None = None
    ) -> str:
        return self.knowledge_services.context.context(project, conversation=conversation)

    def expand_knowledge_catalog(
        self, labels: str | Sequence[str], project: str | os.PathLike[str] | None = None
    ) -> CatalogExpansion:
        return self.knowledge_services.context.expand_knowledge_catalog(labels, project)

    def record_round(
        self,
        messages: Iterable[Any],
        *,
        conversation: str | None = None,
        notebook: str | None = None,
    ) -> builtins.list[SourceText]:
        return self.knowledge_services.queue.record_round(
            messages, conversation=conversation, notebook=notebook
        )

    def propose(
        self,
        text: str,
        kind: str,
        evidence_quote: str,
        layer: str | None = None,
        project: str | os.PathLike[str] | None = None,
        source: str = "manual",
        *,
        messages: Iterable[Any] | None = None,
        conversation: str | None = None,
        quote_origin: dict[str, str] | None = None,
    ) -> ProposeResult:
        return self.knowledge_services.queue.propose(
            text,
            kind,
            evidence_quote,
            layer,
            project,
            source,
            messages=messages,
            conversation=conversation,
            quote_origin=quote_origin,
        )

    def propose_knowledge(
        self,
        text: str,
        kind: str,
        evidence_quote: str,
        layer: str | None = None,
        project: str | None = None,
        *,
        conversation: str | None = None,
        messages: Iterable[Any] | None = None,
    ) -> ProposeResult:
        return self.knowledge_services.queue.propose_knowledge(
            text, kind, evidence_quote, layer, project, conversation=conversation, messages=messages
        )

    def extract(
        self,
        messages: Iterable[Any],
        project: str | os.PathLike[str] | None = None,
        *,
        conversation: str | None = None,
        notebook: str | None = None,
        max_messages: int | None = None,
        background: bool = True,
    ) -> builtins.list[Proposal]:
        return self.knowledge_services.queue.extract(
            messages,
            project,
            conversation=conversation,
            notebook=notebook,
            max_messages=max_messages,
            background=background,
        )

    @property
    def last_extraction_skipped(self) -> builtins.list[dict[str, str]]:
        return self.knowledge_services.queue.last_extraction_skipped

    def queue(self, *, include_decided: bool = False) -> builtins.list[Proposal]:
        return self.knowledge_services.queue.queue(include_decided=include_decided)

    def queue_problems(self) -> builtins.list[dict[str, str]]:
        return self.knowledge_services.queue.queue_problems()

    def proposal(self, proposal_id: str) -> Proposal:
        return self.knowledge_services.queue.proposal(proposal_id)

    def apply(
        self, proposal_id: str, to: str, project: str | os.PathLike[str] | None = None
    ) -> DecisionResult:
        return self.knowledge_services.decisions.apply(proposal_id, to, project)

    def dismiss(self, proposal_id: str) -> DecisionResult:
        return self.knowledge_services.decisions.dismiss(proposal_id)

    def process_all(
        self, to: str, project: str | os.PathLike[str] | None = None
    ) -> ProcessAllResult:
        return self.knowledge_services.decisions.process_all(to, project)

    def call_agent_tool(
        self, name: str, arguments: dict[str, Any], *, conversation: str | None = None
    ) -> ProposeResult | CatalogExpansion:
        return self.knowledge_services.tools.call_agent_tool(
            name, arguments, conversation=conversation
        )

    # -- learning and tiers (delegation) --

    def tier_rows(self) -> builtins.list[tuple[StoreRoot, IndexedMemory, TierDecision]]:
        return self.learning_services.tiers.tier_rows()

    def start_session(self, session_key: str, *, pid: int | None = None) -> SessionStart:
        return self.learning_services.tiers.start_session(session_key, pid=pid)

    def end_session(self, session_key: str) -> None:
        self.learning_services.tiers.end_session(session_key)

    def clear_session_tier(self, *, before: datetime) -> builtins.list[str]:
        return self.learning_services.tiers.clear_session_tier(before=before)

    def merge_daily(self) -> builtins.list[DailyMerge]:
        return self.learning_services.tiers.merge_daily()

    def archive(self, *, dry_run: bool = False) -> ColdArchiveReport:
        return self.learning_services.cold_archive.archive(dry_run=dry_run)

    def archived(self) -> builtins.list[ColdArchivedMemory]:
        return self.learning_services.cold_archive.archived()

    def restore(self, memory_id: str) -> ColdRestore:
        return self.learning_services.cold_archive.restore(memory_id)

    def digest_record(self, session_key: str, messages: builtins.list[dict[str, Any]]) -> int:
        return self.learning_services.digest.digest_record(session_key, messages)

    def digest_pending(self, session: str | None = None) -> int:
        return self.learning_services.digest.digest_pending(session)

    def digest(self, session: str | None = None) -> DigestReport:
        return self.learning_services.digest.digest(session)

    def learning_candidates(self) -> builtins.list[CandidateRule]:
        return self.learning_services.learner.candidates()

    def dismiss_candidate(self, key: str, reason: str) -> None:
        self.learning_services.learner.dismiss_candidate(key, reason)

    def unreviewed(self, *, limit: int | None = None) -> builtins.list[UnreviewedMemory]:
        return self.learning_services.review.unreviewed(limit=limit)

    def keep_memory(self, memory_id: str) -> ReviewDecision:
        return self.learning_services.review.keep_memory(memory_id)

    def discard_memory(self, memory_id: str) -> ReviewDecision:
        return self.learning_services.review.discard_memory(memory_id)

    def promote_memory(
        self,
        memory_id: str,
        *,
        kind: str = "rule",
        layer: str | None = None,
        project: str | None = None,
    ) -> ReviewDecision:
        return self.learning_services.review.promote_memory(
            memory_id, kind=kind, layer=layer, project=project
        )

    @property
    def agent_sees_unreviewed(self) -> bool:
        return self.learning_services.review.agent_sees_unreviewed

    # -- imports (delegation) --

    def import_from(
        self,
        source: str,
        path: str | os.PathLike[str],
        project: str | os.PathLike[str] | None = None,
        dry_run: bool = False,
        *,
        progress: Any = None,
    ) -> Any:
        """Import another tool's notes, rules or memories (docs/import.md); an ``ImportReport``."""
        from .imports.importer import import_from

        return import_from(self, source, path, project, dry_run=dry_run, progress=progress)
