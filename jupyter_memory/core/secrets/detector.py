"""Find and redact secrets in a text: gitleaks' rules plus ours (:mod:`.own_rules`).

Pure and lazy: a rule's regex is compiled the first time one of its keywords
is in a text (gitleaks' own prefilter), so a cell without "key", "token",
"://" … costs a few keyword scans, and importing this module compiles nothing.

A hit names its *kind* (a gitleaks rule id such as ``github-pat``, or ours:
``dsn-password``, ``secret-assignment`` …) and the span of the secret only,
so ``password = "⟨redacted: secret-assignment⟩"`` still reads as code.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..ids import ID_RE
from . import gitleaks_rules as gl
from . import own_rules as own

MARKER = "⟨redacted: {kind}⟩"
_MARKER_RE = re.compile(r"⟨redacted: [\w.-]+⟩")
# A gitleaks id that reads better to a person under another name.
KIND_ALIASES = {"aws-access-token": "aws-access-key"}
ASSIGNMENT_KIND = "secret-assignment"
# Lowercase hex up to 40 characters is a commit id or a checksum, not a key:
# ``key = "9fceb02…"`` in analysis code stays (a real key of that shape is
# caught by its own provider rule).
_HEX_ID = re.compile(r"^[0-9a-f]{7,40}$")
_GENERIC = ("generic-api-key", ASSIGNMENT_KIND)


@dataclass(frozen=True)
class SecretHit:
    """One secret in a text: its kind and where it is (never the secret itself in output)."""

    kind: str
    start: int
    end: int

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "start": self.start, "end": self.end}


def entropy(value: str) -> float:
    """Shannon entropy in bits per character (gitleaks' measure)."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


@cache
def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _global_allowed(secret: str) -> bool:
    low = secret.lower()
    if any(s in low for s in gl.GLOBAL_STOPWORDS):
        return True
    return any(_re(r).search(secret) for r in gl.GLOBAL_REGEXES)


def _rule_allowed(allowlists: tuple[Any, ...], secret: str, match: str, line: str) -> bool:
    for target, regexes, stopwords, all_needed in allowlists:
        subject = {"match": match, "line": line}.get(target, secret)
        checks = []
        if regexes:
            checks.append(any(_re(r).search(subject) for r in regexes))
        if stopwords:
            low = secret.lower()
            checks.append(any(s in low for s in stopwords))
        if checks and (all(checks) if all_needed else any(checks)):
            return True
    return False


def _line_at(text: str, start: int, end: int) -> str:
    return text[text.rfind("\n", 0, start) + 1 : (text.find("\n", end) + 1 or len(text) + 1) - 1]


@cache
def _keyword_index() -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """Keywords by their first three characters, and the shorter ones (checked directly)."""
    by_tri: dict[str, list[str]] = {}
    short = []
    for rule in gl.RULES:
        for k in rule[2]:
            if len(k) < 3:
                short.append(k)
            else:
                by_tri.setdefault(k[:3], []).append(k)
    for _, _, keywords, _, _ in own.OWN_RULES:
        for k in keywords:
            by_tri.setdefault(k[:3], []).append(k)
    for k in own.ASSIGNMENT_KEYWORDS:
        (short.append(k) if len(k) < 3 else by_tri.setdefault(k[:3], []).append(k))
    return {t: tuple(set(ks)) for t, ks in by_tri.items()}, tuple(set(short))


def _present(low: str) -> frozenset[str]:
    """The rule keywords in ``low``: one pass over its trigrams instead of 250 scans."""
    by_tri, short = _keyword_index()
    trigrams = set(map("".join, zip(low, low[1:], low[2:], strict=False)))
    found = {k for t in trigrams.intersection(by_tri) for k in by_tri[t] if k in low}
    found.update(k for k in short if k in low)
    return frozenset(found)


def _lines_with(text: str, low: str, keywords: Iterable[str]) -> Iterable[tuple[int, str]]:
    """(offset, line) of the lines holding a keyword: for rules that never span lines."""
    at = 0
    for line in text.split("\n"):
        end = at + len(line)
        part = low[at:end]
        if any(k in part for k in keywords):
            yield at, line
        at = end + 1


# Rules whose matches stay on one line and fire on common words ("key", "token"):
# run on the lines holding their keywords only.
_LINE_RULES = frozenset({"generic-api-key"})


def _gitleaks_hits(text: str, low: str, present: frozenset[str]) -> Iterable[SecretHit]:
    for rule_id, pattern, keywords, min_entropy, group, allowlists in gl.RULES:
        if keywords and present.isdisjoint(keywords):
            continue
        if rule_id in _LINE_RULES:
            for offset, line in _lines_with(text, low, keywords):
                for hit in _rule_hits(line, rule_id, pattern, min_entropy, group, allowlists):
                    yield SecretHit(hit.kind, hit.start + offset, hit.end + offset)
        else:
            yield from _rule_hits(text, rule_id, pattern, min_entropy, group, allowlists)


def _rule_hits(
    text: str,
    rule_id: str,
    pattern: str,
    min_entropy: float,
    group: int,
    allowlists: tuple[Any, ...],
) -> Iterable[SecretHit]:
    for m in _re(pattern).finditer(text):
        # gitleaks: the rule's secret group, else the first group that matched, else all
        idx = group or next((i for i in range(1, len(m.groups()) + 1) if m.group(i)), 0)
        secret = m.group(idx)
        if not secret or (min_entropy and entropy(secret) < min_entropy):
            continue
        if rule_id == "generic-api-key" and _HEX_ID.match(secret):
            continue
        if _global_allowed(secret):
            continue
        line = _line_at(text, m.start(), m.end())
        if allowlists and _rule_allowed(allowlists, secret, m.group(), line):
            continue
        yield SecretHit(KIND_ALIASES.get(rule_id, rule_id), m.start(idx), m.end(idx))


def _own_hits(text: str, low: str, present: frozenset[str]) -> Iterable[SecretHit]:
    templated = _re(own.TEMPLATED_VALUE)
    for kind, pattern, keywords, min_entropy, min_len in own.OWN_RULES:
        if present.isdisjoint(keywords):
            continue
        for m in _re(pattern).finditer(text):
            secret = m.group("s")
            if len(secret) < min_len or templated.match(secret):
                continue
            if min_entropy and entropy(secret) < min_entropy:
                continue
            yield SecretHit(kind, m.start("s"), m.end("s"))
    if present.isdisjoint(own.ASSIGNMENT_KEYWORDS):
        return
    for offset, line in _lines_with(text, low, own.ASSIGNMENT_KEYWORDS):
        for hit in _assignment_hits(line, templated):
            yield SecretHit(hit.kind, hit.start + offset, hit.end + offset)


def _assignment_hits(text: str, templated: re.Pattern[str]) -> Iterable[SecretHit]:
    password_name = _re(own.PASSWORD_NAME)
    identifier = _re(own.IDENTIFIER_CHAIN)
    for m in _re(own.ASSIGNMENT).finditer(text):
        group = "s" if m.group("s") is not None else "u"
        secret = m.group(group)
        if templated.match(secret) or _MARKER_RE.search(secret):
            continue
        if group == "u" and identifier.match(secret):
            continue  # token = tokenizer, password = getpass: names, not values
        is_password = bool(password_name.search(m.group("name")))
        min_len, min_entropy = own.PASSWORD_MIN if is_password else own.SECRET_MIN
        if len(secret) < min_len or entropy(secret) < min_entropy:
            continue
        if not is_password and _HEX_ID.match(secret):
            continue
        yield SecretHit(ASSIGNMENT_KIND, m.start(group), m.end(group))


def find_secrets(text: str) -> tuple[SecretHit, ...]:
    """The secrets in ``text``, in order, overlaps merged (the first rule's kind wins).

    Already redacted spans (``⟨redacted: …⟩``) are never hits, so redacting twice
    changes nothing.
    """
    if not text:
        return ()
    # Our own ids are read as ids, never as a keyword or a value: blanked at the same
    # length, so every offset still points into the text as given.
    text = ID_RE.sub(lambda m: "_" * len(m.group()), text)
    low = text.lower()
    if len(low) != len(text):  # a few characters change length when lowered (İ)
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    present = _present(low)
    markers = [(m.start(), m.end()) for m in _MARKER_RE.finditer(text)]
    hits = sorted(
        (
            h
            for h in (*_gitleaks_hits(text, low, present), *_own_hits(text, low, present))
            if h.end > h.start
        ),
        key=lambda h: (h.start, -h.end, h.kind in _GENERIC),
    )
    merged: list[SecretHit] = []
    for hit in hits:
        if any(s < hit.end and hit.start < e for s, e in markers):
            continue
        if merged and hit.start < merged[-1].end:
            last = merged[-1]
            if hit.end > last.end:
                merged[-1] = SecretHit(last.kind, last.start, hit.end)
            continue
        merged.append(hit)
    return tuple(merged)


def secret_kinds(text: str) -> tuple[str, ...]:
    """The distinct kinds of secret in ``text``, in order of first appearance."""
    return tuple(dict.fromkeys(h.kind for h in find_secrets(text)))


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``⟨redacted: <kind>⟩``; unchanged when none."""
    hits = find_secrets(text)
    if not hits:
        return text
    parts, at = [], 0
    for hit in hits:
        parts += [text[at : hit.start], MARKER.format(kind=hit.kind)]
        at = hit.end
    parts.append(text[at:])
    return "".join(parts)


__all__ = ["MARKER", "SecretHit", "entropy", "find_secrets", "redact", "secret_kinds"]
