"""Knowledge proposals (spec 002 §4): the queue item model and its file format.

One Markdown file per proposal in ``<memory home>/queue/``: YAML frontmatter
with every field but the text, and the proposed entry as the body, so a
person can read the queue with ``cat`` and git merges never collide. The
frontmatter is read with :mod:`.frontmatter_io`'s safe splitter and loader
(size caps, no YAML aliases).
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from ..._i18n import M_
from ...exceptions import ParseError
from ..frontmatter_io import decode_file, split_frontmatter
from ..names import slugify, validate_id, validate_project_id
from ..validation import first_problem, validation_error

Kind = Literal["rule", "info"]
Status = Literal["pending", "applied", "dismissed", "superseded"]
ProposalSource = Literal[
    "chat-extraction", "agent", "correction", "gotcha", "manual", "session-digest", "import"
]
Layer = Literal["user", "project"]

KINDS: tuple[str, ...] = ("rule", "info")
# session-digest: a person promoted a memory the session digest extracted (issue 8)
# import: a person imported another tool's rules or instructions (issue 18)
SOURCES: tuple[str, ...] = (
    "chat-extraction",
    "agent",
    "correction",
    "gotcha",
    "manual",
    "session-digest",
    "import",
)
LAYERS: tuple[str, ...] = ("user", "project")
MAX_PROPOSAL_CHARS = 1_000
MAX_REF_CHARS = 500
_LINE_BREAKS = re.compile("\r\n|[\r\x85\u2028\u2029]")


class QuoteOrigin(BaseModel):
    """Where the evidence quote was found."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    message_id: str | None = Field(default=None, max_length=MAX_REF_CHARS)
    cell_id: str | None = Field(default=None, max_length=MAX_REF_CHARS)
    notebook_path: str | None = Field(default=None, max_length=MAX_REF_CHARS)


class Proposal(BaseModel):
    """A suggested knowledge entry waiting for a person's Apply or Dismiss."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    id: str
    text: str = Field(min_length=1, max_length=MAX_PROPOSAL_CHARS)
    kind: Kind
    evidence_quote: str = Field(min_length=1)
    quote_origin: QuoteOrigin = Field(default_factory=QuoteOrigin)
    source: ProposalSource
    suggested_layer: Layer = "user"
    project: str | None = None
    created: datetime
    status: Status = "pending"
    supersedes: str | None = None
    superseded_by: str | None = None
    # The other proposal's text, so a card says what was replaced in words, not ids.
    supersedes_text: str | None = Field(default=None, max_length=MAX_PROPOSAL_CHARS)
    superseded_by_text: str | None = Field(default=None, max_length=MAX_PROPOSAL_CHARS)
    decided_at: datetime | None = None
    applied_to: Layer | None = None
    applied_project: str | None = None
    # Set when a person reverted its Apply (issue 32): the card says "reverted".
    reverted_at: datetime | None = None
    conversation: str | None = Field(default=None, max_length=MAX_REF_CHARS)
    dedup_hash: str = ""

    @field_validator("id", "supersedes", "superseded_by")
    @classmethod
    def _ids(cls, v: str | None) -> str | None:
        return None if v is None else validate_id(v)

    @field_validator("project", "applied_project")
    @classmethod
    def _project(cls, v: str | None) -> str | None:
        return None if v is None else validate_project_id(v)

    @field_validator("text", "evidence_quote")
    @classmethod
    def _text(cls, v: str) -> str:
        if not v.strip():
            raise ValueError(M_("must not be empty"))
        if "\x00" in v:
            raise ValueError(M_("must not contain NUL characters"))
        # YAML (and git) would rewrite other line breaks; keep one kind.
        return _LINE_BREAKS.sub("\n", v)

    @field_validator("created", "decided_at", "reverted_at")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        if v is None:
            return None
        return v if v.tzinfo else v.replace(tzinfo=timezone.utc)

    @property
    def is_pending(self) -> bool:
        return self.status == "pending"

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def build_proposal(**fields: Any) -> Proposal:
    try:
        return Proposal(**fields)
    except PydanticValidationError as exc:
        raise validation_error(exc, default="proposal") from exc


def proposal_file_name(p: Proposal) -> str:
    """``<YYYY-MM-DD>_<kind>_<slug>-<id>.md``: dated, readable, unique by id."""
    slug = slugify(p.text, max_len=40)
    return f"{p.created.date().isoformat()}_{p.kind}_{slug}-{p.id}.md"


def render_proposal(p: Proposal) -> str:
    meta = p.model_dump(mode="json", exclude={"text"})
    meta["quote_origin"] = {k: v for k, v in meta["quote_origin"].items() if v is not None}
    meta = {k: v for k, v in meta.items() if v is not None and v != {}}
    import yaml  # on first use: a CLI call or an MCP start need not pay for it

    fm = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{fm}---\n\n{p.text}\n"


def parse_proposal(data: bytes | str, *, path: os.PathLike[str] | str | None = None) -> Proposal:
    text = data if isinstance(data, str) else decode_file(data, path=path)
    meta, body = split_frontmatter(text, path=path)
    if body.endswith("\n"):
        body = body[:-1]
    meta["text"] = body
    try:
        return Proposal.model_validate(meta)
    except PydanticValidationError as exc:
        field, msg = first_problem(exc, default="proposal")
        raise ParseError(M_("field {field!r}: {msg}", field=field, msg=msg), path=path) from exc
