"""The two knowledge tools an agent gets, as pydantic models and JSON Schema (spec 002 §4.3, §7.2).

``propose_knowledge`` puts a suggestion into the queue (never into context);
``expand_knowledge_catalog`` reads approved entries by catalog label. There is
deliberately no tool to apply, edit or delete knowledge (docs/design.md invariant 5).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ProposeKnowledgeArgs(BaseModel):
    """Suggest a reusable rule or fact for the person to review (it is not used until approved)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    text: str = Field(
        min_length=1,
        max_length=1000,
        description="The rule or fact, one sentence, reusable across analyses. No SQL, "
        "no temp/cache table names, no paths of intermediate files.",
    )
    kind: Literal["rule", "info"] = Field(
        description="rule: what to do or avoid; info: a definition or fact."
    )
    evidence_quote: str = Field(
        min_length=1,
        max_length=1000,
        description="The person's own words, copied verbatim from their message or cell, "
        "that support this proposal. Quotes of your own output are refused.",
    )
    layer: Literal["user", "project"] | None = Field(
        default=None,
        description="Suggested file: user (all work) or project (the focused project). "
        "Default: project when one is focused.",
    )
    project: str | None = Field(
        default=None,
        description="A registered project's id, if not the focused one (other folders are "
        "refused).",
    )


class ExpandKnowledgeCatalogArgs(BaseModel):
    """Load the full approved entries under catalog labels listed in the knowledge context."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    labels: list[str] = Field(
        min_length=1,
        max_length=50,
        description="Exact top-level labels from the catalog; several at once.",
    )


TOOL_MODELS: dict[str, type[BaseModel]] = {
    "propose_knowledge": ProposeKnowledgeArgs,
    "expand_knowledge_catalog": ExpandKnowledgeCatalogArgs,
}


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.pop("title", None)
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return schema


def tool_schemas() -> list[dict[str, Any]]:
    """The agent tool definitions in OpenAI function-calling shape (JSON Schema from pydantic)."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": " ".join((model.__doc__ or "").split()),
                "parameters": _schema(model),
            },
        }
        for name, model in TOOL_MODELS.items()
    ]
