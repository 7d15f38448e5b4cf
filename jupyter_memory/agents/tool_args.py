"""Arguments of the agent tools beyond the knowledge pair, as pydantic models.

``propose_knowledge`` and ``expand_knowledge_catalog`` are described by the
models behind :func:`jupyter_memory.tool_schemas`; the models here describe
``memory_context``, ``recall``, ``remember``, ``case_note`` and ``case_index``.
Every surface (MCP server, Jupyter AI tools, ``%%ask``) takes its argument
descriptions from these models, so one edit changes what every agent reads.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from ..core.validation import validation_error

MemoryKind = Literal["episodic", "semantic", "procedural", "reflective"]
TierName = Literal["session", "daily", "durable"]
LevelName = Literal["index", "snippet", "full"]
_ArgsT = TypeVar("_ArgsT", bound=BaseModel)
CaseEntryType = Literal["discuss", "hesitate", "insight", "observe", "think"]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemoryContextArgs(_Args):
    project: str | None = Field(
        default=None,
        description="Id of a registered project (or the folder of one) whose approved "
        "knowledge to include (default: the project the person focused for you). "
        "Other folders are refused.",
    )


class RecallArgs(_Args):
    query: str = Field(
        default="",
        max_length=10_000,
        description="Free-text query, English or Chinese; empty lists the most relevant memories.",
    )
    type: MemoryKind | None = Field(default=None, description="Only memories of this type.")
    tier: TierName | None = Field(default=None, description="Only memories of this tier.")
    tags: list[str] = Field(default_factory=list, description="Only memories with all these tags.")
    recent: str | None = Field(
        default=None,
        description="Only memories changed within this window, e.g. '7d', '12h', '2w'.",
    )
    project: str | None = Field(
        default=None, description="Search this registered project (its id, or its folder)."
    )
    limit: int = Field(default=10, ge=1, le=50, description="Maximum number of results (1-50).")
    level: LevelName = Field(
        default="snippet",
        description="Detail per hit: 'index' (title only), 'snippet' (matching lines) or 'full'.",
    )


class RememberArgs(_Args):
    text: str = Field(min_length=1, max_length=20_000, description="What to remember.")
    title: str | None = Field(default=None, max_length=300, description="A short title.")
    type: MemoryKind = Field(default="semantic", description="Kind of memory.")
    tags: list[str] = Field(default_factory=list, description="Tags for finding it again.")
    project: str | None = Field(
        default=None, description="Keep it with this registered project (its id)."
    )


class CaseNoteArgs(_Args):
    case: str = Field(description="Case id, e.g. 'CASE-2026-001' (a folder under cases/).")
    type: CaseEntryType = Field(
        description="Entry type (spec 000): discuss (a branch explored but not pursued), "
        "hesitate (a doubt to verify), insight (a speculative idea), observe (an informal "
        "behavioural signal), think (the reasoning behind a key decision)."
    )
    title: str = Field(min_length=1, max_length=200, description="One-line title of the entry.")
    body: str = Field(min_length=1, max_length=20_000, description="The entry's text.")
    evidence: list[str] = Field(
        default_factory=list, description="Evidence references (registry ids, files, quotes)."
    )
    hypotheses: list[str] = Field(
        default_factory=list, description="Hypothesis ids this entry supports or refutes."
    )


class CaseIndexArgs(_Args):
    case: str = Field(description="Case id, e.g. 'CASE-2026-001'.")


def described(model: type[BaseModel], name: str) -> Any:
    """``Annotated[<field type>, Field(description=…)]`` for a tool function's parameter."""
    info = model.model_fields[name]
    return Annotated[info.annotation, Field(description=info.description)]


def parse_args(model: type[_ArgsT], values: dict[str, Any]) -> _ArgsT:
    try:
        return model.model_validate(values)
    except PydanticValidationError as exc:
        raise validation_error(exc, default="arguments") from None
