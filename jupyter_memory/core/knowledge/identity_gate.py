"""Which pairs of texts the identity decision can relate at all: a cheap necessary test.

:func:`.identity.relate` calls two texts anything but *unrelated* only once
their words, subject slots, markers or values meet (the overlap it reads is
a Dice of those sets, and below ``RELATED_AT`` with no subject slot shared it
answers "nothing in common"), or when their normalised keys are equal. So two
texts whose reach (:func:`reach_tokens`) is disjoint are unrelated, and a
caller comparing every pair of a list (Reorganize's duplicate pass: 300 rules
are 44,850 pairs, ~190 µs each) asks :func:`may_relate` first, a set
intersection of two cached sets; without the embedder, where only a large
overlap makes one entry, :func:`may_be_same` bounds that overlap from above.
Acronyms are expanded across the pair first, as relate does
(:func:`.identity_acronyms.one_name`).

``tests/core/test_identity_gate.py`` holds the promise: over labelled pairs and
every cross pair of them, a pair this module rules out is one relate calls
unrelated, or (without the embedder) not the same entry.
"""

from __future__ import annotations

from functools import lru_cache

from ..text import search_word
from .identity_acronyms import one_name
from .identity_analysis import analyse


@lru_cache(maxsize=32768)
def reach_tokens(text: str) -> frozenset[str]:
    """Everything of ``text`` relate's overlap and subject check can share with another text."""
    x = analyse(text)
    tables = (search_word(t) for t in x.slot("table"))  # a table named as a plain word
    return (
        x.tokens
        | x.subject_tokens
        | x.marker_tokens
        | x.value_tokens
        | frozenset(s for s in tables if s is not None)
    )


@lru_cache(maxsize=32768)
def _own_tokens(text: str) -> int:
    """How many tokens of ``text`` every overlap relate reads counts, whatever the other text."""
    x = analyse(text)
    return len(x.tokens | x.subject_tokens | x.marker_tokens | x.value_tokens)


def may_be_same(a: str, b: str, same_at: float) -> bool:
    """False only when relate(a, b) without a similarity is certainly not "the same entry".

    Without the embedder, relate calls two texts one entry only when their keys are
    equal or their overlap reaches ``same_at`` (identity.SAME_AT). That overlap is a
    Dice of two sets, each holding at least the text's own tokens and sharing at most
    their reach: 2 × shared reach ÷ (own tokens of both) bounds it from above.
    """
    a, b = one_name(a, b)
    shared = len(reach_tokens(a) & reach_tokens(b))
    if 2 * shared >= same_at * (_own_tokens(a) + _own_tokens(b)):
        return True
    return analyse(a).key == analyse(b).key


def may_relate(a: str, b: str) -> bool:
    """False only when relate(a, b) is certainly "unrelated" (see the module docstring)."""
    a, b = one_name(a, b)
    if not reach_tokens(a).isdisjoint(reach_tokens(b)):
        return True
    return analyse(a).key == analyse(b).key


__all__ = ["may_be_same", "may_relate", "reach_tokens"]
