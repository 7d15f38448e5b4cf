"""The knowledge services of one ``Memory``, built from its context and wired together.

The AGENTS.md auto-sync is registered here as the queue's after-Apply hook, so
the queue knows nothing of AGENTS.md and :mod:`.agents_md` nothing of the
``Memory`` facade (one-way imports: memory → wiring → queue, agents_md).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..context import ServiceContext
from .agent_context import KnowledgeContext
from .agent_evidence import AgentEvidence
from .agent_tools import KnowledgeAgentTools
from .agents_md import AutosyncAfterApply
from .decisions import KnowledgeDecisions
from .events import QueueEvents
from .files import KnowledgeFiles
from .preinject import PreinjectReorganize
from .purge import ProposalPurge
from .queue import KnowledgeQueue
from .revert import KnowledgeRevert
from .shared_queue import TeamQueueStore


@dataclass(frozen=True)
class KnowledgeServices:
    files: KnowledgeFiles
    events: QueueEvents
    queue: KnowledgeQueue
    decisions: KnowledgeDecisions
    purge: ProposalPurge
    context: KnowledgeContext
    tools: KnowledgeAgentTools
    evidence: AgentEvidence
    preinject: PreinjectReorganize
    revert: KnowledgeRevert


def knowledge_services(ctx: ServiceContext) -> KnowledgeServices:
    """Build the services over one queue store; register the AGENTS.md auto-sync hook."""
    files = KnowledgeFiles(ctx)
    # The person's queue, plus the shared queues of team projects (issue 17).
    store = TeamQueueStore(ctx.user.layout, ctx.projects, ctx.who)
    events = QueueEvents(store)
    queue = KnowledgeQueue(ctx, files, store, events)
    decisions = KnowledgeDecisions(ctx, files, queue, events)
    decisions.on_project_applied(AutosyncAfterApply(ctx, files))
    purge = ProposalPurge(ctx, queue, events)
    context = KnowledgeContext(ctx, files)
    tools = KnowledgeAgentTools(queue, context)
    evidence = AgentEvidence(ctx)
    preinject = PreinjectReorganize(ctx, files)
    revert = KnowledgeRevert(ctx, files, queue, events, decisions)
    return KnowledgeServices(
        files, events, queue, decisions, purge, context, tools, evidence, preinject, revert
    )


__all__ = ["KnowledgeServices", "knowledge_services"]
