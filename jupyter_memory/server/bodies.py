"""Request bodies of the REST API; pydantic turns bad input into a 422 naming the field.

Every body is strict (issue 19 F): a switch is a JSON boolean (``"yes"`` or
``1`` is not true), a string is a JSON string, unknown fields are refused,
and ``null`` is refused unless a field lists it in ``_nullable`` (where null
means "none", e.g. the panel's ``{"to": "user", "project": null}``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=False)

    # Fields that accept an explicit null (meaning "none"); any other null is refused.
    _nullable: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_null(cls, value: Any, info: ValidationInfo) -> Any:
        # An omitted optional field keeps its default without reaching here;
        # only an explicit ``null`` does.
        if value is None and info.field_name not in cls._nullable:
            raise ValueError("must not be null: give a value or leave the field out")
        return value


class EmptyBody(_Body):
    """A verb that takes no fields: ``{}`` or no body at all."""


class ApplyBody(_Body):
    _nullable = frozenset({"project"})
    to: Literal["user", "project"]
    project: str | None = None
    # The text of an entry of the target file this one replaces (a contradiction, issue 32).
    replaces: str | None = None


class DismissBody(_Body):
    """``{}``, or the person's reason, which a learned rule's candidate records."""

    reason: str | None = Field(default=None, min_length=1, max_length=2_000)


class ProcessAllBody(_Body):
    """``{}``, or the ``total`` of the plan the person confirmed (refused if the queue changed)."""

    expect: int | None = Field(default=None, ge=0)


class RevertBody(_Body):
    """``{}`` (back to the queue) or ``{"then": "pending"|"dismissed"}``."""

    then: Literal["pending", "dismissed"] = "pending"


class ReorganizeTextBody(_Body):
    """The editor's unsaved text, which may be past the save cap (the way out of it)."""

    text: str = Field(max_length=200_000)


class KnowledgeMergeBody(_Body):
    """The editor's three texts: what it loaded (``base``), its text (``ours``), the newer one."""

    base: str = Field(max_length=200_000)
    ours: str = Field(max_length=200_000)
    theirs: str = Field(max_length=200_000)


class KnowledgeBody(_Body):
    # The 8,000-character cap is the service's rule; it answers 413 with its message.
    text: str
    # The version the text was edited from (GET returns it). Required: the route
    # refuses a save without it, naming ``base`` and where to get it.
    base: str | None = None


class LLMBudgetBody(_Body):
    """The daily LLM budget (llm_budget.py); a field left out keeps its value."""

    calls_per_day: int | None = Field(default=None, ge=0)
    tokens_per_day: int | None = Field(default=None, ge=0)


class SettingsBody(_Body):
    # None only as "left out" (the switch keeps its value); an explicit null is refused.
    enabled: bool | None = None
    auto_suggestions: bool | None = None
    agents_md_autosync: bool | None = None
    llm_budget: LLMBudgetBody | None = None


class ProjectBody(_Body):
    path: str = Field(min_length=1, description="folder relative to the server's root")
