"""Governed knowledge on the ``Memory`` facade (issue 3, spec 002).

:class:`KnowledgeMixin` gathers the knowledge files and switches
(:mod:`.knowledge_files`) and the queue (:mod:`.knowledge_queue`), and adds
:meth:`~KnowledgeMixin.call_agent_tool`, the only door from an agent's tool
call into knowledge: it dispatches ``propose_knowledge`` and
``expand_knowledge_catalog`` and nothing else (docs/design.md invariant 5).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError as PydanticValidationError

from ...core.knowledge.agent_tools import (
    TOOL_MODELS,
    ExpandKnowledgeCatalogArgs,
    ProposeKnowledgeArgs,
)
from ...core.validation import validation_error
from ...exceptions import NotFoundError
from .queue import KnowledgeQueueMixin


class KnowledgeMixin(KnowledgeQueueMixin):
    def call_agent_tool(
        self, name: str, arguments: dict[str, Any], *, conversation: str | None = None
    ) -> dict[str, Any]:
        """Run one agent tool call by name with JSON arguments (validated by the tool's model)."""
        model = TOOL_MODELS.get(name)
        if model is None:
            raise NotFoundError(f"no agent tool named {name!r}")
        try:
            args = model.model_validate(arguments)
        except PydanticValidationError as exc:
            raise validation_error(exc, default="arguments") from exc
        if isinstance(args, ProposeKnowledgeArgs):
            return self.propose_knowledge(
                args.text,
                args.kind,
                args.evidence_quote,
                args.layer,
                args.project,
                conversation=conversation,
            )
        assert isinstance(args, ExpandKnowledgeCatalogArgs)
        return self.expand_knowledge_catalog(args.labels)


__all__ = ["KnowledgeMixin"]
