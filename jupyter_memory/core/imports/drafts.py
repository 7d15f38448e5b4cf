"""What a source file turns into: memory drafts, proposal drafts, and skipped items."""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

SOURCES: tuple[str, ...] = ("basic-memory", "nbi", "agents-md", "mem0", "claude-memory")


@dataclass
class MemoryDraft:
    """A memory to store, with the key that says it was imported already."""

    text: str
    title: str
    key: str  # "<source>:<identity in the source>": a second import finds it
    type: str = "semantic"
    tags: list[str] = field(default_factory=list)
    created: datetime | None = None
    agent: str | None = None  # mem0 agent_id → scope agent:<name>
    extra: dict[str, Any] = field(default_factory=dict)  # kept as frontmatter keys
    line: int | None = None  # where in the file, for reports
    # The person's own note (True) or text an agent wrote (False: it waits for review).
    reviewed: bool = True


@dataclass
class ProposalDraft:
    """A knowledge proposal; ``quote`` is the source line(s) it came from."""

    text: str
    kind: str  # rule | info
    quote: str
    line: int
    layer: str | None = None  # None: the import's default (project when one is given)


@dataclass
class ParsedFile:
    """One source file's drafts, and the items inside it left out on purpose."""

    path: str  # relative to the imported folder
    memories: list[MemoryDraft] = field(default_factory=list)
    proposals: list[ProposalDraft] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (what, why)


def text_key(text: str) -> str:
    """The key two memories with the same text share, however spaced or cased.

    Cheaper than the proposals' ``dedup_key`` (no per-character punctuation
    pass), which matters at 10,000 notes; a memory is a whole text, so
    spacing and case are what copies differ in.
    """
    norm = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()
