"""Parse and render knowledge files (spec 002 §2.2, §5): ``## Rules`` and ``## Info``.

The file form::

    # Knowledge                      (optional H1 title, kept)

    ## Rules

    - Revenue always excludes refunds.
    - Fiscal calendar                (a parent line that only groups: a label)
      - Q1 starts in February.       (its children are the entries)

    ## Info

    - GMV 定义为含税成交额。

Rules of the format:

* Entries are top-level bullets (``-``, ``*``, ``+`` or ``1.``); a bullet may
  have one level of indented child bullets (2–5 spaces or one tab). Deeper
  nesting, a child with no parent, an empty bullet, a ``###`` heading or prose
  that is not a bullet is *malformed*: :class:`ParseError` names the line and
  nothing is rewritten.
* An indented line that is not a bullet continues the bullet above it (joined
  with one space), so an entry is always one line once rendered.
* Leaf entries count; a parent line that only groups children does not.

Legacy layouts (older files with other sections) are read by mapping every
section into Rules or Info by its heading (see :data:`RULE_HEADINGS`): a heading
naming rules, preferences, conventions, guidelines, policies, constraints or
do/don't (English or Chinese: 规则、偏好、约定、规范、准则、要求、禁止、注意事项)
goes to **Rules**; every other heading (facts, definitions, glossary, terms,
context, notes, background, 术语、定义、口径、事实、背景、说明 …) goes to **Info**,
because reference data is the less prescriptive reading. Bullets written
before any section go to Info too. Such a document has ``legacy=True``; the
store keeps the file as it is on read and writes the two-section form only on
the next save.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from ..._i18n import M_
from ...exceptions import OversizeError, ParseError

SAVE_CAP_CHARS = 8_000
RULES = "rules"
INFO = "info"
SECTION_TITLES = {RULES: "Rules", INFO: "Info"}

# Keywords (casefolded, NFKC) that send a legacy heading to Rules.
RULE_HEADINGS = (
    "rule",
    "preference",
    "convention",
    "guideline",
    "policy",
    "policies",
    "constraint",
    "instruction",
    "do's",
    "don't",
    "dos and",
    "must",
    "规则",
    "規則",
    "偏好",
    "约定",
    "約定",
    "规范",
    "規範",
    "准则",
    "準則",
    "要求",
    "禁止",
    "注意事项",
    "注意事項",
)
_CANONICAL = {"rules": RULES, "info": INFO}

_BULLET_RE = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+]|\d{1,3}[.)])(?:[ \t]+(?P<text>.*))?$")
_HEADING_RE = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<title>.*?)[ \t#]*$")


@dataclass(frozen=True)
class Entry:
    """A top-level bullet; with ``children`` it is a catalog label over them."""

    text: str
    children: tuple[str, ...] = ()

    @property
    def is_group(self) -> bool:
        return bool(self.children)

    @property
    def leaves(self) -> tuple[str, ...]:
        return self.children if self.children else (self.text,)


@dataclass(frozen=True)
class KnowledgeDoc:
    rules: tuple[Entry, ...] = ()
    info: tuple[Entry, ...] = ()
    title: str | None = None
    legacy: bool = False
    legacy_sections: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def section(self, name: str) -> tuple[Entry, ...]:
        return self.rules if name == RULES else self.info

    def with_section(self, name: str, entries: tuple[Entry, ...]) -> KnowledgeDoc:
        if name == RULES:
            return KnowledgeDoc(entries, self.info, self.title)
        return KnowledgeDoc(self.rules, entries, self.title)

    def leaf_count(self, name: str) -> int:
        return sum(len(e.leaves) for e in self.section(name))

    def leaves(self) -> list[tuple[str, str]]:
        """Every leaf entry as (section, text), in file order."""
        return [
            (name, leaf) for name in (RULES, INFO) for e in self.section(name) for leaf in e.leaves
        ]

    @property
    def is_empty(self) -> bool:
        return not self.rules and not self.info

    @property
    def has_groups(self) -> bool:
        return any(e.is_group for e in (*self.rules, *self.info))


def clean_entry_text(text: str) -> str:
    """One line, single-spaced: the form an entry has inside a file."""
    return " ".join(text.split())


def map_heading(title: str) -> tuple[str, bool]:
    """Section for a heading and whether it is a legacy (non-canonical) one."""
    key = unicodedata.normalize("NFKC", title).strip().casefold()
    if key in _CANONICAL:
        return _CANONICAL[key], title.strip() != SECTION_TITLES[_CANONICAL[key]]
    if any(word in key for word in RULE_HEADINGS):
        return RULES, True
    return INFO, True


def _indent_width(indent: str) -> int:
    return sum(4 if ch == "\t" else 1 for ch in indent)


def parse_knowledge(text: str, *, path: str | None = None) -> KnowledgeDoc:
    """Parse a knowledge file; :class:`ParseError` names the first bad line."""
    if "\x00" in text:
        raise ParseError(M_("file contains NUL characters"), path=path)
    # Each entry is [text, children]; lists so continuations can extend them.
    sections: dict[str, list[list[Any]]] = {RULES: [], INFO: []}
    current: str | None = None
    legacy = False
    title: str | None = None
    mapping: list[tuple[str, str]] = []
    last: list[Any] | None = None  # the top-level entry children attach to
    last_is_child = False  # whether a continuation line extends a child

    def bad(number: int, reason: str) -> ParseError:
        return ParseError(reason, path=path, line=number)

    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        heading = _HEADING_RE.match(raw)
        if heading:
            level = len(heading.group("hashes"))
            name = heading.group("title").strip()
            if level == 1 and current is None and title is None:
                title = name
                continue
            if level != 2:
                raise bad(
                    number,
                    M_(
                        "heading level {level} is not allowed; use '## Rules' or '## Info'",
                        level=level,
                    ),
                )
            if not name:
                raise bad(number, M_("section heading has no name"))
            current, is_legacy = map_heading(name)
            if is_legacy:
                legacy = True
                mapping.append((name, current))
            last, last_is_child = None, False
            continue
        bullet = _BULLET_RE.match(raw)
        if bullet:
            body = clean_entry_text(bullet.group("text") or "")
            if not body:
                raise bad(number, M_("empty bullet"))
            width = _indent_width(bullet.group("indent"))
            if current is None:
                # Bullets before any section: an old single-list file. Info.
                legacy = True
                mapping.append(("(no section)", INFO))
                current = INFO
            if width < 2:
                last = [body, []]
                sections[current].append(last)
                last_is_child = False
            elif width <= 5:
                if last is None:
                    raise bad(number, M_("indented bullet has no parent bullet above it"))
                last[1].append(body)
                last_is_child = True
            else:
                raise bad(
                    number, M_("bullet nested more than one level (only one level of children)")
                )
            continue
        if raw[:1] in (" ", "\t") and last is not None:
            extra = clean_entry_text(raw)
            if last_is_child:
                last[1][-1] = f"{last[1][-1]} {extra}"
            else:
                last[0] = f"{last[0]} {extra}"
            continue
        said = (
            M_("text before any section that is not a '- ' bullet: {text!r}", text=raw.strip()[:60])
            if current is None
            else M_(
                "text inside a section that is not a '- ' bullet: {text!r}", text=raw.strip()[:60]
            )
        )
        raise bad(number, said)

    def freeze(items: list[list[Any]]) -> tuple[Entry, ...]:
        return tuple(Entry(str(text), tuple(children)) for text, children in items)

    return KnowledgeDoc(
        freeze(sections[RULES]),
        freeze(sections[INFO]),
        title,
        legacy,
        tuple(dict.fromkeys(mapping)),
    )


def render_knowledge(doc: KnowledgeDoc) -> str:
    """The canonical two-section file; ``parse_knowledge(render_knowledge(d)) == d``."""
    out: list[str] = []
    if doc.title:
        out += [f"# {clean_entry_text(doc.title)}", ""]
    for name in (RULES, INFO):
        out += [f"## {SECTION_TITLES[name]}", ""]
        for entry in doc.section(name):
            out.append(f"- {clean_entry_text(entry.text)}")
            out += [f"  - {clean_entry_text(child)}" for child in entry.children]
        if doc.section(name):
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def check_save_size(text: str, *, field_name: str = "knowledge") -> None:
    if len(text) > SAVE_CAP_CHARS:
        raise OversizeError(
            M_(
                "{n:,} characters is over the {limit:,}-character save limit; remove entries or "
                "run Reorganize",
                n=len(text),
                limit=SAVE_CAP_CHARS,
            ),
            field=field_name,
        )


def prepare_save(text: str, *, path: str | None = None) -> tuple[KnowledgeDoc, str]:
    """Validate a save: parse strictly, render canonically, enforce the 8,000 cap."""
    doc = parse_knowledge(text, path=path)
    rendered = render_knowledge(doc)
    check_save_size(rendered)
    return doc, rendered


def chars_of(doc: KnowledgeDoc) -> int:
    """Characters of a file in its canonical form (what thresholds compare)."""
    return len(render_knowledge(doc))


def append_entry(doc: KnowledgeDoc, section: str, text: str) -> KnowledgeDoc:
    """Apply merges a new entry as a single top-level bullet (spec §6.1)."""
    entry = Entry(clean_entry_text(text))
    return doc.with_section(section, (*doc.section(section), entry))


def remove_entry(doc: KnowledgeDoc, key_of: Any, key: str) -> tuple[KnowledgeDoc, str] | None:
    """``doc`` without its first leaf whose ``key_of(leaf) == key``, and that leaf's section.

    Undoing an Apply (issue 32): the entry may have been moved under a label
    since (a reorganize); a label left with no child goes too. ``None`` when
    no leaf matches (the person edited or removed it meanwhile).
    """
    for name in (RULES, INFO):
        entries = list(doc.section(name))
        for i, entry in enumerate(entries):
            if not entry.is_group:
                if key_of(entry.text) == key:
                    del entries[i]
                    return doc.with_section(name, tuple(entries)), name
                continue
            for j, child in enumerate(entry.children):
                if key_of(child) == key:
                    rest = entry.children[:j] + entry.children[j + 1 :]
                    if rest:
                        entries[i] = Entry(entry.text, rest)
                    else:
                        del entries[i]
                    return doc.with_section(name, tuple(entries)), name
    return None
