"""The deterministic reorganizer (spec 002 §6.2–6.3), the default when no LLM is configured.

It never loses a rule (issue 32, item 6). Per section:

1. **Merge only true duplicates**: a leaf is dropped only when the injected
   ``same_entry`` test (default :func:`~.reorganize_result.strict_same_entry`:
   identical after whitespace, case and punctuation normalisation) says it is
   the same entry as an earlier kept leaf. Rules about different regions,
   tables or metrics are different entries and all stay.
2. **Condense only filler**: whitespace, filler openers ("Note that",
   "FYI", "请注意") and repeated end punctuation (:func:`~.reorganize_check.condense`).
3. **Group only under a shared word** (at or past the layer's catalog
   threshold): leaves that share a topic word — a metric, a table, a region,
   a column ("GMV", "orders_daily", "North", "收入") — go under that word as
   their label, largest group first; a leaf that shares nothing with another
   stays a top-level entry. There is no "Other" bucket: an existing one made
   by an earlier reorganize is opened up and regrouped. Existing labelled
   groups are kept.
4. **Never longer**: a label line and the indent of its children cost
   characters; groups are made only as far as the characters merging and
   condensing saved pay for them, so the file never grows.

The result goes through :func:`~.reorganize_check.check_reorganized` like an
LLM's would, and is a :class:`~.reorganize_result.ReorganizeOutcome` listing
every merge (with why), every condensed entry and every new group.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .context import CATALOG_THRESHOLD
from .format import (
    INFO,
    RULES,
    Entry,
    KnowledgeDoc,
    chars_of,
    render_knowledge,
)
from .reorganize_check import (
    ReorganizeError,
    check_reorganized,
    condense,
    is_other_label,
)
from .reorganize_result import Group, ReorganizeOutcome, SameEntry, strict_same_entry

MIN_GROUP = 2

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*[A-Za-z0-9]|[A-Z]")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# Words that say how (normative, definitional, function words), never what a group shares.
_STOP = frozenset(
    """
    a an the is are be been was were to of in on at for and or that this it its we our you
    your by with as from into than then when if not no do does don doesn always never must
    should shall may can cannot use used using per each every all any only also before after
    over under more less most least same new old exclude excludes excluded include includes
    included including mean means meant refer refers defined define defines definition make
    sure note rule info avoid prefer keep show shows shown set sets get gets count counts one
    two three first last day days time times week weeks month months year years
    """.split()  # noqa: SIM905 - a word list reads as words
)
_CJK_STOP = frozenset(
    """
    必须 必須 不要 应该 應該 务必 務必 禁止 口径 口徑 定义 定義 义为 義為 是指 指的 的是 不含 包含 不包
    包括 统一 統一 需要 注意 一律 使用 以及 或者 并且 如果 时候 可以 不能 不得
    """.split()  # noqa: SIM905
)


def _topic_words(leaf: str) -> dict[str, tuple[str, int]]:
    """key → (the word as written, its position): the words a group label may be."""
    text = unicodedata.normalize("NFKC", leaf)
    out: dict[str, tuple[str, int]] = {}
    for m in _WORD.finditer(text):
        word = m.group(0)
        key = word.casefold()
        if len(key) < 3 and not word.isupper():
            continue
        if key in _STOP:
            continue
        if len(key) > 3 and key.endswith("s") and not key.endswith("ss"):
            key = key[:-1]  # "tables" and "table" share a topic
        out.setdefault(key, (word, m.start()))
    for m in _CJK_RUN.finditer(text):
        run = m.group(0)
        for i in range(len(run) - 1):
            pair = run[i : i + 2]
            if pair not in _CJK_STOP:
                out.setdefault(pair, (pair, m.start() + i))
    return out


@dataclass
class _Leaf:
    text: str
    group: str | None  # the label it already had


def _dedupe(name: str, entries: tuple[Entry, ...], same_entry: SameEntry) -> list[_Leaf]:
    kept: list[_Leaf] = []
    for entry in entries:
        # A bucket that names nothing shared ("Other rules") is opened up and regrouped.
        group = entry.text if entry.is_group and not is_other_label(entry.text) else None
        for raw in entry.leaves:
            leaf = condense(raw) or raw
            if any(same_entry(k.text, leaf) is not None for k in kept):
                continue  # check_reorganized lists it as merged, with why
            kept.append(_Leaf(leaf, group))
    return kept


def _label(word: str) -> str:
    return word[:1].upper() + word[1:] if word[:1].islower() else word


def _group_cost(label: str, members: int) -> int:
    return len(f"- {label}\n") + 2 * members  # the label line and the children's indent


def _regroup(
    name: str, kept: list[_Leaf], budget: int, taken: set[str]
) -> tuple[tuple[Entry, ...], list[Group], int]:
    """Group the leaves without a label by shared topic words, within ``budget`` characters."""
    loose = [i for i, leaf in enumerate(kept) if leaf.group is None]
    words = {i: _topic_words(kept[i].text) for i in loose}
    label_of: dict[int, str] = {i: g for i, leaf in enumerate(kept) if (g := leaf.group)}
    made: list[Group] = []
    free = set(loose)
    while len(free) >= MIN_GROUP:
        counts: dict[str, list[int]] = {}
        for i in sorted(free):
            for key in words[i]:
                counts.setdefault(key, []).append(i)
        best: tuple[int, float, str] | None = None
        for key, members in counts.items():
            # A word every leaf of a section shares does not tell them apart.
            if len(members) < MIN_GROUP or (len(members) == len(loose) and len(loose) > 3):
                continue
            position = sum(words[i][key][1] for i in members) / len(members)
            cand = (len(members), -position, key)
            if best is None or cand[:2] > best[:2]:
                best = cand
        if best is None:
            break
        key = best[2]
        members = counts[key]
        label = _label(words[members[0]][key][0])
        if dedup_label(label) in taken or _group_cost(label, len(members)) > budget:
            for i in members:
                words[i].pop(key, None)  # try the next shared word
            continue
        budget -= _group_cost(label, len(members))
        taken.add(dedup_label(label))
        made.append(Group(name, label, words[members[0]][key][0], len(members)))
        for i in members:
            label_of[i] = label
            free.discard(i)
    out: list[Entry] = []
    children: dict[str, list[str]] = {}
    for i, leaf in enumerate(kept):
        at = label_of.get(i)
        if at is None:
            out.append(Entry(leaf.text))
        elif at in children:
            children[at].append(leaf.text)
        else:
            children[at] = [leaf.text]
            out.append(Entry(at))
    entries = tuple(
        Entry(e.text, tuple(children[e.text])) if e.text in children else e for e in out
    )
    return entries, made, budget


def dedup_label(label: str) -> str:
    return unicodedata.normalize("NFKC", label).casefold()


def _flat(kept: list[_Leaf]) -> tuple[Entry, ...]:
    """Without regrouping: groups stay groups, plain entries stay plain."""
    out: list[Entry] = []
    groups: dict[str, list[str]] = {}
    for leaf in kept:
        if leaf.group is None:
            out.append(Entry(leaf.text))
        elif leaf.group in groups:
            groups[leaf.group].append(leaf.text)
        else:
            groups[leaf.group] = [leaf.text]
            out.append(Entry(leaf.group))
    return tuple(Entry(e.text, tuple(groups[e.text])) if e.text in groups else e for e in out)


def reorganize_doc(
    doc: KnowledgeDoc,
    layer: str,
    *,
    same_entry: SameEntry = strict_same_entry,
) -> ReorganizeOutcome:
    """Reorganize ``doc`` by the rules above; ``same_entry`` decides what is a duplicate."""
    kept = {name: _dedupe(name, doc.section(name), same_entry) for name in (RULES, INFO)}
    flat = KnowledgeDoc(_flat(kept[RULES]), _flat(kept[INFO]), doc.title)
    made: list[Group] = []
    result = flat
    if chars_of(flat) >= CATALOG_THRESHOLD[layer]:
        budget = chars_of(doc) - chars_of(flat)
        taken = {dedup_label(leaf.group) for ks in kept.values() for leaf in ks if leaf.group}
        rules, made_rules, budget = _regroup(RULES, kept[RULES], budget, taken)
        info, made_info, budget = _regroup(INFO, kept[INFO], budget, taken)
        made = made_rules + made_info
        result = KnowledgeDoc(rules, info, doc.title)
    # Held to the same check as an LLM's text (no "other" bucket is ever made here).
    return check_reorganized(
        doc, render_knowledge(result), same_entry=same_entry, groups=tuple(made)
    )


def needs_preinject_reorganize(doc: KnowledgeDoc, layer: str) -> bool:
    """Past the catalog threshold but still all top-level (spec §6.3)."""
    return chars_of(doc) >= CATALOG_THRESHOLD[layer] and not doc.has_groups and not doc.is_empty


__all__ = [
    "ReorganizeError",
    "condense",
    "needs_preinject_reorganize",
    "reorganize_doc",
]
