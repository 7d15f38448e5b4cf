"""The ``Memory`` facade: the one place where memory policy lives.

Adapters (magics, CLI, REST, MCP) call these methods and render the results;
they never touch files. Clock and id generator are injected for tests.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .._i18n import M_
from ..core.llm import LLMClient
from ..core.memories.disclosure import Level
from ..core.memories.hits import RecallHit
from ..core.memories.models import utcnow
from ..core.memories.recall_query import RecallQuery
from ..exceptions import ValidationError
from ..store.audit import AuditLog
from ..store.root import StoreRoot
from .context import ServiceContext
from .delegation import Delegate
from .focus import FocusResolution
from .knowledge.agent_context import KnowledgeContext
from .knowledge.agent_evidence import AgentEvidence
from .knowledge.agent_tools import KnowledgeAgentTools
from .knowledge.decisions import KnowledgeDecisions
from .knowledge.events import QueueEvents
from .knowledge.files import KnowledgeFiles
from .knowledge.history import KnowledgeHistory
from .knowledge.preinject import PreinjectReorganize
from .knowledge.purge import ProposalPurge
from .knowledge.queue import KnowledgeQueue
from .knowledge.revert import KnowledgeRevert
from .knowledge.shared_queue import TeamQueueStore
from .knowledge.wiring import knowledge_services
from .learning.agent_sessions import AgentSessions
from .learning.candidates import SelfLearner
from .learning.digest import DigestService
from .learning.gotchas import GotchaCapture
from .learning.review import ReviewService
from .learning.wiring import learning_services
from .llm_budget import LLMSpend
from .memories.cold_archive import ColdArchive
from .memories.maintenance import MemoryMaintenance
from .memories.reader import MemoryReader
from .memories.recall import MemoryRecall
from .memories.semantic import SemanticRecall, default_embedder_factory
from .memories.tiers import TiersService
from .memories.writer import MemoryWriter
from .paths import RegisteredProject, resolve_home
from .secret_doctor import SecretDoctor
from .team import TeamProjects


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
        # team projects on git (issue 17)
        self.team = TeamProjects(
            self.ctx, self.knowledge_services.files, self.knowledge_services.queue.store
        )
        # secrets in stored files (issue 29): a doctor check, and --fix for derived files
        self.secret_doctor = SecretDoctor(self.ctx)
        self.ctx.doctor_checks.append(self.secret_doctor.findings)
        self.team_history = KnowledgeHistory(
            self.ctx, self.knowledge_services.files, self.knowledge_services.queue.store
        )
        # learning services (tiers and the cold archive included)
        self.learning_services = learning_services(
            self.ctx,
            writer=self.memory_writer,
            reader=self.memory_reader,
            queue=self.knowledge_services.queue,
            queue_events=self.knowledge_services.events,
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
            raise ValidationError(M_("name a notebook or a folder"), field="notebook")
        return self.ctx.projects.notebooks.for_folder(folder)

    def notebook_moved(self, old: str | os.PathLike[str], new: str | os.PathLike[str]) -> int:
        """``old`` (a notebook or a folder) was renamed or moved to ``new``: the choices follow.

        Answers how many notebooks' choices moved. The kernel of a moved
        notebook finds it through :meth:`notebook_now`.
        """
        return self.ctx.projects.notebooks.moved(old, new, self.clock().isoformat())

    def notebook_deleted(self, path: str | os.PathLike[str]) -> int:
        """``path`` (a notebook or a folder) was deleted: the choices made for it go."""
        return self.ctx.projects.notebooks.deleted(path)

    def notebook_now(self, notebook: str | os.PathLike[str]) -> Path | None:
        """Where a rename or move took ``notebook`` (``None``: never moved, as far as we know)."""
        return self.ctx.projects.notebooks.where_now(notebook)

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

    show_progress = Delegate("ctx", ServiceContext.show_progress)

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
        llm_budget: dict[str, int] | None = None,
    ) -> dict[str, Any]:
        """Persist switches (a person's act); returns the new settings."""
        return self.ctx.settings.update(
            enabled=enabled,
            auto_suggestions=auto_suggestions,
            extract_max_messages=extract_max_messages,
            llm=llm,
            agent_unreviewed=agent_unreviewed,
            agents_md_autosync=agents_md_autosync,
            llm_budget=llm_budget,
        )

    def llm_spend(self) -> LLMSpend:
        """Today's background-and-explicit LLM spend against the ``llm_budget`` setting."""
        return self.ctx.settings.budget.spend()

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

    # -- memories (service/memories/) ---------------------------------------------------
    # Each line forwards to the domain service that owns the method (its
    # signature and docstring): see service/delegation.py.

    remember = Delegate("memory_writer", MemoryWriter.remember)
    update = Delegate("memory_writer", MemoryWriter.update)
    forget = Delegate("memory_writer", MemoryWriter.forget)
    import_jsonl = Delegate("memory_writer", MemoryWriter.import_jsonl)
    get = Delegate("memory_reader", MemoryReader.get)
    list = Delegate("memory_reader", MemoryReader.list)
    list_page = Delegate("memory_reader", MemoryReader.list_page)
    stats = Delegate("memory_reader", MemoryReader.stats)
    export = Delegate("memory_reader", MemoryReader.export)
    audit_records = Delegate("memory_reader", MemoryReader.audit_records)
    rebuild_index = Delegate("memory_upkeep", MemoryMaintenance.rebuild_index)
    doctor = Delegate("memory_upkeep", MemoryMaintenance.doctor)
    redact_derived_secrets = Delegate("secret_doctor", SecretDoctor.fix)
    embed = Delegate("memory_upkeep", MemoryMaintenance.embed)
    close = Delegate("memory_upkeep", MemoryMaintenance.close)
    recall_query = Delegate("memory_recall", MemoryRecall.recall)

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
    ) -> builtins.list[RecallHit]:
        """Ranked hits from the focused project (first) and the user layer.

        The keywords build a ``RecallQuery`` (checked once); adapters that
        already hold one call :meth:`recall_query`. ``mode``: "lexical",
        "semantic" or "hybrid" (default when the semantic extra is installed,
        else lexical); see docs/recall.md.
        """
        return self.memory_recall.recall(
            RecallQuery.of(
                query, type=type, tier=tier, scope=scope, agent=agent, project=project,
                tags=tags, since=since, recent=recent, limit=limit, level=level,
                budget=budget, reviewed_only=reviewed_only, record_access=record_access,
                mode=mode,
            )
        )  # fmt: skip

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- knowledge (service/knowledge/) ------------------------------------------------

    project_init = Delegate("team", TeamProjects.project_init)
    team_status = Delegate("team", TeamProjects.team_status)
    project_settings = Delegate("team", TeamProjects.project_settings)
    resolve_knowledge = Delegate("team", TeamProjects.resolve_knowledge)
    knowledge_history = Delegate("team_history", KnowledgeHistory.history)
    queue_folders = Delegate("knowledge_services.queue.store", TeamQueueStore.folders)
    on_queue_change = Delegate("knowledge_services.events", QueueEvents.on_queue_change)
    knowledge = Delegate("knowledge_services.files", KnowledgeFiles.knowledge)
    knowledge_version = Delegate("knowledge_services.files", KnowledgeFiles.knowledge_version)
    read_knowledge = Delegate("knowledge_services.files", KnowledgeFiles.read_knowledge)
    knowledge_doc = Delegate("knowledge_services.files", KnowledgeFiles.knowledge_doc)
    save_knowledge = Delegate("knowledge_services.files", KnowledgeFiles.save_knowledge)
    library_status = Delegate("knowledge_services.files", KnowledgeFiles.library_status)
    reorganize = Delegate("knowledge_services.files", KnowledgeFiles.reorganize)
    reorganize_text = Delegate("knowledge_services.files", KnowledgeFiles.reorganize_text)
    context = Delegate("knowledge_services.context", KnowledgeContext.context)
    expand_knowledge_catalog = Delegate(
        "knowledge_services.context", KnowledgeContext.expand_knowledge_catalog
    )
    record_round = Delegate("knowledge_services.queue", KnowledgeQueue.record_round)
    propose = Delegate("knowledge_services.queue", KnowledgeQueue.propose)
    propose_knowledge = Delegate("knowledge_services.queue", KnowledgeQueue.propose_knowledge)
    extract = Delegate("knowledge_services.queue", KnowledgeQueue.extract)
    queue = Delegate("knowledge_services.queue", KnowledgeQueue.queue)
    queue_problems = Delegate("knowledge_services.queue", KnowledgeQueue.queue_problems)
    proposal = Delegate("knowledge_services.queue", KnowledgeQueue.proposal)
    decision_context = Delegate("knowledge_services.queue", KnowledgeQueue.decision_context)
    apply = Delegate("knowledge_services.decisions", KnowledgeDecisions.apply)
    dismiss = Delegate("knowledge_services.decisions", KnowledgeDecisions.dismiss)
    purge = Delegate("knowledge_services.purge", ProposalPurge.purge)
    process_all = Delegate("knowledge_services.decisions", KnowledgeDecisions.process_all)
    process_all_plan = Delegate("knowledge_services.decisions", KnowledgeDecisions.process_all_plan)
    revert = Delegate("knowledge_services.revert", KnowledgeRevert.revert)
    call_agent_tool = Delegate("knowledge_services.tools", KnowledgeAgentTools.call_agent_tool)
    record_person_text = Delegate("knowledge_services.evidence", AgentEvidence.record_person_text)
    record_agent_output = Delegate("knowledge_services.evidence", AgentEvidence.record_agent_output)
    agent_evidence = Delegate("knowledge_services.evidence", AgentEvidence.sources)
    prepare_injection = Delegate(
        "knowledge_services.preinject", PreinjectReorganize.prepare_injection
    )

    @property
    def last_extraction_skipped(self) -> builtins.list[dict[str, str]]:
        return self.knowledge_services.queue.last_extraction_skipped

    @property
    def last_extraction_notice(self) -> str | None:
        """The LLM budget's word on the last extraction round (spent, went over), else None."""
        return self.knowledge_services.queue.last_extraction_notice

    @property
    def last_extraction_called_llm(self) -> bool:
        """Did the last extraction round call the LLM (the boundary rounds, issue 32)?"""
        return self.knowledge_services.queue.last_extraction_called_llm

    # -- learning, tiers and the cold archive (service/learning/, service/memories/) --

    tier_rows = Delegate("learning_services.tiers", TiersService.tier_rows)
    start_session = Delegate("learning_services.tiers", TiersService.start_session)
    end_session = Delegate("learning_services.tiers", TiersService.end_session)
    clear_session_tier = Delegate("learning_services.tiers", TiersService.clear_session_tier)
    merge_daily = Delegate("learning_services.tiers", TiersService.merge_daily)
    archive = Delegate("learning_services.cold_archive", ColdArchive.archive)
    archived = Delegate("learning_services.cold_archive", ColdArchive.archived)
    restore = Delegate("learning_services.cold_archive", ColdArchive.restore)
    digest_record = Delegate("learning_services.digest", DigestService.digest_record)
    digest_pending = Delegate("learning_services.digest", DigestService.digest_pending)
    digest = Delegate("learning_services.digest", DigestService.digest)
    learning_candidates = Delegate("learning_services.learner", SelfLearner.candidates)
    dismiss_candidate = Delegate("learning_services.learner", SelfLearner.dismiss_candidate)
    learning_report = Delegate("learning_services.learner", SelfLearner.report)
    learning_candidate = Delegate("learning_services.learner", SelfLearner.candidate)
    promote_candidate = Delegate("learning_services.learner", SelfLearner.promote)
    capture_gotcha = Delegate("learning_services.gotchas", GotchaCapture.capture_gotcha)
    record_agent_turn = Delegate(
        "learning_services.agent_sessions", AgentSessions.record_agent_turn
    )
    end_agent_session = Delegate(
        "learning_services.agent_sessions", AgentSessions.end_agent_session
    )
    digest_idle_sessions = Delegate(
        "learning_services.agent_sessions", AgentSessions.digest_idle_sessions
    )
    chat_notes = Delegate("learning_services.agent_sessions", AgentSessions.chat_notes)
    unreviewed = Delegate("learning_services.review", ReviewService.unreviewed)
    unreviewed_count = Delegate("learning_services.review", ReviewService.unreviewed_count)
    keep_memory = Delegate("learning_services.review", ReviewService.keep_memory)
    discard_memory = Delegate("learning_services.review", ReviewService.discard_memory)
    promote_memory = Delegate("learning_services.review", ReviewService.promote_memory)
    review_states = Delegate("learning_services.review", ReviewService.review_states)
    review_memory = Delegate("learning_services.review", ReviewService.review_memory)

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
