"""Run a long ordered list of regex rules over a text, skipping the rules that cannot match.

The identity analysis rewrites every text with about 270 patterns in order (rewrites, values,
slots, markers). A ``sub`` that finds nothing still costs a call and a scan of the text, 1–3 µs
each: most of the analysis's ~0.9 ms a text, and a queue of 5,000 pending proposals is analysed
whole at its first listing. A typical text can be matched by only about 7 of the 270.

Each pattern is read once (its parse tree, ``re._parser``) for the literal strings a match
cannot do without: "any match holds one of these". One scan of the text for all those
literals at once (a trie as one regex, a lookahead at every position: linear in the text)
tells which rules can match; only those run, in their order. When a rule changes the text, the
text is scanned again before the next rule, so every rule is asked exactly when it could have
matched: the result is the one of running every rule (tests/core/test_regex_gate.py checks this
against running them all, on the benchmark texts and on generated ones).

A pattern whose literals cannot be read (a character class, an optional part, a
case-insensitive flag) has none, and always runs.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

if sys.version_info >= (3, 11):
    import re._constants as _c
    import re._parser as _parse
else:  # the same modules, under their old names (deprecated since 3.11)
    import sre_constants as _c
    import sre_parse as _parse

Literals = frozenset[str]
_SMALL_CLASS = 6  # a class of at most this many single characters is a set of literals


def required_literals(pattern: re.Pattern[str]) -> Literals | None:
    """Strings one of which every match of ``pattern`` holds (lookarounds included), or None."""
    if pattern.flags & re.IGNORECASE:
        return None  # case folding would need every cased form of each literal
    return _sequence(list(_parse.parse(pattern.pattern, pattern.flags).data))


def _sequence(items: list[tuple[Any, Any]]) -> Literals | None:
    """Every element of a sequence is required: keep the most selective requirement."""
    found: list[Literals] = []
    run: list[str] = []
    for op, av in items:
        if op is _c.LITERAL:  # consecutive literals are one string
            run.append(chr(av))
            continue
        if run:
            found.append(frozenset({"".join(run)}))
            run = []
        need = _node(op, av)
        if need:
            found.append(need)
    if run:
        found.append(frozenset({"".join(run)}))
    if not found:
        return None
    # The longest shortest literal is the rarest; then the fewest alternatives.
    return max(found, key=lambda s: (min(len(x) for x in s), -len(s)))


def _node(op: Any, av: Any) -> Literals | None:
    if op is _c.LITERAL:
        return frozenset({chr(av)})
    if op is _c.SUBPATTERN:
        _, add_flags, _, body = av
        return None if add_flags & re.IGNORECASE else _sequence(list(body))
    if op is _c.BRANCH:  # one branch matches: the union of theirs, if each has some
        union: set[str] = set()
        for branch in av[1]:
            need = _sequence(list(branch))
            if need is None:
                return None
            union |= need
        return frozenset(union)
    if op in _REPEATS:
        low, _, body = av
        return _sequence(list(body)) if low >= 1 else None
    if op is _c.ASSERT:  # a positive lookahead or lookbehind reads the text too
        return _sequence(list(av[1]))
    if op is _ATOMIC:
        return _sequence(list(av))
    if op is _c.IN and len(av) <= _SMALL_CLASS and all(o is _c.LITERAL for o, _ in av):
        return frozenset(chr(a) for _, a in av)
    return None  # a class, an anchor, a negative lookaround, a back-reference: no literal


_REPEATS = tuple(
    op
    for op in (
        getattr(_c, "MAX_REPEAT", None),
        getattr(_c, "MIN_REPEAT", None),
        getattr(_c, "POSSESSIVE_REPEAT", None),
    )
    if op is not None
)
_ATOMIC = getattr(_c, "ATOMIC_GROUP", object())


def _trie_regex(words: Sequence[str]) -> re.Pattern[str]:
    """One regex finding, at every position, the longest of ``words`` that starts there."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = "(?:" + "|".join(alts) + ")"
        return body + "?" if "" in node else body  # greedy: the longer word first

    return re.compile("(?=(" + emit(trie) + "))") if words else re.compile(r"(?!)")


class RuleGate:
    """Which of an ordered list of patterns can match a text, by one scan for their literals."""

    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        needs = [required_literals(p) for p in patterns]
        self.size = len(patterns)
        self._always = frozenset(i for i, need in enumerate(needs) if need is None)
        words = sorted({w for need in needs if need for w in need})
        by_word: dict[str, set[int]] = {w: set() for w in words}
        for i, need in enumerate(needs):
            for w in need or ():
                by_word[w].add(i)
        # The scan reports the longest literal at each position: the shorter literals that
        # are its prefixes start there too, so each reported word stands for all of them.
        self._rules_of: dict[str, frozenset[int]] = {
            w: frozenset(i for k in range(1, len(w) + 1) for i in by_word.get(w[:k], ()))
            for w in words
        }
        self._scan = _trie_regex(words)

    def candidates(self, text: str, after: int = -1) -> list[int]:
        """The rules (indices, in order, past ``after``) that could match ``text``."""
        hits = set(self._always)
        for word in set(self._scan.findall(text)):
            hits |= self._rules_of[word]
        return sorted(i for i in hits if i > after)

    def run(self, text: str, step: Callable[[int, str], str]) -> str:
        """``step(i, text)`` for each rule that could match, in order; the text it returns
        goes on (scanned again when it changed, so a rewrite can enable a later rule)."""
        todo = self.candidates(text)
        pos = 0
        while pos < len(todo):
            i = todo[pos]
            pos += 1
            new = step(i, text)
            if new != text:
                text = new
                todo = self.candidates(text, after=i)
                pos = 0
        return text


__all__ = ["RuleGate", "required_literals"]
