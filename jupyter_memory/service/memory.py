"""The ``Memory`` facade: the verbs a person calls from Python.

Adapters (magics, CLI, REST, MCP) call these verbs and ``memory.hooks`` (the
plumbing: recording what was typed, digest rounds, panel pages, progress; see
service/hooks.py) and render the results; they never touch files. Each verb
forwards in one line to the domain service that owns it (service/delegation.py),
so its signature, docstring and types are that service's own. Clock and id
generator are injected for tests. The names are pinned by tests/test_public_api.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .delegation import Delegate, Later
from .hooks import MemoryHooks

# The domain services' classes: real for the type checker, imported on first use
# when running, so a start imports only what its call runs (service/delegation.py).
# Importing the class opens nothing: the store and its models load with the first
# ``Memory(...)``, the domain services with the first verb that needs each.
if TYPE_CHECKING:
    from ..core.llm import LLMClient
    from .imports.service import MemoryImports
    from .knowledge.agent_context import KnowledgeContext
    from .knowledge.decisions import KnowledgeDecisions
    from .knowledge.files import KnowledgeFiles
    from .knowledge.queue import KnowledgeQueue
    from .knowledge.revert import KnowledgeRevert
    from .learning.candidates import SelfLearner
    from .learning.digest import DigestService
    from .learning.review import ReviewService
    from .memories.cold_archive import ColdArchive
    from .memories.maintenance import MemoryMaintenance
    from .memories.reader import MemoryReader
    from .memories.recall_keywords import KeywordRecall
    from .memories.writer import MemoryWriter
    from .project_focus import ProjectFocus
    from .projects import Projects
    from .settings import Settings
    from .team import TeamProjects
else:
    _S = "jupyter_memory.service."
    MemoryImports = Later(_S + "imports.service", "MemoryImports")
    KnowledgeContext = Later(_S + "knowledge.agent_context", "KnowledgeContext")
    KnowledgeDecisions = Later(_S + "knowledge.decisions", "KnowledgeDecisions")
    KnowledgeFiles = Later(_S + "knowledge.files", "KnowledgeFiles")
    KnowledgeQueue = Later(_S + "knowledge.queue", "KnowledgeQueue")
    KnowledgeRevert = Later(_S + "knowledge.revert", "KnowledgeRevert")
    SelfLearner = Later(_S + "learning.candidates", "SelfLearner")
    DigestService = Later(_S + "learning.digest", "DigestService")
    ReviewService = Later(_S + "learning.review", "ReviewService")
    ColdArchive = Later(_S + "memories.cold_archive", "ColdArchive")
    MemoryMaintenance = Later(_S + "memories.maintenance", "MemoryMaintenance")
    MemoryReader = Later(_S + "memories.reader", "MemoryReader")
    KeywordRecall = Later(_S + "memories.recall_keywords", "KeywordRecall")
    MemoryWriter = Later(_S + "memories.writer", "MemoryWriter")
    ProjectFocus = Later(_S + "project_focus", "ProjectFocus")
    Projects = Later(_S + "projects", "Projects")
    Settings = Later(_S + "settings", "Settings")
    TeamProjects = Later(_S + "team", "TeamProjects")

# Names this facade had before the plumbing moved behind ``hooks``, or under
# another name: an old call gets an error saying where the name is now.
RENAMED = {"list": "memories"}


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
        from ..core.memories.models import utcnow
        from .context import ServiceContext
        from .memories.semantic import SemanticRecall, default_embedder_factory
        from .paths import resolve_home

        # Optional embeddings (docs/recall.md): None = on when the extra is installed.
        embeddings = SemanticRecall(default_embedder_factory(semantic))
        ctx = ServiceContext.open(
            resolve_home(home),
            clock=clock or utcnow,
            actor=actor,
            semantic=embeddings,
            id_factory=id_factory,
        )
        self.hooks = MemoryHooks(ctx, embeddings)
        """The adapters' plumbing and the domain services (service/hooks.py)."""
        if project is not None:
            self.focus(project)

    @cached_property
    def _imports(self) -> MemoryImports:
        from .imports.service import MemoryImports  # the importers load for an import only

        return MemoryImports(self)

    if not TYPE_CHECKING:  # mypy keeps checking every attribute; this is for a person

        def __getattr__(self, name: str) -> Any:
            if name in RENAMED:
                where = f"Memory.{RENAMED[name]}"
            elif not name.startswith("_") and hasattr(MemoryHooks, name):
                where = f"Memory.hooks.{name} (adapter plumbing)"
            else:
                raise AttributeError(f"'Memory' object has no attribute {name!r}")
            raise AttributeError(f"'Memory' object has no attribute {name!r}: it is {where}")

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- where it works ----------------------------------------------------------------

    @property
    def home(self) -> Path:
        """The memory home: ``$JUPYTER_MEMORY_HOME``, else ``<jupyter data dir>/memory``."""
        return self.hooks.ctx.home

    @property
    def project_id(self) -> str | None:
        """The focused project's id, or ``None`` (the user layer only)."""
        return self.hooks.ctx.projects.project_id

    focus = Delegate("hooks.project_focus", ProjectFocus.focus)
    register_project = Delegate("hooks.ctx.projects", Projects.register)
    project_init = Delegate("hooks.team", TeamProjects.project_init)

    # -- settings ----------------------------------------------------------------------

    @property
    def settings(self) -> dict[str, Any]:
        """The switches: ``enabled`` (master), ``auto_suggestions``, ``extract_max_messages``, ``llm``."""
        return self.hooks.ctx.settings.read()

    update_settings = Delegate("hooks.ctx.settings", Settings.update)

    @property
    def enabled(self) -> bool:
        """The master switch: off, nothing is captured, proposed or handed to an agent."""
        return self.hooks.ctx.settings.enabled

    @property
    def llm(self) -> LLMClient | None:
        """The configured LLM client, or ``None`` (the deterministic default)."""
        return self.hooks.ctx.settings.llm

    @llm.setter
    def llm(self, client: LLMClient | None) -> None:
        self.hooks.ctx.settings.llm = client

    # -- memories (service/memories/) --------------------------------------------------

    remember = Delegate("hooks.memory_writer", MemoryWriter.remember)
    recall = Delegate("hooks.keyword_recall", KeywordRecall.recall)
    update = Delegate("hooks.memory_writer", MemoryWriter.update)
    forget = Delegate("hooks.memory_writer", MemoryWriter.forget)
    get = Delegate("hooks.memory_reader", MemoryReader.get)
    memories = Delegate("hooks.memory_reader", MemoryReader.list)
    stats = Delegate("hooks.memory_reader", MemoryReader.stats)
    export = Delegate("hooks.memory_reader", MemoryReader.export)
    import_from = Delegate("_imports", MemoryImports.import_from)
    archive = Delegate("hooks.learning_services.cold_archive", ColdArchive.archive)
    restore = Delegate("hooks.learning_services.cold_archive", ColdArchive.restore)
    doctor = Delegate("hooks.memory_upkeep", MemoryMaintenance.doctor)
    close = Delegate("hooks.memory_upkeep", MemoryMaintenance.close)

    # -- knowledge (service/knowledge/) ------------------------------------------------

    propose = Delegate("hooks.knowledge_services.queue", KnowledgeQueue.propose)
    propose_knowledge = Delegate("hooks.knowledge_services.queue", KnowledgeQueue.propose_knowledge)
    extract = Delegate("hooks.knowledge_services.queue", KnowledgeQueue.extract)
    queue = Delegate("hooks.knowledge_services.queue", KnowledgeQueue.queue)
    proposal = Delegate("hooks.knowledge_services.queue", KnowledgeQueue.proposal)
    apply = Delegate("hooks.knowledge_services.decisions", KnowledgeDecisions.apply)
    dismiss = Delegate("hooks.knowledge_services.decisions", KnowledgeDecisions.dismiss)
    process_all = Delegate("hooks.knowledge_services.decisions", KnowledgeDecisions.process_all)
    revert = Delegate("hooks.knowledge_services.revert", KnowledgeRevert.revert)
    context = Delegate("hooks.knowledge_services.context", KnowledgeContext.context)
    knowledge = Delegate("hooks.knowledge_services.files", KnowledgeFiles.knowledge)
    read_knowledge = Delegate("hooks.knowledge_services.files", KnowledgeFiles.read_knowledge)
    save_knowledge = Delegate("hooks.knowledge_services.files", KnowledgeFiles.save_knowledge)
    reorganize = Delegate("hooks.knowledge_services.files", KnowledgeFiles.reorganize)

    # -- learning (service/learning/) --------------------------------------------------

    digest = Delegate("hooks.learning_services.digest", DigestService.digest)
    unreviewed = Delegate("hooks.learning_services.review", ReviewService.unreviewed)
    review_memory = Delegate("hooks.learning_services.review", ReviewService.review_memory)
    learning_candidates = Delegate("hooks.learning_services.learner", SelfLearner.candidates)
    promote_candidate = Delegate("hooks.learning_services.learner", SelfLearner.promote)
    dismiss_candidate = Delegate("hooks.learning_services.learner", SelfLearner.dismiss_candidate)


__all__ = ["RENAMED", "Memory"]
