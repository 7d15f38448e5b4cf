"""What recall returns: one hit per memory, at a disclosure level."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel


class RecallHit(BaseModel):
    id: str
    title: str
    text: str  # empty at level "index", a window at "snippet", the body at "full"
    type: str
    tier: str
    scope: str
    project: str | None = None
    tags: list[str] = []
    source: str
    score: float
    attention: float
    heat: str
    reviewed: bool
    created: datetime
    updated: datetime
    layer: str
    path: str  # absolute path of the Markdown file
    level: str
    tokens: int

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
