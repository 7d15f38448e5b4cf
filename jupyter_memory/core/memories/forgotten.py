"""Which recorded texts hold a forgotten memory (issue 29, "forget everywhere").

A memory's words also sit in what was recorded on the way to it: the cell
that ran ``%remember …`` in the recent texts, the digest inbox's messages.
A record holds the memory when it contains, after folding case and runs of
white space, the memory's text, its title or one of its evidence quotes. A
needle shorter than :data:`MIN_NEEDLE` characters is not used: a title like
"notes" would otherwise take every record that says it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

MIN_NEEDLE = 12
_SPACE = re.compile(r"\s+")


def _fold(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def needles(text: str, title: str, quotes: Iterable[str]) -> list[str]:
    """The folded strings whose presence marks a record as holding the memory."""
    out = {_fold(s) for s in (text, title, *quotes)}
    return sorted(n for n in out if len(n) >= MIN_NEEDLE)


def holder(found: list[str]) -> Callable[[str], bool]:
    """A test of one record's text against :func:`needles`."""

    def holds(record_text: str) -> bool:
        folded = _fold(record_text)
        return any(n in folded for n in found)

    return holds
