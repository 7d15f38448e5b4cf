"""Request bodies of the REST API; pydantic turns bad input into a 422 naming the field."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


class ApplyBody(_Body):
    to: Literal["user", "project"]
    project: str | None = None


class ProcessAllBody(_Body):
    to: Literal["user", "project"]
    project: str | None = None


class KnowledgeBody(_Body):
    # The 8,000-character cap is the service's rule; it answers 413 with its message.
    text: str


class SettingsBody(_Body):
    enabled: bool | None = None
    auto_suggestions: bool | None = None
    agents_md_autosync: bool | None = None


class ProjectBody(_Body):
    path: str = Field(min_length=1, description="folder relative to the server's root")
