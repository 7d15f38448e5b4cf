"""Lexical ranking variants scored in Python, one knob at a time (issue 33).

:class:`Variant` is one point: how text is analysed (stopword list, stemming,
numbers, dates, the irregular verb forms) and how bm25 scores it (title
weight, k1, b, the idf formula, what counts as a message's length).
:func:`production` mirrors what the index does (``core/text.py``'s analyser;
FTS5's bm25 over title and body, k1 1.2, b 0.75, idf floored at 1e-6, a row's
length over all its columns; ties to the newest); the benchmarks check the
mirror against the production recall path in the same run, so a variant's Δ is
a Δ of the production ranking. :func:`plain_bm25` is issue 33's baseline:
regex words, a short stopword list, no stemming, Lucene's idf, k1 1.5, b 0.75,
over the message text alone.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Literal

import Stemmer

from jupyter_memory.core.memories.inputs import default_title
from jupyter_memory.core.stopwords import ENGLISH_STOPWORDS, IRREGULAR_FORMS
from jupyter_memory.core.text import normalize

# Lucene's English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET): "a short stopword list".
_SHORT = """a an and are as at be but by for if in into is it no not of on or such that the
their then there these they this to was will with"""
SHORT_STOPWORDS = frozenset(_SHORT.split())
_MONTHS = """january february march april may june july august september october november
december monday tuesday wednesday thursday friday saturday sunday"""
MONTHS = frozenset(_MONTHS.split())
_WORD = re.compile(r"[^\W_]+")
_STEM = Stemmer.Stemmer("english")


@dataclass(frozen=True)
class Variant:
    stopwords: Literal["snowball", "short", "none"] = "snowball"
    stemming: Literal["snowball", "plural", "none"] = "snowball"
    irregular: bool = True
    numbers: Literal["keep", "drop"] = "keep"
    dates: Literal["keep", "stop"] = "keep"  # month and weekday names as stopwords
    title_weight: float = 1.0
    k1: float = 1.2
    b: float = 0.75
    idf: Literal["fts5", "lucene"] = "lucene"
    length: Literal["all", "body"] = "all"  # dl over every column, or the body alone

    def word(self, w: str) -> str | None:
        stops = {"snowball": ENGLISH_STOPWORDS, "short": SHORT_STOPWORDS, "none": ()}[
            self.stopwords
        ]
        if w in stops or (self.dates == "stop" and w in MONTHS):
            return None
        if not w.isascii() or not w.isalpha():
            return None if self.numbers == "drop" and any(c.isdigit() for c in w) else w
        if self.irregular:
            w = IRREGULAR_FORMS.get(w, w)
        if self.stemming == "snowball":
            return str(_STEM.stemWord(w))
        if self.stemming == "plural" and len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            return w[:-1]
        return w

    def tokens(self, text: str) -> list[str]:
        out = []
        for w in _WORD.findall(normalize(text)):
            t = self.word(w)
            if t is not None:
                out.append(t)
        return out


def production() -> Variant:
    return Variant()


def plain_bm25() -> Variant:
    return Variant(
        stopwords="short", stemming="none", irregular=False, title_weight=0.0,
        k1=1.5, idf="lucene", length="body",
    )  # fmt: skip


_TOKENS: dict[tuple[object, ...], list[tuple[list[str], list[str]]]] = {}


def _analysed(texts: list[str], v: Variant) -> list[tuple[list[str], list[str]]]:
    """(body, title) tokens of each text; cached per analyser and corpus (the
    scoring knobs reuse them)."""
    key = (v.stopwords, v.stemming, v.irregular, v.numbers, v.dates, len(texts), hash(tuple(texts)))
    got = _TOKENS.get(key)
    if got is None:
        got = _TOKENS[key] = [(v.tokens(t), v.tokens(default_title(t))) for t in texts]
    return got


class Scorer:
    """bm25 over ``texts`` (each a message, its title its first line) as ``v`` says.

    ``ties``: equal scores go to the newest (last) text, as the index orders them,
    or to the oldest (first), as Lucene orders by document number.
    """

    def __init__(self, texts: list[str], v: Variant, ties: str = "newest") -> None:
        self.v, self.ties = v, ties
        self.postings: dict[str, list[tuple[int, float]]] = {}
        self.dl: list[int] = []
        for i, (body, title) in enumerate(_analysed(texts, v)):
            tf: Counter[str] = Counter(body)
            weighted: dict[str, float] = {t: float(n) for t, n in tf.items()}
            for t in title:
                weighted[t] = weighted.get(t, 0.0) + v.title_weight
            for t, f in weighted.items():
                self.postings.setdefault(t, []).append((i, f))
            self.dl.append(len(body) + (len(title) if v.length == "all" else 0))
        n = len(texts)
        self.avgdl = sum(self.dl) / max(1, n)
        # df counts an entry holding the term in any column (a 0-weight title too).
        df = {t: len(p) for t, p in self.postings.items()}
        if v.idf == "lucene":
            self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        else:
            self.idf = {t: max(1e-6, math.log((n - d + 0.5) / (d + 0.5))) for t, d in df.items()}
        k1, b = v.k1, v.b
        self.norm = [k1 * (1 - b + b * d / self.avgdl) for d in self.dl]

    def top(self, query: str, k: int) -> list[int]:
        terms = [t for t in dict.fromkeys(self.v.tokens(query)) if t in self.idf]
        k1 = self.v.k1
        scores: dict[int, float] = {}
        for t in terms:
            w = self.idf[t] * (k1 + 1)
            for i, f in self.postings[t]:
                if f:
                    scores[i] = scores.get(i, 0.0) + w * f / (f + self.norm[i])
        sign = -1 if self.ties == "newest" else 1
        ranked = sorted(
            ((s, i) for i, s in scores.items() if s > 0), key=lambda x: (-x[0], sign * x[1])
        )
        return [i for _, i in ranked[:k]]


def with_knob(v: Variant, name: str, value: object) -> Variant:
    return replace(v, **{name: value})


# One knob at a time, neutral (production's value) first.
KNOBS: dict[str, tuple[object, ...]] = {
    "stopwords": ("snowball", "short", "none"),
    "stemming": ("snowball", "plural", "none"),
    "irregular": (True, False),
    "numbers": ("keep", "drop"),
    "dates": ("keep", "stop"),
    "title_weight": (1.0, 0.0, 0.5, 2.0),
    "k1": (1.2, 0.9, 1.5, 2.0),
    "b": (0.75, 0.3, 0.5, 0.9, 1.0),
    "idf": ("lucene", "fts5"),
    "length": ("all", "body"),
}
