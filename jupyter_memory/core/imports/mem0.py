"""mem0 exports (mem0ai 2.0, ``Memory.get_all`` / ``MemoryClient.get_all``) → memories.

An export is a JSON list of memory items, or mem0's own ``{"results": [...]}``
answer. An item has ``id``, ``memory`` (the text), ``hash``, ``metadata``,
``created_at``, ``updated_at`` and, promoted from the payload, ``user_id``,
``agent_id``, ``run_id``, ``actor_id``, ``role``. ``agent_id`` becomes the
``agent:<name>`` scope; the creation time is kept; the rest is kept under
``mem0`` in the memory's frontmatter.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from typing import Any

from ..._i18n import M_
from ...exceptions import ParseError
from .bounds import MAX_IMPORT_ITEMS, check_depth, over_item_cap, too_deep
from .drafts import MemoryDraft

_AGENT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$")
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
# metadata.type / category words that name a kind of memory
_TYPES = {
    "procedural": "procedural",
    "procedural_memory": "procedural",
    "episodic": "episodic",
    "semantic": "semantic",
    "reflective": "reflective",
}


_AGENT_ROLES = frozenset({"assistant", "agent", "ai"})


def agent_name(agent_id: str) -> str:
    """mem0's ``agent_id`` as one of our names (letters, digits, ``-`` and ``_``).

    An id with other characters (Chinese, spaces) keeps its ASCII part and
    gains a short hash of the whole id, so two agents never share a scope.
    """
    if _AGENT_RE.match(agent_id):
        return agent_id
    digest = hashlib.sha1(agent_id.encode("utf-8")).hexdigest()[:8]
    base = _NAME_CHARS.sub("-", agent_id).strip("-_")[:60]
    return f"{base}-{digest}" if base else f"agent-{digest}"


def _when(value: Any, *, where: str, path: str) -> datetime | None:
    if value in (None, ""):
        return None
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise ParseError(
            M_("{where}: 'created_at' is not an ISO time: {value!r}", where=where, value=value),
            path=path,
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def items_of(text: str, *, path: str) -> list[Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(
            M_("invalid JSON: {msg}", msg=exc.msg), path=path, line=exc.lineno
        ) from None
    except RecursionError:
        raise too_deep(path) from None
    check_depth(data, path=path)
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        data = data["results"]
    if not isinstance(data, list):
        raise ParseError(
            M_('not a mem0 export: expected a JSON list of memories or {{"results": [...]}}'),
            path=path,
        )
    return data


def parse_export(
    path: str, text: str, *, room: int | None = None, cap: int = MAX_IMPORT_ITEMS
) -> list[MemoryDraft]:
    """Every item of one export file; the first bad item names itself and fails the file.

    More items than ``room`` (what the run's ``cap`` leaves): the run's
    :class:`ValidationError`, before any draft is built.
    """
    out = []
    items = items_of(text, path=path)
    if room is not None and len(items) > room:
        raise over_item_cap(path, cap)
    for number, item in enumerate(items, start=1):
        where = f"item {number}"
        if not isinstance(item, dict):
            raise ParseError(M_("{where}: not a JSON object", where=where), path=path)
        words = item.get("memory")
        if not isinstance(words, str) or not words.strip():
            raise ParseError(
                M_("{where}: 'memory' must be a non-empty string", where=where), path=path
            )
        ident = item.get("id")
        if not isinstance(ident, (str, int)) or str(ident) == "":
            raise ParseError(M_("{where}: 'id' is missing", where=where), path=path)
        metadata = item.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise ParseError(M_("{where}: 'metadata' must be an object", where=where), path=path)
        kept = {
            k: item[k]
            for k in (
                "id",
                "hash",
                "user_id",
                "agent_id",
                "run_id",
                "actor_id",
                "role",
                "updated_at",
            )
            if item.get(k) not in (None, "")
        }
        if metadata:
            kept["metadata"] = metadata
        if item.get("categories"):
            kept["categories"] = item["categories"]
        agent = item.get("agent_id")
        # mem0 stores what its LLM extracted from a conversation; an item of an
        # agent (its agent_id, or said by the assistant) is the agent's text, not
        # the person's: it arrives unreviewed (invariant 3).
        by_agent = agent not in (None, "") or str(item.get("role") or "").lower() in _AGENT_ROLES
        kind = str(metadata.get("type") or metadata.get("memory_type") or "").lower()
        tags = [str(c) for c in item.get("categories") or [] if isinstance(c, str)]
        first = " ".join(words.split())
        out.append(
            MemoryDraft(
                text=words,
                title=first[:77] + "…" if len(first) > 80 else first,
                key=f"mem0:{ident}",
                type=_TYPES.get(kind, "semantic"),
                tags=tags,
                created=_when(item.get("created_at"), where=where, path=path),
                agent=agent_name(str(agent)) if agent not in (None, "") else None,
                extra={"mem0": kept},
                line=number,
                reviewed=not by_agent,
            )
        )
    return out
