"""Which pending proposals a person asked to see: the queue's search and filters.

The panel pages a long queue (100 at a time), so a search or a filter must be
applied before the page is cut, here, not on the page the browser holds. Pure:
it reads a proposal's JSON data as the REST answer carries it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from ..._i18n import M_
from ...exceptions import ValidationError

Layer = Literal["user", "project"]
Kind = Literal["rule", "info"]
# A proposal's source as the person reads it: an extracted proposal is "from a
# cell" or "from a chat" by where its quote came from; the others by their source.
Source = Literal[
    "cell", "chat", "agent", "import", "correction", "gotcha", "manual", "session-digest"
]
LAYERS: tuple[str, ...] = get_args(Layer)
KINDS: tuple[str, ...] = get_args(Kind)
SOURCES: tuple[str, ...] = get_args(Source)


def _fold(text: str) -> str:
    """Full-width and half-width, upper and lower case, compose the same."""
    return unicodedata.normalize("NFKC", text).casefold()


def source_of(proposal: Mapping[str, Any]) -> str:
    """The proposal's source in the filter's words (``cell`` / ``chat`` for an extraction)."""
    source = str(proposal.get("source") or "")
    if source != "chat-extraction":
        return source
    origin = proposal.get("quote_origin") or {}
    return "cell" if origin.get("cell_id") and not origin.get("message_id") else "chat"


@dataclass(frozen=True)
class QueueFilter:
    """What the person typed and picked; empty fields match everything."""

    text: str = ""
    layer: str = ""
    kind: str = ""
    source: str = ""

    @classmethod
    def parse(
        cls, *, text: str = "", layer: str = "", kind: str = "", source: str = ""
    ) -> QueueFilter:
        """A filter from query parameters; a value outside its list names the field."""
        for field, value, allowed in (
            ("layer", layer, LAYERS),
            ("kind", kind, KINDS),
            ("source", source, SOURCES),
        ):
            if value and value not in allowed:
                raise ValidationError(
                    M_(
                        "{value!r} is not one of: {allowed}",
                        value=value,
                        allowed=", ".join(allowed),
                    ),
                    field=field,
                )
        return cls(text=text.strip(), layer=layer, kind=kind, source=source)

    @property
    def active(self) -> bool:
        return bool(self.text or self.layer or self.kind or self.source)

    def matches(self, proposal: Mapping[str, Any]) -> bool:
        if self.layer and proposal.get("suggested_layer") != self.layer:
            return False
        if self.kind and proposal.get("kind") != self.kind:
            return False
        if self.source and source_of(proposal) != self.source:
            return False
        if not self.text:
            return True
        origin = proposal.get("quote_origin") or {}
        haystack = " ".join(
            str(part or "")
            for part in (
                proposal.get("text"),
                proposal.get("evidence_quote"),
                proposal.get("project"),
                origin.get("notebook_path"),
            )
        )
        folded = _fold(haystack)
        return all(word in folded for word in _fold(self.text).split())
