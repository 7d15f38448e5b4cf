"""Apply as a replacement (issue 32): the new entry takes the place of the one it contradicts."""

from __future__ import annotations

from .format import Entry, KnowledgeDoc, append_entry
from .keys import dedup_key


def replace_leaf(
    doc: KnowledgeDoc, old_text: str, section: str, new_text: str
) -> KnowledgeDoc | None:
    """``doc`` without the leaf that reads ``old_text`` and with ``new_text`` appended to
    ``section``; ``None`` when no leaf reads ``old_text`` (nothing to replace).

    A leaf under a catalog label leaves its group; a group left empty goes too.
    """
    key = dedup_key(old_text)
    found = False
    out = doc
    for name in {section, *(s for s, _ in doc.leaves())}:
        kept: list[Entry] = []
        for entry in out.section(name):
            if not entry.is_group:
                if not found and dedup_key(entry.text) == key:
                    found = True
                    continue
                kept.append(entry)
                continue
            children = [c for c in entry.children if found or dedup_key(c) != key]
            if len(children) != len(entry.children):
                found = True
            if children:
                kept.append(Entry(entry.text, tuple(children)))
        out = out.with_section(name, tuple(kept))
    return append_entry(out, section, new_text) if found else None


__all__ = ["replace_leaf"]
