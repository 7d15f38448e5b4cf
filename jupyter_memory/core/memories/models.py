"""The memory file's frontmatter model and the entry it describes (spec 003)."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..._i18n import M_
from ...exceptions import ValidationError
from ..names import reject_unsafe, validate_id, validate_project_id

MAX_TITLE_CHARS = 300
MAX_TEXT_CHARS = 200_000
MAX_TAGS = 50
MAX_TAG_CHARS = 64
_TITLE_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f]")


class MemoryType(str, Enum):
    episodic = "episodic"
    semantic = "semantic"
    procedural = "procedural"
    reflective = "reflective"


class Tier(str, Enum):
    session = "session"
    daily = "daily"
    durable = "durable"


class Source(str, Enum):
    manual = "manual"
    user_correction = "user-correction"
    session_digest = "session-digest"
    auto_gotcha = "auto-gotcha"
    extraction = "extraction"
    agent = "agent"
    import_ = "import"


class EvidenceQuote(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)
    quote: str
    source: str | None = None


def validate_scope(value: str) -> str:
    """``user``, ``project`` or ``agent:<name>`` (an agent's private memories)."""
    if value in ("user", "project"):
        return value
    if value.startswith("agent:"):
        validate_id(value[len("agent:") :], field="scope")
        return value
    raise ValidationError(
        M_("{value!r} is not user, project or agent:<name>", value=value), field="scope"
    )


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class MemoryMeta(BaseModel):
    """Frontmatter of one memory file; unknown keys are kept on round-trip."""

    model_config = ConfigDict(extra="allow", use_enum_values=False, defer_build=True)

    id: str
    title: str = Field(max_length=MAX_TITLE_CHARS)
    type: MemoryType = MemoryType.semantic
    tier: Tier = Tier.durable
    scope: str = "user"
    project: str | None = None
    tags: list[str] = Field(default_factory=list)
    source: Source = Source.manual
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    created: datetime
    updated: datetime
    related: list[str] = Field(default_factory=list)
    # Older memories this one restates with a new value (identity's "update of the
    # same subject", issue 33): recall ranks this one above them and marks them.
    supersedes: list[str] = Field(default_factory=list)
    evidence: list[EvidenceQuote] = Field(default_factory=list)
    reviewed: bool = True
    content_sha256: str = ""

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        return validate_id(v)

    @field_validator("supersedes")
    @classmethod
    def _supersedes(cls, v: list[str]) -> list[str]:
        return list(dict.fromkeys(validate_id(i, field="supersedes") for i in v))

    @field_validator("scope")
    @classmethod
    def _scope(cls, v: str) -> str:
        return validate_scope(v)

    @field_validator("project")
    @classmethod
    def _project(cls, v: str | None) -> str | None:
        return None if v is None else validate_project_id(v)

    @field_validator("title")
    @classmethod
    def _title(cls, v: str) -> str:
        if not v.strip():
            raise ValueError(M_("title must not be empty"))
        if _TITLE_CONTROL.search(v):
            raise ValueError(M_("title contains control characters"))
        return v

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: list[str]) -> list[str]:
        if len(v) > MAX_TAGS:
            raise ValueError(M_("at most {limit} tags", limit=MAX_TAGS))
        out: list[str] = []
        for tag in v:
            tag = str(tag).strip()
            if not tag:
                continue
            if len(tag) > MAX_TAG_CHARS:
                raise ValueError(M_("tag longer than {limit} characters", limit=MAX_TAG_CHARS))
            reject_unsafe(tag, field="tags")
            if tag not in out:
                out.append(tag)
        return out

    @field_validator("created", "updated")
    @classmethod
    def _aware(cls, v: datetime) -> datetime:
        return v if v.tzinfo else v.replace(tzinfo=timezone.utc)


class MemoryEntry(BaseModel):
    """A memory: its frontmatter, its body text, and where it lives."""

    model_config = ConfigDict(frozen=False, defer_build=True)

    meta: MemoryMeta
    text: str = Field(max_length=MAX_TEXT_CHARS)
    path: str | None = None  # relative to its root (e.g. "2026-11-30_semantic_refunds.md")
    layer: str = "user"  # "user" or "project": which root it was read from
    # Not frontmatter: the newest memory restating this one (``get`` fills it in).
    superseded_by: str | None = None

    @property
    def id(self) -> str:
        return self.meta.id

    @property
    def title(self) -> str:
        return self.meta.title

    def to_dict(self) -> dict[str, Any]:
        d = self.meta.model_dump(mode="json")
        d.update({"text": self.text, "path": self.path, "layer": self.layer})
        d["superseded_by"] = self.superseded_by
        return d


def file_name(meta: MemoryMeta, slug: str) -> str:
    """``<YYYY-MM-DD>_<type>_<kebab-slug>.md`` (docs/design.md, "Where things live")."""
    return f"{meta.created.date().isoformat()}_{meta.type.value}_{slug}.md"
