"""Whether a new proposal is already known (spec 002 §4.2).

:func:`decide_duplicate` skips a proposal whose normalised key was dismissed
(:mod:`.keys`) and otherwise asks the identity module (:mod:`.identity`) how it
relates to each known entry; :class:`NeighbourIndex` finds the few entries
worth asking about. Reorganize's word-overlap score is :mod:`.word_overlap`.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ..._i18n import M_
from .identity import Identity, Relation, Similarity, relate
from .identity_analysis import analyse
from .identity_gate import may_relate
from .keys import dedup_hash
from .known import Known


@dataclass(frozen=True)
class DedupDecision:
    action: str  # "new" | "skip" | "supersede"
    reason: str = ""
    supersedes: str | None = None
    supersedes_text: str | None = None  # what it replaces, in words (the card says it)
    relation: Identity | None = None  # how it relates to the entry that decided it


def decide_duplicate(
    text: str,
    known: Iterable[Known],
    dismissed_hashes: Iterable[str] = (),
    similarity: Similarity | None = None,
) -> DedupDecision:
    """Skip what is the same entry as approved, pending or dismissed text; supersede updates.

    The identity module decides (:func:`.identity.relate`): only an *update of
    the same subject* of a pending item supersedes it; a rule about another
    region, period, metric or table is new however alike its words.
    """
    if dedup_hash(text) in set(dismissed_hashes):
        return DedupDecision("skip", M_("this proposal was dismissed before"))
    best: tuple[float, Known, Identity] | None = None
    for item in known:
        # Neither the same entry nor an update of one, for sure (identity_gate.py): the
        # whole queue is compared with every proposal.
        if not may_relate(text, item.text):
            continue
        rel = relate(text, item.text, similarity)
        if rel.kind is Relation.SAME:
            if item.where == "knowledge":
                reason = M_("already in {ref} knowledge", ref=item.ref)
            elif item.where == "dismissed":
                reason = M_("the same as dismissed {ref}", ref=item.ref)
            else:
                reason = M_("already pending as {ref}", ref=item.ref)
            return DedupDecision("skip", reason, relation=rel)
        if (
            item.where == "pending"
            and rel.kind is Relation.UPDATE
            and (best is None or rel.overlap > best[0])
        ):
            best = (rel.overlap, item, rel)
    if best is not None:
        _, item, rel = best
        return DedupDecision(
            "supersede", M_("updates pending {ref}", ref=item.ref), item.ref, item.text, rel
        )
    return DedupDecision("new")


@dataclass(frozen=True)
class Neighbour:
    """A known entry a person should see beside a proposal: similar, updated or in conflict."""

    text: str
    where: str  # "knowledge" or "pending"
    ref: str  # layer label, or the pending proposal's id
    relation: Identity

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "where": self.where,
            "ref": self.ref,
            "relation": self.relation.kind.value,
            "reason": str(self.relation.reason),
            "slot": self.relation.slot,
        }


NEIGHBOUR_OVERLAP = 0.5  # a related entry this close is worth showing ("similar to …")
_NEIGHBOUR_ORDER = {Relation.CONTRADICTS: 0, Relation.UPDATE: 1, Relation.SAME: 2,
                    Relation.RELATED: 3}  # fmt: skip


# A queue listing asks for the neighbours of a page of proposals among every known
# entry (thousands of pending proposals in a large queue): the identity decision
# runs only on the entries sharing the most words with each text.
NEIGHBOUR_CANDIDATES = 48


class NeighbourIndex:
    """The known entries of one layer, indexed by the words the identity decision reads.

    Two texts that share no word, slot or value are unrelated to the identity
    decision (nothing in common), so only entries sharing some are compared,
    the :data:`NEIGHBOUR_CANDIDATES` that share the most.
    """

    def __init__(self, known: Iterable[Known]) -> None:
        self._known = list(known)
        self._by_token: dict[str, list[int]] = {}
        for i, item in enumerate(self._known):
            for token in _index_tokens(item.text):
                self._by_token.setdefault(token, []).append(i)

    def nearest(self, text: str, *, skip_ref: str | None = None, limit: int = 3) -> list[Neighbour]:
        """The nearest approved and pending entries, conflicts first (issue 32: context at
        decision time): contradictions, updates, the same entry, related ones that share
        at least half their words."""
        # Counted in C (Counter.update) and cut with a heap: the same entries in the same
        # order as sorting every entry sharing a word, without the sort (a common word is
        # shared by thousands of pending proposals).
        shared: Counter[int] = Counter()
        for token in _index_tokens(text):
            postings = self._by_token.get(token)
            if postings:
                shared.update(postings)
        ranked = heapq.nsmallest(NEIGHBOUR_CANDIDATES, shared.items(), key=_most_shared)
        found: list[Neighbour] = []
        for i, _ in ranked:
            item = self._known[i]
            if item.ref == skip_ref:
                continue
            rel = relate(text, item.text)
            if rel.kind is Relation.UNRELATED:
                continue
            if rel.kind is Relation.RELATED and rel.overlap < NEIGHBOUR_OVERLAP:
                continue
            found.append(Neighbour(item.text, item.where, item.ref, rel))
        found.sort(key=lambda n: (_NEIGHBOUR_ORDER[n.relation.kind], -n.relation.overlap))
        return found[:limit]


def _most_shared(entry: tuple[int, int]) -> tuple[int, int]:
    """Most shared words first, then the earlier entry (the order a listing shows)."""
    i, count = entry
    return -count, i


def _index_tokens(text: str) -> frozenset[str]:
    a = analyse(text)
    return (a.tokens | a.subject_tokens | a.value_tokens) or frozenset({a.key})
