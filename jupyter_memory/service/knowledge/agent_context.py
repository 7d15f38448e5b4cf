"""What an agent sees: the context block of approved knowledge and catalog expansion.

Decided here and only here (docs/design.md invariant 3): approved knowledge
files, nothing from the queue, nothing at all when memory is disabled; and in
the same block, the memories the person wrote or reviewed by spec 003's tiers
(chosen by :class:`~..memories.agent_tiers.AgentMemoryTiers`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._i18n import M_
from ...core.knowledge.context import LayerSource, build_context, expand_catalog
from ...exceptions import PolicyError, ValidationError
from ..context import ServiceContext
from ..memories.agent_tiers import AgentMemoryTiers
from .files import KnowledgeFiles, ProjectArg
from .results import CatalogExpansion

MAX_EXPAND_LABELS = 50
CONFLICT_NOTICE = (
    "this file has an unresolved merge conflict; its last clean version is shown "
    "until the person resolves it"
)


class KnowledgeContext:
    """The agent's view of the knowledge files; reading it never rewrites them.

    The pre-inject reorganize is a separate step an agent surface takes before
    a request that injects the block (:mod:`.preinject`).
    """

    def __init__(self, ctx: ServiceContext, files: KnowledgeFiles) -> None:
        self.ctx = ctx
        self.files = files
        self.memory_tiers = AgentMemoryTiers(ctx)

    def _sources(self, project: ProjectArg | None) -> list[LayerSource]:
        sources = []
        layers: list[tuple[str, ProjectArg | None]] = [("user", None)]
        if project is not None or self.ctx.projects.project_root is not None:
            layers.append(("project", project))
        for layer, proj in layers:
            _, root, pid = self.files.layer_root(layer, proj)
            loaded = self.files.file_of(root).load()
            # A file git left conflicted is never injected as it is: this
            # clone's side (the last clean version) is, with a notice.
            notice = CONFLICT_NOTICE if loaded.conflict is not None else ""
            sources.append(LayerSource(layer, str(loaded.path), loaded.doc, pid, notice))
        return sources

    def context(
        self,
        project: ProjectArg | None = None,
        *,
        conversation: str | None = None,
        agent: str | None = None,
        query: str = "",
    ) -> str:
        """The delimited block for an agent: approved knowledge, then memories by tier.

        ``agent`` adds that agent's own reviewed memories (no ``agent:*`` scope
        without one); ``query`` is the conversation so far (the person's latest
        words), which decides the WARM tier. ``""`` when disabled. Reading the
        block never reorganizes a file, whatever ``conversation`` asks for it
        (that is :meth:`.preinject.PreinjectReorganize.prepare_injection`).
        """
        if not self.ctx.settings.enabled:
            return ""
        sources = self._sources(project)
        tiers = self.memory_tiers.tiers(project, agent=agent, query=query)
        return build_context(sources, tiers)

    def expand_knowledge_catalog(
        self, labels: str | Sequence[str], project: ProjectArg | None = None
    ) -> CatalogExpansion:
        """Full entries for exact catalog labels (several at once) and the unknown ones."""
        if not self.ctx.settings.enabled:
            raise PolicyError(M_("memory is disabled: there is no knowledge to expand"))
        wanted = [labels] if isinstance(labels, str) else list(labels)
        if not wanted:
            raise ValidationError(M_("give at least one label"), field="labels")
        if len(wanted) > MAX_EXPAND_LABELS:
            raise ValidationError(
                M_(
                    "at most {limit} labels per call",
                    limit=MAX_EXPAND_LABELS,
                ),
                field="labels",
            )
        for label in wanted:
            if not isinstance(label, str) or not label.strip() or len(label) > 500:
                raise ValidationError(M_("each label must be a non-empty string"), field="labels")
        found = expand_catalog(self._sources(project), wanted)
        return CatalogExpansion(found.entries, found.unknown)


__all__ = ["MAX_EXPAND_LABELS", "KnowledgeContext"]
