"""Hold any reorganized text to the rules, whoever wrote it (the deterministic default or an LLM).

A result is refused, with the reason, when it

* is not a valid two-section knowledge file;
* is longer than the file it reorganizes;
* drops an entry: every entry of the file must be found in the result once
  (the same text after condensing, or the one remaining result entry of its
  section closest to it), unless the *same entry* test says it is one entry
  with another that was found;
* adds an entry the file did not hold;
* puts more than :data:`OTHER_SHARE_MAX` of the entries under an "other" label
  ("Other rules", "Misc", "其他" …), which would hide them behind a label that
  says nothing.
"""

from __future__ import annotations

import re
import unicodedata

from ..._i18n import M_
from ...exceptions import ParseError, ValidationError
from .format import (
    INFO,
    RULES,
    KnowledgeDoc,
    clean_entry_text,
    parse_knowledge,
    render_knowledge,
)
from .keys import dedup_key
from .reorganize_result import (
    Condensed,
    Group,
    Merge,
    ReorganizeOutcome,
    SameEntry,
    strict_same_entry,
)
from .word_overlap import similarity

OTHER_SHARE_MAX = 0.2
# A reworded entry must still be recognisably the one it replaces.
REWORDED_AT = 0.5

_OTHER_LABEL = re.compile(
    r"^(?:others?|other\s+\w+|misc\w*|general|various|uncategori[sz]ed|rest|"
    r"其他\S*|其它\S*|杂项|雜項|未分类|未分類)$",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"^(?:please\s+)?(?:note\s+that|remember\s+that|remember\s*:|note\s*:|fyi\s*[:,]?|"
    r"keep\s+in\s+mind\s+that|请注意[:：，,]?|請注意[:：，,]?)\s*",
    re.IGNORECASE,
)
_REPEATED_END = re.compile(r"([.!。！])\1+$")


class ReorganizeError(ValidationError):
    """A reorganized file that is not valid, longer than before or loses entries: refused."""


def condense(text: str) -> str:
    """Only filler goes: extra whitespace, filler openers, repeated end punctuation."""
    text = clean_entry_text(text)
    stripped = _FILLER.sub("", text)
    if stripped:
        text = stripped[:1].upper() + stripped[1:] if stripped[:1].isascii() else stripped
    return _REPEATED_END.sub(r"\1", text)


def is_other_label(label: str) -> bool:
    """A label that names nothing its entries share ("Other rules", "Misc", "其他信息")."""
    return bool(_OTHER_LABEL.match(unicodedata.normalize("NFKC", label).strip(" :：.")))


def other_share(doc: KnowledgeDoc) -> float:
    leaves = len(doc.leaves())
    if not leaves:
        return 0.0
    hidden = sum(
        len(e.children)
        for name in (RULES, INFO)
        for e in doc.section(name)
        if e.is_group and is_other_label(e.text)
    )
    return hidden / leaves


def _refuse(message: str) -> ReorganizeError:
    return ReorganizeError(message, field="reorganize")


def _match_section(
    name: str,
    before: list[str],
    after: list[str],
    same_entry: SameEntry,
) -> tuple[list[Merge], list[Condensed]]:
    """Pair every entry before with one after, or with a same entry that was paired."""
    free = list(range(len(after)))
    keys = [dedup_key(condense(a)) for a in after]
    paired: dict[int, int] = {}  # before index -> after index
    for i, leaf in enumerate(before):
        key = dedup_key(condense(leaf))
        j = next((j for j in free if keys[j] == key), None)
        if j is not None:
            paired[i] = j
            free.remove(j)
    merges: list[Merge] = []
    rest: list[int] = []
    for i, leaf in enumerate(before):
        if i in paired:
            continue
        twin = next(
            (
                (k, why)
                for k in paired
                if (why := same_entry(condense(before[k]), condense(leaf))) is not None
            ),
            None,
        )
        if twin is not None:
            merges.append(Merge(name, after[paired[twin[0]]], leaf, twin[1]))
        else:
            rest.append(i)
    # What is left was reworded (by an LLM): the closest remaining entry, one to one.
    scored = sorted(
        ((similarity(before[i], after[j]), i, j) for i in rest for j in free),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    reworded: dict[int, int] = {}
    for score, i, j in scored:
        if score < REWORDED_AT:
            break
        if i in reworded or j in reworded.values():
            continue
        reworded[i] = j
    for i in rest:
        if i not in reworded:
            raise _refuse(M_("result dropped the entry {entry!r}", entry=before[i][:80]))
    added = [after[j] for j in free if j not in reworded.values()]
    if added:
        raise _refuse(
            M_("result added an entry the file does not hold: {entry!r}", entry=added[0][:80])
        )
    condensed = [
        Condensed(name, before[i], after[j])
        for i, j in sorted({**paired, **reworded}.items())
        if before[i] != after[j]
    ]
    return merges, condensed


def check_reorganized(
    before: KnowledgeDoc,
    text: str,
    *,
    same_entry: SameEntry = strict_same_entry,
    groups: tuple[Group, ...] | None = None,
) -> ReorganizeOutcome:
    """The outcome of replacing ``before`` by ``text``, or :class:`ReorganizeError` saying why not.

    ``groups`` are the labels the deterministic reorganizer made with the word
    each shares; for another author's text the new labels are listed with no
    shared word.
    """
    try:
        after = parse_knowledge(text, path="reorganized result")
    except ParseError as exc:
        raise _refuse(M_("result is not a valid knowledge file: {exc}", exc=exc)) from exc
    if after.legacy:
        raise _refuse(M_("result must have exactly the sections '## Rules' and '## Info'"))
    rendered = render_knowledge(after)
    chars_before = len(render_knowledge(before))
    if len(rendered) > chars_before:
        raise _refuse(
            M_(
                "result is {n:,} characters, longer than the file's {before:,}",
                n=len(rendered),
                before=chars_before,
            )
        )
    merges: list[Merge] = []
    condensed: list[Condensed] = []
    for name in (RULES, INFO):
        old = [leaf for e in before.section(name) for leaf in e.leaves]
        new = [leaf for e in after.section(name) for leaf in e.leaves]
        m, c = _match_section(name, old, new, same_entry)
        merges += m
        condensed += c
    share = other_share(after)
    if share > OTHER_SHARE_MAX:
        raise _refuse(
            M_(
                "result puts {pct:.0%} of the entries under an 'other' label (at most {limit:.0%})",
                pct=share,
                limit=OTHER_SHARE_MAX,
            )
        )
    if groups is None:
        old_labels = {(n, e.text) for n in (RULES, INFO) for e in before.section(n) if e.is_group}
        groups = tuple(
            Group(n, e.text, "", len(e.children))
            for n in (RULES, INFO)
            for e in after.section(n)
            if e.is_group and (n, e.text) not in old_labels
        )
    return ReorganizeOutcome(
        doc=after,
        text=rendered,
        merged=tuple(merges),
        condensed=tuple(condensed),
        groups=groups,
        chars_before=chars_before,
        chars_after=len(rendered),
        leaves_before=len(before.leaves()),
        leaves_after=len(after.leaves()),
        other_share=share,
    )


__all__ = [
    "OTHER_SHARE_MAX",
    "ReorganizeError",
    "check_reorganized",
    "condense",
    "is_other_label",
    "other_share",
]
