"""The knowledge tools an agent may call by name (issue 3, spec 002).

:class:`KnowledgeAgentTools` runs a tool call that arrives as a name and JSON
arguments (the ``%%ask`` loop, tool-calling LLM clients): it dispatches
``propose_knowledge`` and ``expand_knowledge_catalog`` and nothing else, so no
tool call reaches apply, save, dismiss or reorganize (docs/design.md
invariant 5). It is not the only way in: :class:`~jupyter_memory.service.agent_access.AgentAccess`
(MCP, Jupyter AI) calls :meth:`KnowledgeQueue.propose_knowledge` and the
catalog expansion directly, under the same rules.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError as PydanticValidationError

from ..._i18n import M_
from ...core.knowledge.agent_tools import (
    TOOL_MODELS,
    ExpandKnowledgeCatalogArgs,
    ProposeKnowledgeArgs,
)
from ...core.validation import validation_error
from ...exceptions import NotFoundError
from .agent_context import KnowledgeContext
from .queue import KnowledgeQueue
from .results import CatalogExpansion, ProposeResult


class KnowledgeAgentTools:
    """Dispatch of the two knowledge tools to the queue and the agent context."""

    def __init__(self, queue: KnowledgeQueue, context: KnowledgeContext) -> None:
        self.queue = queue
        self.context = context

    def call_agent_tool(
        self, name: str, arguments: dict[str, Any], *, conversation: str | None = None
    ) -> ProposeResult | CatalogExpansion:
        """Run one agent tool call by name with JSON arguments (validated by the tool's model)."""
        model = TOOL_MODELS.get(name)
        if model is None:
            raise NotFoundError(M_("no agent tool named {name!r}", name=name))
        try:
            args = model.model_validate(arguments)
        except PydanticValidationError as exc:
            raise validation_error(exc, default="arguments") from exc
        if isinstance(args, ProposeKnowledgeArgs):
            return self.queue.propose_knowledge(
                args.text,
                args.kind,
                args.evidence_quote,
                args.layer,
                args.project,
                conversation=conversation,
            )
        assert isinstance(args, ExpandKnowledgeCatalogArgs)
        return self.context.expand_knowledge_catalog(args.labels)


__all__ = ["KnowledgeAgentTools"]
