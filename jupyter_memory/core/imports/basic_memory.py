"""basic-memory notes (basic-memory 0.22, docs/NOTE-FORMAT.md) ↔ our memories.

A note is Markdown with optional frontmatter (``title``, ``type``, ``tags``,
``permalink``, ``created``, ``modified``, any custom keys), observations
``- [category] text #tag (context)`` and relations ``- rel_type [[Target]]``.
The note's text becomes the memory's text unchanged, so observations and
relations stay where the person wrote them; the frontmatter that has no
field of ours is kept as frontmatter keys (``permalink``, ``note_type``,
``note_meta``), and the relations are listed in ``relations`` for reading.
:func:`render_note` writes a memory back as a note, so leaving is as easy as
arriving.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any

from ..._i18n import M_
from ...exceptions import ParseError
from ..memories.models import MAX_TAG_CHARS, MAX_TAGS
from ..names import ascii_slug
from .drafts import MemoryDraft
from .markdown import split_optional_frontmatter

# basic-memory's own frontmatter fields; anything else is the note's custom metadata.
STANDARD_KEYS = frozenset({"title", "type", "tags", "permalink", "created", "modified"})
_OBSERVATION_RE = re.compile(r"^[ \t]*[-*][ \t]+\[([^\[\]()]+)\][ \t]+(.+)$")
_RELATION_RE = re.compile(
    r"""^[ \t]*[-*][ \t]+(?:"([^"]+)"|'([^']+)'|([^\s\[\]"']+))[ \t]+\[\[([^\]]+)\]\][ \t]*(?:\(([^()]*)\))?[ \t]*$"""
)
_TASK = frozenset({" ", "x", "X", "-", "/", ">", "?"})
_UNSAFE_TAG = re.compile(r"[/\\\x00-\x1f\x7f]")

# The note's type names the kind of memory; words are matched in lower case.
_EPISODIC: tuple[str, ...] = (
    "meeting",
    "journal",
    "log",
    "event",
    "conversation",
    "daily",
    "session",
    "diary",
)
_PROCEDURAL: tuple[str, ...] = (
    "guide",
    "howto",
    "how-to",
    "procedure",
    "recipe",
    "process",
    "workflow",
    "runbook",
)
_REFLECTIVE: tuple[str, ...] = (
    "reflection",
    "retrospective",
    "retro",
    "lesson",
    "postmortem",
    "insight",
)
# An observation's category, when the type says nothing (a plain "note").
_CATEGORY_TYPES = {
    "procedural": ("method", "technique", "step", "procedure", "howto", "workflow", "tip"),
    "episodic": ("event", "meeting", "status", "progress", "update", "happened"),
    "reflective": ("insight", "lesson", "learning", "reflection", "realization", "takeaway"),
}


def observations(body: str) -> list[tuple[str, str]]:
    """(category, text) of every observation line; task boxes and links are not ones."""
    out = []
    for line in body.splitlines():
        m = _OBSERVATION_RE.match(line)
        if m and m.group(1) not in _TASK and not m.group(2).startswith("("):
            out.append((m.group(1).strip(), m.group(2).strip()))
    return out


def relations(body: str) -> list[str]:
    """Explicit relations as written, ``rel_type [[Target]]`` (quotes dropped)."""
    out = []
    for line in body.splitlines():
        m = _RELATION_RE.match(line)
        if m:
            rel = m.group(1) or m.group(2) or m.group(3)
            out.append(f"{rel} [[{m.group(4).strip()}]]")
    return out


def memory_type(note_type: str, cats: list[str]) -> str:
    """Our sector for a note: its type first, else the most common observation kind."""
    word = note_type.strip().lower()
    for sector, words in (
        ("episodic", _EPISODIC),
        ("procedural", _PROCEDURAL),
        ("reflective", _REFLECTIVE),
    ):
        if word in words:
            return sector
    counts = {s: 0 for s in _CATEGORY_TYPES}
    for cat in cats:
        for sector, cat_words in _CATEGORY_TYPES.items():
            if cat.strip().lower() in cat_words:
                counts[sector] += 1
    best = max(counts, key=lambda s: counts[s])
    return best if counts[best] * 2 > len(cats) and cats else "semantic"


def note_tags(value: Any, *, path: str) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        items = [t.strip() for t in value.split(",")]
    elif isinstance(value, list):
        items = [str(t).strip() for t in value]
    else:
        raise ParseError(
            M_("field 'tags': must be a list or a string, not {value!r}", value=value), path=path
        )
    return [t.lstrip("#") for t in items if t and t.lstrip("#")]


def _created(value: Any, *, path: str) -> datetime | None:
    if value is None or value == "":
        return None
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise ParseError(
            M_("field 'created': not an ISO date: {value!r}", value=value), path=path
        ) from None
    # basic-memory reads naive times as local time; we have no local zone here: UTC
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def parse_note(path: str, text: str) -> MemoryDraft:
    """One note → one memory draft; :class:`ParseError` naming the file when it cannot be."""
    meta, body, body_line = split_optional_frontmatter(text, path=path)
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    title = " ".join(str(meta.get("title") or stem).split())
    permalink = str(meta.get("permalink") or ascii_slug(title))
    tags = note_tags(meta.get("tags"), path=path)
    ours = [t for t in tags if len(t) <= MAX_TAG_CHARS and not _UNSAFE_TAG.search(t)][:MAX_TAGS]
    note_type = str(meta.get("type") or "note")
    extra: dict[str, Any] = {
        "permalink": permalink,
        "note_type": note_type,
        "note_path": path,
        "relations": relations(body),
    }
    if ours != tags:  # a tag we cannot use as ours (a '/' in it, say) is still kept
        extra["note_tags"] = tags
    custom = {k: v for k, v in meta.items() if k not in STANDARD_KEYS}
    if "modified" in meta:
        custom["modified"] = meta["modified"]
    if custom:
        extra["note_meta"] = custom
    if not body.strip():
        raise ParseError(M_("the note has no text"), path=path)
    return MemoryDraft(
        text=body,
        title=title,
        key=f"basic-memory:{permalink}",
        type=memory_type(note_type, [c for c, _ in observations(body)]),
        tags=ours,
        created=_created(meta.get("created"), path=path),
        extra=extra,
        line=body_line,
    )


def _yaml_scalar(value: str) -> str:
    # JSON strings are YAML flow scalars: exact for any text, Chinese included.
    import json

    return json.dumps(value, ensure_ascii=False)


def render_note(memory: dict[str, Any]) -> tuple[str, str]:
    """(relative path, note text) for one exported memory (``Memory.export`` row).

    An imported note gets back its path, type, permalink, tags and custom
    keys; its text is written as it was stored. Any other memory becomes a
    ``type: note`` whose relations are its ``related`` ids as wiki links.
    """
    import json

    title = str(memory["title"])
    permalink = str(memory.get("permalink") or ascii_slug(title))
    tags = memory.get("note_tags") or memory.get("tags") or []
    lines = [
        "---",
        f"title: {_yaml_scalar(title)}",
        f"type: {_yaml_scalar(str(memory.get('note_type') or 'note'))}",
        f"tags: {json.dumps([str(t) for t in tags], ensure_ascii=False)}",
        f"permalink: {_yaml_scalar(permalink)}",
    ]
    if memory.get("created"):
        lines.append(f"created: {_yaml_scalar(str(memory['created']))}")
    custom = memory.get("note_meta") or {}
    for key, value in custom.items():
        if isinstance(key, str) and key not in STANDARD_KEYS - {"modified"}:
            lines.append(
                f"{json.dumps(key, ensure_ascii=False)}: {json.dumps(value, ensure_ascii=False)}"
            )
    if not memory.get("note_type"):
        lines.append(f"memory_type: {_yaml_scalar(str(memory.get('type', 'semantic')))}")
    lines.append("---")
    text = str(memory["text"])
    if not memory.get("note_type") and memory.get("related_titles"):
        links = "\n".join(f"- relates_to [[{t}]]" for t in memory["related_titles"])
        text = text.rstrip("\n") + "\n\n## Relations\n" + links + "\n"
    path = memory.get("note_path") or f"{permalink}.md"
    return str(path), "\n".join(lines) + "\n" + text
