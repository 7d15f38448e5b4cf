"""Filler text that makes a stored note large without one long word.

A writer test pads its notes to a size (a larger file widens the window a kill can
tear). ``"x" * 2000`` is one 2,000-letter word, and every remember/update runs the
identity analysis over the new text (core/knowledge/identity_analysis.analyse):
one of its patterns backtracks quadratically in the length of a lower-case run
(about 0.6 s per 2,000-letter word, 2.6 s at 4,000), so the writers spent their
time there rather than writing. Words of ten characters keep the size and the
files' shape (still plain ASCII, one paragraph).
"""

from __future__ import annotations


def padding(chars: int, letter: str = "x") -> str:
    """``chars`` characters of nine-letter words, each followed by a space."""
    word = letter * 9 + " "
    return (word * (chars // len(word) + 1))[:chars]
