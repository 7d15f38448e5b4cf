"""``Memory.hooks``: the plumbing the adapters call, apart from the verbs a person calls.

A magic, a card, a REST route, an MCP tool or the CLI records what a person
typed, digests a captured round, lists a page of memories for the panel, reads
a proposal's decision context, or draws progress: that is this object. A person
working in Python calls the verbs of :class:`~jupyter_memory.service.memory.Memory`
(remember, recall, propose, apply, …), which forward here.

This object also wires the domain services over one :class:`ServiceContext`
(``ctx``); each line below forwards to the service that owns the method, as
the facade's verbs do (service/delegation.py). The names are pinned by
tests/test_public_api.py.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .delegation import Delegate, Later, built_once

# The domain services' classes: real for the type checker, imported on first use
# when running (service/delegation.py); each service is built on first use below.
if TYPE_CHECKING:
    from ..store.audit import AuditLog
    from ..store.root import StoreRoot
    from .context import DoctorFinding, ServiceContext
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
    from .knowledge.shared_queue import TeamQueueStore
    from .knowledge.wiring import KnowledgeServices
    from .learning.agent_sessions import AgentSessions
    from .learning.candidates import SelfLearner
    from .learning.digest import DigestService
    from .learning.gotchas import GotchaCapture
    from .learning.review import ReviewService
    from .learning.wiring import LearningServices
    from .llm_budget import LLMBudget
    from .memories.cold_archive import ColdArchive
    from .memories.maintenance import MemoryMaintenance
    from .memories.reader import MemoryReader
    from .memories.recall import MemoryRecall
    from .memories.recall_keywords import KeywordRecall
    from .memories.semantic import SemanticRecall
    from .memories.tiers import TiersService
    from .memories.writer import MemoryWriter
    from .project_focus import ProjectFocus
    from .projects import Projects
    from .secret_doctor import SecretDoctor
    from .team import TeamProjects
else:
    _S = "jupyter_memory.service."
    ServiceContext = Later(_S + "context", "ServiceContext")
    LLMBudget = Later(_S + "llm_budget", "LLMBudget")
    Projects = Later(_S + "projects", "Projects")
    KnowledgeContext = Later(_S + "knowledge.agent_context", "KnowledgeContext")
    AgentEvidence = Later(_S + "knowledge.agent_evidence", "AgentEvidence")
    KnowledgeAgentTools = Later(_S + "knowledge.agent_tools", "KnowledgeAgentTools")
    KnowledgeDecisions = Later(_S + "knowledge.decisions", "KnowledgeDecisions")
    QueueEvents = Later(_S + "knowledge.events", "QueueEvents")
    KnowledgeFiles = Later(_S + "knowledge.files", "KnowledgeFiles")
    KnowledgeHistory = Later(_S + "knowledge.history", "KnowledgeHistory")
    PreinjectReorganize = Later(_S + "knowledge.preinject", "PreinjectReorganize")
    ProposalPurge = Later(_S + "knowledge.purge", "ProposalPurge")
    KnowledgeQueue = Later(_S + "knowledge.queue", "KnowledgeQueue")
    TeamQueueStore = Later(_S + "knowledge.shared_queue", "TeamQueueStore")
    AgentSessions = Later(_S + "learning.agent_sessions", "AgentSessions")
    SelfLearner = Later(_S + "learning.candidates", "SelfLearner")
    DigestService = Later(_S + "learning.digest", "DigestService")
    GotchaCapture = Later(_S + "learning.gotchas", "GotchaCapture")
    ReviewService = Later(_S + "learning.review", "ReviewService")
    ColdArchive = Later(_S + "memories.cold_archive", "ColdArchive")
    MemoryMaintenance = Later(_S + "memories.maintenance", "MemoryMaintenance")
    MemoryReader = Later(_S + "memories.reader", "MemoryReader")
    MemoryRecall = Later(_S + "memories.recall", "MemoryRecall")
    KeywordRecall = Later(_S + "memories.recall_keywords", "KeywordRecall")
    TiersService = Later(_S + "memories.tiers", "TiersService")
    MemoryWriter = Later(_S + "memories.writer", "MemoryWriter")
    ProjectFocus = Later(_S + "project_focus", "ProjectFocus")
    SecretDoctor = Later(_S + "secret_doctor", "SecretDoctor")
    TeamProjects = Later(_S + "team", "TeamProjects")


class MemoryHooks:
    """The domain services of one ``Memory`` and the adapters' plumbing over them.

    Each service is built (and its module imported) the first time it is used, so
    a recall builds the recall and nothing of knowledge or learning. What a service
    listens to is wired where it could first be heard: the doctor's checks are
    registered here at once, and the learner's queue listener and the AGENTS.md
    sync are wired when the knowledge queue they hear is built (``_wired``).
    """

    def __init__(self, ctx: ServiceContext, semantic: SemanticRecall) -> None:
        self.ctx = ctx
        self._semantic = semantic
        # The doctor runs these in this order: team projects, then stored secrets.
        ctx.doctor_checks.append(self._team_findings)
        ctx.doctor_checks.append(self._secret_findings)

    def _team_findings(self) -> DoctorFinding:
        return self.team.doctor_findings()

    def _secret_findings(self) -> DoctorFinding:
        return self.secret_doctor.findings()

    # -- memory services ---------------------------------------------------------------

    @built_once
    def memory_writer(self) -> MemoryWriter:
        from .memories.writer import MemoryWriter

        return MemoryWriter(self.ctx)

    @built_once
    def memory_recall(self) -> MemoryRecall:
        from .memories.recall import MemoryRecall

        return MemoryRecall(self.ctx)

    @built_once
    def keyword_recall(self) -> KeywordRecall:
        from .memories.recall_keywords import KeywordRecall

        return KeywordRecall(self.memory_recall)

    @built_once
    def memory_reader(self) -> MemoryReader:
        from .memories.reader import MemoryReader

        return MemoryReader(self.ctx)

    @built_once
    def memory_upkeep(self) -> MemoryMaintenance:
        from .memories.maintenance import MemoryMaintenance

        return MemoryMaintenance(self.ctx)

    @built_once
    def project_focus(self) -> ProjectFocus:
        from .project_focus import ProjectFocus

        return ProjectFocus(self.ctx)

    # -- knowledge and learning services -----------------------------------------------

    @built_once
    def _wired(self) -> tuple[KnowledgeServices, LearningServices]:
        # Built together: the learner listens to the knowledge queue's events (a
        # dismissed learned proposal rejects its candidate), so no queue exists
        # without its listener, whichever of the two is asked for first.
        from .knowledge.wiring import knowledge_services
        from .learning.wiring import learning_services

        knowledge = knowledge_services(self.ctx)
        learning = learning_services(
            self.ctx,
            writer=self.memory_writer,
            reader=self.memory_reader,
            queue=knowledge.queue,
            queue_events=knowledge.events,
        )
        return knowledge, learning

    @built_once
    def knowledge_services(self) -> KnowledgeServices:
        """The knowledge services (service/knowledge/wiring.py)."""
        return self._wired[0]

    @built_once
    def learning_services(self) -> LearningServices:
        """The learning services, tiers and the cold archive (service/learning/wiring.py)."""
        return self._wired[1]

    @built_once
    def team(self) -> TeamProjects:
        """Team projects on git (docs/teams.md)."""
        from .team import TeamProjects

        return TeamProjects(
            self.ctx, self.knowledge_services.files, self.knowledge_services.queue.store
        )

    @built_once
    def secret_doctor(self) -> SecretDoctor:
        """Secrets in stored files: a doctor check, and ``--fix`` for derived files."""
        from .secret_doctor import SecretDoctor

        return SecretDoctor(self.ctx)

    @built_once
    def team_history(self) -> KnowledgeHistory:
        from .knowledge.history import KnowledgeHistory

        return KnowledgeHistory(
            self.ctx, self.knowledge_services.files, self.knowledge_services.queue.store
        )

    # -- the shared context ------------------------------------------------------------

    @property
    def user(self) -> StoreRoot:
        """The user layer's storage root (the memory home)."""
        return self.ctx.user

    @property
    def audit(self) -> AuditLog:
        """The home's audit log (``audit.jsonl``)."""
        return self.ctx.audit

    @property
    def clock(self) -> Callable[[], datetime]:
        """The injected clock every service reads."""
        return self.ctx.clock

    @property
    def actor(self) -> str:
        """Who acts through this ``Memory`` ("person", or an agent's name)."""
        return self.ctx.actor

    @property
    def semantic(self) -> SemanticRecall:
        """The optional embeddings (docs/recall.md)."""
        return self._semantic

    @property
    def project_dir(self) -> Path | None:
        """The focused project's folder, or ``None``."""
        return self.ctx.projects.project_dir

    @property
    def project_root(self) -> StoreRoot | None:
        """The focused project's storage root, or ``None``."""
        return self.ctx.projects.project_root

    @property
    def focus_source(self) -> str:
        """How this process's focus was decided: explicit, beside, folder or none."""
        return self.ctx.projects.source

    @property
    def last_extraction_skipped(self) -> list[dict[str, str]]:
        """The texts the last extraction round skipped, with the reason."""
        return self.knowledge_services.queue.last_extraction_skipped

    @property
    def last_extraction_notice(self) -> str | None:
        """The LLM budget's word on the last extraction round (spent, went over), else None."""
        return self.knowledge_services.queue.last_extraction_notice

    @property
    def last_extraction_called_llm(self) -> bool:
        """Did the last extraction round call the LLM (the conversation-boundary rounds)?"""
        return self.knowledge_services.queue.last_extraction_called_llm

    @property
    def agent_sees_unreviewed(self) -> bool:
        """Does the ``agent_unreviewed`` setting let agents recall unreviewed memories?"""
        return self.learning_services.review.agent_sees_unreviewed

    show_progress = Delegate("ctx", ServiceContext.show_progress)

    # -- projects and focus ------------------------------------------------------------

    known_projects = Delegate("ctx.projects", Projects.known)
    registered_project = Delegate("ctx.projects", Projects.registered)
    follow_focus = Delegate("ctx.projects", Projects.follow)
    adopt_focus = Delegate("ctx.projects", Projects.adopt)
    focus_of = Delegate("project_focus", ProjectFocus.focus_of)
    notebook_moved = Delegate("project_focus", ProjectFocus.notebook_moved)
    notebook_deleted = Delegate("project_focus", ProjectFocus.notebook_deleted)
    notebook_now = Delegate("project_focus", ProjectFocus.notebook_now)
    llm_spend = Delegate("ctx.settings.budget", LLMBudget.spend)

    # -- memories ----------------------------------------------------------------------

    recall_query = Delegate("memory_recall", MemoryRecall.recall)
    import_jsonl = Delegate("memory_writer", MemoryWriter.import_jsonl)
    list_page = Delegate("memory_reader", MemoryReader.list_page)
    audit_records = Delegate("memory_reader", MemoryReader.audit_records)
    rebuild_index = Delegate("memory_upkeep", MemoryMaintenance.rebuild_index)
    embed = Delegate("memory_upkeep", MemoryMaintenance.embed)
    redact_derived_secrets = Delegate("secret_doctor", SecretDoctor.fix)

    # -- knowledge ---------------------------------------------------------------------

    team_status = Delegate("team", TeamProjects.team_status)
    project_settings = Delegate("team", TeamProjects.project_settings)
    resolve_knowledge = Delegate("team", TeamProjects.resolve_knowledge)
    knowledge_history = Delegate("team_history", KnowledgeHistory.history)
    queue_folders = Delegate("knowledge_services.queue.store", TeamQueueStore.folders)
    on_queue_change = Delegate("knowledge_services.events", QueueEvents.on_queue_change)
    knowledge_version = Delegate("knowledge_services.files", KnowledgeFiles.knowledge_version)
    knowledge_doc = Delegate("knowledge_services.files", KnowledgeFiles.knowledge_doc)
    library_status = Delegate("knowledge_services.files", KnowledgeFiles.library_status)
    reorganize_text = Delegate("knowledge_services.files", KnowledgeFiles.reorganize_text)
    expand_knowledge_catalog = Delegate(
        "knowledge_services.context", KnowledgeContext.expand_knowledge_catalog
    )
    record_round = Delegate("knowledge_services.queue", KnowledgeQueue.record_round)
    queue_problems = Delegate("knowledge_services.queue", KnowledgeQueue.queue_problems)
    decision_context = Delegate("knowledge_services.queue", KnowledgeQueue.decision_context)
    purge = Delegate("knowledge_services.purge", ProposalPurge.purge)
    process_all_plan = Delegate("knowledge_services.decisions", KnowledgeDecisions.process_all_plan)
    call_agent_tool = Delegate("knowledge_services.tools", KnowledgeAgentTools.call_agent_tool)
    record_person_text = Delegate("knowledge_services.evidence", AgentEvidence.record_person_text)
    record_agent_output = Delegate("knowledge_services.evidence", AgentEvidence.record_agent_output)
    agent_evidence = Delegate("knowledge_services.evidence", AgentEvidence.sources)
    prepare_injection = Delegate(
        "knowledge_services.preinject", PreinjectReorganize.prepare_injection
    )

    # -- learning, tiers and the cold archive ------------------------------------------

    tier_rows = Delegate("learning_services.tiers", TiersService.tier_rows)
    start_session = Delegate("learning_services.tiers", TiersService.start_session)
    end_session = Delegate("learning_services.tiers", TiersService.end_session)
    clear_session_tier = Delegate("learning_services.tiers", TiersService.clear_session_tier)
    merge_daily = Delegate("learning_services.tiers", TiersService.merge_daily)
    archived = Delegate("learning_services.cold_archive", ColdArchive.archived)
    digest_record = Delegate("learning_services.digest", DigestService.digest_record)
    digest_pending = Delegate("learning_services.digest", DigestService.digest_pending)
    learning_report = Delegate("learning_services.learner", SelfLearner.report)
    learning_candidate = Delegate("learning_services.learner", SelfLearner.candidate)
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
    unreviewed_count = Delegate("learning_services.review", ReviewService.unreviewed_count)
    keep_memory = Delegate("learning_services.review", ReviewService.keep_memory)
    discard_memory = Delegate("learning_services.review", ReviewService.discard_memory)
    promote_memory = Delegate("learning_services.review", ReviewService.promote_memory)
    review_states = Delegate("learning_services.review", ReviewService.review_states)


__all__ = ["MemoryHooks"]
