"""Three-way merge of a knowledge file by item, and the conflicted form it may leave.

Git calls ``jupyter-memory merge-knowledge %O %A %B %P`` when two clones both
changed ``knowledge.md`` (docs/teams.md). A line merge would conflict as soon
as both sides appended a bullet at the end of Rules; a merge by *item* does not:

* an item is a top-level entry of Rules or Info (with its catalog children);
  a leaf is known by its text, a catalog label by its label;
* items added on both sides are all kept, an identical item once;
* an item deleted on one side and untouched on the other is deleted;
* an item replaced on one side (the bullet at its place edited) and untouched
  on the other takes the new text; children of a label merge the same way;
* the same item changed differently on both sides (or changed on one side and
  deleted on the other) is a **conflict**: the result carries both versions
  between ``<<<<<<< ours`` / ``=======`` / ``>>>>>>> theirs`` lines at the
  item's place, the rest of the file merged. The 8,000-character save cap is
  checked on the merged result; when it is over, what the other side added is
  put in a conflict too, so a person decides what stays.

:func:`parse_conflicted` reads such a file back into its two sides; ``ours``
(this clone's side) is the last clean version an agent is given until a person
resolves the conflict (docs/knowledge.md).
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass, field

from ..._i18n import M_
from ...exceptions import ParseError
from .format import (
    INFO,
    RULES,
    SAVE_CAP_CHARS,
    SECTION_TITLES,
    Entry,
    KnowledgeDoc,
    clean_entry_text,
    parse_knowledge,
)
from .keys import dedup_key

OURS_MARK = "<<<<<<< ours"
SPLIT_MARK = "======="
THEIRS_MARK = ">>>>>>> theirs"
OVER_CAP_NOTE = " (added by the other side; the merged file is over the 8,000-character cap)"


@dataclass(frozen=True)
class Conflict:
    """One item both sides changed differently: its two versions (``()`` = deleted)."""

    section: str
    ours: tuple[Entry, ...]
    theirs: tuple[Entry, ...]
    base: Entry | None = None
    note: str = ""


Item = Entry | Conflict


@dataclass(frozen=True)
class MergeResult:
    text: str
    conflicts: tuple[Conflict, ...] = ()
    over_cap: bool = False

    @property
    def clean(self) -> bool:
        return not self.conflicts


@functools.lru_cache(maxsize=8192)
def _norm(text: str) -> str:
    # The same texts are compared many times in one merge (three versions).
    return dedup_key(text)


def _key(entry: Entry) -> tuple[str, str]:
    return ("label" if entry.children else "leaf", _norm(entry.text))


# Per base item, what one side did: ("same", None) untouched, ("del", None)
# deleted, ("mod", entry) replaced by entry.
_Change = tuple[str, Entry | None]


def _changes(
    base: tuple[Entry, ...], side: tuple[Entry, ...]
) -> tuple[list[_Change], dict[int, list[Entry]]]:
    """Per base item its change, and the side's new items anchored before base index i."""
    changes: list[_Change] = [("same", None)] * len(base)
    inserted: dict[int, list[Entry]] = {}
    matcher = difflib.SequenceMatcher(
        None, [_key(e) for e in base], [_key(e) for e in side], autojunk=False
    )
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                # Same label: its children may still differ.
                changes[i] = ("same", None) if base[i] == side[j] else ("mod", side[j])
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(pairs):
            changes[i1 + k] = ("mod", side[j1 + k])
        for i in range(i1 + pairs, i2):
            changes[i] = ("del", None)
        extra = list(side[j1 + pairs : j2])
        if extra:
            inserted.setdefault(i1 + pairs if pairs < i2 - i1 else i2, []).extend(extra)
    return changes, inserted


def _merge_children(
    base: tuple[str, ...], ours: tuple[str, ...], theirs: tuple[str, ...]
) -> tuple[str, ...] | None:
    """Children of one label merged the same way; ``None`` when they conflict."""
    as_entries = [tuple(Entry(c) for c in x) for x in (base, ours, theirs)]
    items = _merge_items(RULES, *as_entries)
    if any(isinstance(i, Conflict) for i in items):
        return None
    return tuple(i.text for i in items if isinstance(i, Entry))


def _resolve(section: str, base: Entry, ours: _Change, theirs: _Change) -> list[Item]:
    (o_kind, o_new), (t_kind, t_new) = ours, theirs
    if o_kind == "same" and t_kind == "same":
        return [base]
    if o_kind == "same":
        return [t_new] if t_new is not None else []
    if t_kind == "same":
        return [o_new] if o_new is not None else []
    if o_kind == "del" and t_kind == "del":
        return []
    if o_new is not None and t_new is not None:
        if _key(o_new) == _key(t_new) and o_new.children == t_new.children:
            return [o_new]
        if o_new.children and t_new.children and _key(o_new) == _key(t_new):
            children = _merge_children(base.children, o_new.children, t_new.children)
            if children is not None:
                return [Entry(o_new.text, children)]
    return [
        Conflict(
            section,
            (o_new,) if o_new is not None else (),
            (t_new,) if t_new is not None else (),
            base,
        )
    ]


def _merge_items(
    section: str, base: tuple[Entry, ...], ours: tuple[Entry, ...], theirs: tuple[Entry, ...]
) -> list[Item]:
    o_changes, o_inserted = _changes(base, ours)
    t_changes, t_inserted = _changes(base, theirs)
    out: list[Item] = []
    seen: set[tuple[str, str]] = set()

    def add(items: list[Item]) -> None:
        for item in items:
            if isinstance(item, Entry):
                if _key(item) in seen:
                    continue  # an identical item is kept once
                seen.add(_key(item))
            out.append(item)

    for i in range(len(base) + 1):
        add(list(o_inserted.get(i, [])))
        add(list(t_inserted.get(i, [])))
        if i < len(base):
            add(_resolve(section, base[i], o_changes[i], t_changes[i]))
    return out


def _render(title: str | None, sections: dict[str, list[Item]]) -> str:
    out: list[str] = []
    if title:
        out += [f"# {clean_entry_text(title)}", ""]
    for name in (RULES, INFO):
        out += [f"## {SECTION_TITLES[name]}", ""]
        for item in sections[name]:
            if isinstance(item, Entry):
                out += _entry_lines(item)
                continue
            out.append(OURS_MARK)
            for e in item.ours:
                out += _entry_lines(e)
            out.append(SPLIT_MARK)
            for e in item.theirs:
                out += _entry_lines(e)
            out.append(THEIRS_MARK + item.note)
        if sections[name]:
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _entry_lines(entry: Entry) -> list[str]:
    return [f"- {clean_entry_text(entry.text)}"] + [
        f"  - {clean_entry_text(c)}" for c in entry.children
    ]


def _whole_file_conflict(ours: str, theirs: str) -> MergeResult:
    """A side that is not a parseable knowledge file: both files, whole, in one conflict."""
    text = f"{OURS_MARK}\n{ours.rstrip()}\n{SPLIT_MARK}\n{theirs.rstrip()}\n{THEIRS_MARK}\n"
    return MergeResult(text, (Conflict(RULES, (), ()),))


def _merged_sections(
    b: KnowledgeDoc, o: KnowledgeDoc, t: KnowledgeDoc
) -> tuple[str | None, dict[str, list[Item]]]:
    title = o.title if o.title != b.title else t.title
    sections = {name: _merge_items(name, b.section(name), o.section(name), t.section(name))
                for name in (RULES, INFO)}  # fmt: skip
    return title, sections


def merge_knowledge(base: str, ours: str, theirs: str) -> MergeResult:
    """Merge three versions of a knowledge file (base may be ``""``: added on both sides)."""
    if ours == theirs:
        return MergeResult(ours)
    try:
        docs = [parse_knowledge(t) for t in (base, ours, theirs)]
    except ParseError:
        return _whole_file_conflict(ours, theirs)
    b, o, t = docs
    title, sections = _merged_sections(b, o, t)
    conflicts = [i for name in (RULES, INFO) for i in sections[name] if isinstance(i, Conflict)]
    text = _render(title, sections)
    if conflicts:
        return MergeResult(text, tuple(conflicts))
    if len(text) <= SAVE_CAP_CHARS:
        return MergeResult(text)
    # Over the cap: keep ours whole, and what only theirs brought in a conflict.
    ours_keys = {_key(e) for name in (RULES, INFO) for e in o.section(name)}
    capped: dict[str, list[Item]] = {}
    extra: list[Conflict] = []
    for name in (RULES, INFO):
        kept = [i for i in sections[name] if isinstance(i, Entry) and _key(i) in ours_keys]
        added = tuple(
            i for i in sections[name] if isinstance(i, Entry) and _key(i) not in ours_keys
        )
        capped[name] = list(kept)
        if added:
            conflict = Conflict(name, (), added, note=OVER_CAP_NOTE)
            capped[name].append(conflict)
            extra.append(conflict)
    return MergeResult(_render(title, capped), tuple(extra), over_cap=True)


# -- the editor's merge ------------------------------------------------------------------


@dataclass(frozen=True)
class EditorMerge:
    """The same merge by item, as the knowledge editor puts it in its text box (issue 28).

    The panel asks the server for it (``POST knowledge/{layer}/merge``), so the editor
    and git's driver merge alike. Where both sides changed one item differently, both
    versions stay as plain items, ours first, with no conflict markers: the text goes
    into the editor, the person keeps what holds and saves. The save cap is not applied
    (nothing is written here): ``over_cap`` says a save of the text would be refused.
    """

    text: str
    both_kept: tuple[Conflict, ...] = ()
    over_cap: bool = False

    @property
    def clean(self) -> bool:
        return not self.both_kept

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "clean": self.clean,
            "over_cap": self.over_cap,
            "chars": len(self.text),
            "both_kept": [
                {
                    "section": c.section,
                    "ours": [e.text for e in c.ours],
                    "theirs": [e.text for e in c.theirs],
                }
                for c in self.both_kept
            ],
        }


def _both_versions(items: list[Item]) -> list[Item]:
    out: list[Item] = []
    for item in items:
        out += [item] if isinstance(item, Entry) else [*item.ours, *item.theirs]
    return out


def merge_for_editor(base: str, ours: str, theirs: str) -> EditorMerge:
    """``ours`` (the editor's text) merged by item with ``theirs`` from their common ``base``.

    A side that does not parse is a :class:`ParseError` whose ``path`` names the
    side (``base``, ``ours`` or ``theirs``) and whose line is the first bad one: the
    editor shows it and keeps both texts; nothing is merged half-way.
    """
    sides = (("base", base), ("ours", ours), ("theirs", theirs))
    docs = [parse_knowledge(text, path=side) for side, text in sides]
    if ours == theirs:
        return EditorMerge(ours, over_cap=len(ours) > SAVE_CAP_CHARS)
    title, sections = _merged_sections(docs[0], docs[1], docs[2])
    both = tuple(i for name in (RULES, INFO) for i in sections[name] if isinstance(i, Conflict))
    text = _render(title, {name: _both_versions(sections[name]) for name in (RULES, INFO)})
    return EditorMerge(text, both, over_cap=len(text) > SAVE_CAP_CHARS)


# -- reading a conflicted file back ------------------------------------------------------


@dataclass(frozen=True)
class ConflictedKnowledge:
    """A knowledge file holding conflict blocks, read as its two sides."""

    ours: str  # the file with this clone's side of every block: the last clean version
    theirs: str  # the file with the other side of every block
    hunks: tuple[tuple[str, str], ...] = field(default=())  # (ours lines, theirs lines)
    first_line: int = 0

    def to_dict(self) -> dict[str, object]:
        return {
            "ours": self.ours,
            "theirs": self.theirs,
            "hunks": [{"ours": o, "theirs": t} for o, t in self.hunks],
            "line": self.first_line,
        }


def has_conflict_markers(text: str) -> bool:
    return any(line.startswith((OURS_MARK[:8], THEIRS_MARK[:8])) for line in text.splitlines())


def parse_conflicted(text: str, *, path: str | None = None) -> ConflictedKnowledge | None:
    """The two sides of a file with conflict blocks (ours/theirs or git's own markers).

    ``None`` when there is no block. A block that is not closed is a
    :class:`ParseError` naming its line.
    """
    if not has_conflict_markers(text):
        return None
    ours: list[str] = []
    theirs: list[str] = []
    hunks: list[tuple[str, str]] = []
    state = "both"
    first = 0
    hunk_o: list[str] = []
    hunk_t: list[str] = []
    opened = 0
    lines = text.replace("\r\n", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        if line.startswith("<<<<<<< ") or line == "<<<<<<<":
            if state != "both":
                raise ParseError(M_("conflict block opened inside another"), path=path, line=number)
            state, opened = "ours", number
            first = first or number
            hunk_o, hunk_t = [], []
        elif line.startswith("||||||| ") and state == "ours":
            state = "base"  # diff3 style: the base version is dropped
        elif line == SPLIT_MARK and state in ("ours", "base"):
            state = "theirs"
        elif (line.startswith(">>>>>>> ") or line == ">>>>>>>") and state == "theirs":
            state = "both"
            hunks.append(("\n".join(hunk_o), "\n".join(hunk_t)))
        elif state == "both":
            ours.append(line)
            theirs.append(line)
        elif state == "ours":
            ours.append(line)
            hunk_o.append(line)
        elif state == "theirs":
            theirs.append(line)
            hunk_t.append(line)
    if state != "both":
        raise ParseError(M_("conflict block is not closed"), path=path, line=opened)
    return ConflictedKnowledge("\n".join(ours), "\n".join(theirs), tuple(hunks), first)


__all__ = [
    "Conflict",
    "ConflictedKnowledge",
    "EditorMerge",
    "MergeResult",
    "has_conflict_markers",
    "merge_for_editor",
    "merge_knowledge",
    "parse_conflicted",
]
