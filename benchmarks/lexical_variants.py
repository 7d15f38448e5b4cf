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
    idf: Literal["fts5", "lucene"] = "fts5"
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


class Scorer:
    """bm25 over ``texts`` (each a message, its title its first line) as ``v`` says."""

    def __init__(self, texts: list[str], v: Variant) -> None:
        self.v = v
        self.tf: list[Counter[str]] = []
        self.dl: list[int] = []
        df: Counter[str] = Counter()
        for text in texts:
            body = v.tokens(text)
            title = v.tokens(default_title(text)) if v.title_weight or v.length == "all" else []
            tf: Counter[str] = Counter()
            for t in body:
                tf[t] += 1.0  # type: ignore[assignment]
            for t in title:
                tf[t] += v.title_weight  # type: ignore[assignment]
            self.tf.append(tf)
            self.dl.append(len(body) + (len(title) if v.length == "all" else 0))
            df.update({t for t in (*body, *title)})
        n = len(texts)
        self.avgdl = sum(self.dl) / max(1, n)
        if v.idf == "lucene":
            self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        else:
            self.idf = {t: max(1e-6, math.log((n - d + 0.5) / (d + 0.5))) for t, d in df.items()}

    def top(self, query: str, k: int) -> list[int]:
        terms = [t for t in dict.fromkeys(self.v.tokens(query)) if t in self.idf]
        k1, b = self.v.k1, self.v.b
        scored = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            norm = k1 * (1 - b + b * self.dl[i] / self.avgdl)
            for t in terms:
                f = tf.get(t)
                if f:
                    s += self.idf[t] * f * (k1 + 1) / (f + norm)
            if s > 0:
                scored.append((s, i))
        scored.sort(key=lambda x: (-x[0], -x[1]))  # ties: the newest (last imported) first
        return [i for _, i in scored[:k]]


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
    "idf": ("fts5", "lucene"),
    "length": ("all", "body"),
}
