"""The deterministic reorganizer (spec 002 §6.2–6.3), the default when no LLM is configured.

Steps, per section:

1. **Dedupe**: a leaf whose :func:`~.knowledge_dedup.similarity` to an earlier
   kept leaf is at or above :data:`~.knowledge_dedup.DUPLICATE_AT` is dropped.
2. **Condense**: whitespace collapsed, filler openers ("Note that", "Please
   remember:", "FYI", "请注意") and repeated end punctuation removed.
3. **Regroup** (only when the condensed file is at or past the layer's catalog
   threshold): each leaf goes under a short label, its subject — the words
   before the first normative or definitional keyword ("Revenue" in "Revenue
   excludes refunds", "收入" in "收入口径不含退款"), else its first words. Leaves
   already under a label keep it. A label with a single leaf is merged into
   "Other rules" / "Other info" so the catalog actually shrinks.

The result must render and parse back as a valid two-section file within the
8,000-character save cap and keep every leaf that was not a duplicate;
otherwise :class:`ReorganizeError` and the caller leaves the file untouched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..._i18n import M_
from ...exceptions import ParseError, ValidationError
from .context import CATALOG_THRESHOLD
from .dedup import DUPLICATE_AT, dedup_key, similarity
from .format import (
    INFO,
    RULES,
    SAVE_CAP_CHARS,
    Entry,
    KnowledgeDoc,
    chars_of,
    clean_entry_text,
    parse_knowledge,
    render_knowledge,
)

MAX_LABEL_CHARS = 40
OTHER_LABEL = {RULES: "Other rules", INFO: "Other info"}

_FILLER = re.compile(
    r"^(?:please\s+)?(?:note\s+that|remember\s+that|remember\s*:|note\s*:|fyi\s*[:,]?|"
    r"keep\s+in\s+mind\s+that|请注意[:：，,]?|請注意[:：，,]?)\s*",
    re.IGNORECASE,
)
_REPEATED_END = re.compile(r"([.!。！])\1+$")
_SPLIT = re.compile(
    r"\s+(?:always|never|must|should|do\s+not|don't|is\s+defined\s+as|are\s+defined\s+as|means|"
    r"refers\s+to|excludes?|includes?|is|are)\b|"
    r"口径|口徑|必须|必須|不要|应该|應該|定义为|定義為|是指|指的是|不含|不包含|包含|包括|不包括|务必|務必|禁止|统一|統一",
    re.IGNORECASE,
)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class ReorganizeError(ValidationError):
    """A reorganized file that is not valid, too large or loses entries: refused."""


@dataclass(frozen=True)
class ReorganizeResult:
    doc: KnowledgeDoc
    text: str
    duplicates_removed: int
    grouped: bool


def condense(text: str) -> str:
    text = clean_entry_text(text)
    stripped = _FILLER.sub("", text)
    if stripped:
        text = stripped[:1].upper() + stripped[1:] if stripped[:1].isascii() else stripped
    return _REPEATED_END.sub(r"\1", text)


def label_for(leaf: str) -> str:
    """A short subject label for a leaf (deterministic)."""
    match = _SPLIT.search(leaf)
    subject = leaf[: match.start()] if match else ""
    subject = subject.strip(" :：,，;；-—\"'").strip()
    if not subject or len(subject) > MAX_LABEL_CHARS:
        subject = leaf[:8] if _CJK.search(leaf) else " ".join(leaf.split()[:4])
    subject = re.sub(r"^(?:the|a|an)\s+", "", subject, flags=re.IGNORECASE)
    subject = subject.strip(" .。:：,，;；")[:MAX_LABEL_CHARS].strip()
    return (subject[:1].upper() + subject[1:]) if subject else "General"


def _dedupe(entries: tuple[Entry, ...]) -> tuple[list[tuple[str | None, str]], int]:
    kept: list[tuple[str | None, str]] = []
    removed = 0
    for entry in entries:
        group = entry.text if entry.is_group else None
        for leaf in entry.leaves:
            leaf = condense(leaf)
            if any(similarity(leaf, other) >= DUPLICATE_AT for _, other in kept):
                removed += 1
                continue
            kept.append((group, leaf))
    return kept, removed


def _rebuild(kept: list[tuple[str | None, str]]) -> tuple[Entry, ...]:
    """Keep the original shape: groups stay groups, plain entries stay plain."""
    out: list[Entry] = []
    groups: dict[str, list[str]] = {}
    for group, leaf in kept:
        if group is None:
            out.append(Entry(leaf))
        elif group in groups:
            groups[group].append(leaf)
        else:
            groups[group] = [leaf]
            out.append(Entry(group))
    return tuple(Entry(e.text, tuple(groups[e.text])) if e.text in groups else e for e in out)


def _regroup(kept: list[tuple[str | None, str]], section: str) -> tuple[Entry, ...]:
    groups: dict[str, list[str]] = {}
    shown: dict[str, str] = {}
    for group, leaf in kept:
        label = group or label_for(leaf)
        key = dedup_key(label)
        shown.setdefault(key, label)
        groups.setdefault(key, []).append(leaf)
    other: list[str] = []
    out: list[Entry] = []
    for key, leaves in groups.items():
        if len(leaves) == 1 and not any(g == shown[key] for g, _ in kept):
            other.extend(leaves)
        else:
            out.append(Entry(shown[key], tuple(leaves)))
    if other:
        out.append(Entry(OTHER_LABEL[section], tuple(other)))
    return tuple(out)


def reorganize_doc(doc: KnowledgeDoc, layer: str) -> ReorganizeResult:
    kept = {name: _dedupe(doc.section(name)) for name in (RULES, INFO)}
    removed = sum(n for _, n in kept.values())
    flat = KnowledgeDoc(_rebuild(kept[RULES][0]), _rebuild(kept[INFO][0]), doc.title)
    grouped = False
    result = flat
    if chars_of(flat) >= CATALOG_THRESHOLD[layer]:
        result = KnowledgeDoc(
            _regroup(kept[RULES][0], RULES), _regroup(kept[INFO][0], INFO), doc.title
        )
        grouped = True
    text = validate_reorganized(doc, render_knowledge(result), removed_ok=removed)
    return ReorganizeResult(parse_knowledge(text), text, removed, grouped)


def validate_reorganized(before: KnowledgeDoc, text: str, *, removed_ok: int | None = None) -> str:
    """Refuse a result that is not a valid two-section file, too big, or lost entries.

    ``removed_ok`` is how many leaves the deterministic reorganizer dropped as
    duplicates; for an LLM result (``None``) every original leaf must still be
    recognisable (its key equal, or similar above the duplicate threshold, to
    a leaf of the result), since an LLM may reword while condensing.
    """
    try:
        after = parse_knowledge(text, path="reorganized result")
    except ParseError as exc:
        raise ReorganizeError(
            M_("result is not a valid knowledge file: {exc}", exc=exc), field="reorganize"
        ) from exc
    if after.legacy:
        raise ReorganizeError(
            M_("result must have exactly the sections '## Rules' and '## Info'"), field="reorganize"
        )
    rendered = render_knowledge(after)
    if len(rendered) > SAVE_CAP_CHARS:
        raise ReorganizeError(
            M_(
                "result is {n:,} characters, over the {limit:,} save limit",
                n=len(rendered),
                limit=SAVE_CAP_CHARS,
            ),
            field="reorganize",
        )
    before_leaves = before.leaves()
    after_leaves = after.leaves()
    if removed_ok is not None:
        if len(after_leaves) != len(before_leaves) - removed_ok:
            raise ReorganizeError(M_("result lost entries"), field="reorganize")
        return rendered
    after_texts = [leaf for _, leaf in after_leaves]
    for _, leaf in before_leaves:
        if not any(similarity(leaf, other) >= 0.5 for other in after_texts):
            raise ReorganizeError(
                M_("result dropped the entry {entry!r}", entry=leaf[:60]), field="reorganize"
            )
    return rendered


def needs_preinject_reorganize(doc: KnowledgeDoc, layer: str) -> bool:
    """Past the catalog threshold but still all top-level (spec §6.3)."""
    return chars_of(doc) >= CATALOG_THRESHOLD[layer] and not doc.has_groups and not doc.is_empty
