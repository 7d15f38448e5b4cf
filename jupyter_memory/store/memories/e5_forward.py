"""multilingual-e5-small's forward pass in numpy, for embedding many notes at once.

The notes of a call are packed into one [tokens, hidden] matrix, so each
weight matrix is read once per call and every product is one large BLAS
call (no padding in the products; attention alone pads, per note). Passages
are sorted by length into groups so that the attention padding stays small.
Numerically it is the float32 model: activations are not rounded to int8 as
in the C engine, whose vectors it matches to a cosine of ~0.99
(tests/store/test_e5_numpy.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .e5_model import E5Weights, Layer
from .e5_tokenizer import E5Tokenizer

PREFIX = {True: "query: ", False: "passage: "}
GROUP_TOKENS = 1024  # tokens per forward pass: large products, activations in L2
FFN_ROWS = 256


def _layer_norm(x: np.ndarray, ln: tuple[np.ndarray, np.ndarray], eps: float) -> np.ndarray:
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x)[:, None] / np.float32(x.shape[1])
    x *= 1.0 / np.sqrt(var + np.float32(eps))
    x *= ln[0]
    x += ln[1]
    return x


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU in its tanh form, in place (within 5e-4 of x·Φ(x); a third of the erf form's cost)."""
    y = np.square(x)
    y *= np.float32(0.044715)
    y += np.float32(1.0)
    y *= x
    y *= np.float32(0.7978845608028654)  # sqrt(2 / pi)
    np.tanh(y, out=y)
    y += np.float32(1.0)
    y *= np.float32(0.5)
    x *= y
    return x


@dataclass(frozen=True)
class Packed:
    """Where the notes of one forward pass sit among its packed tokens."""

    lens: np.ndarray  # tokens per note, <s> and </s> included
    starts: np.ndarray  # each note's first row
    grid: np.ndarray  # each token's row in the [notes * longest] padded grid
    notes: int
    longest: int
    key_bias: np.ndarray  # [notes, 1, 1, longest]: 0, or -1e30 for padding keys

    def means(self, x: np.ndarray) -> np.ndarray:
        sums = np.add.reduceat(x, self.starts, axis=0)
        out: np.ndarray = sums / self.lens[:, None].astype(np.float32)
        return out


class E5Forward:
    kind = "numpy"  # the embedder's ``engine``

    def __init__(self, weights: E5Weights) -> None:
        self.w = weights
        # Called between layers (~1/12 of a batch): the background worker sets
        # it to wait while a recall or a write runs, so a batch already in the
        # model gives way within a few ms instead of running to its end.
        self.between_layers: Callable[[], None] | None = None
        # Sees the inputs of the int8 products (e5_onnx_graph.py calibrates on them).
        self.observe: Callable[[str, int, np.ndarray], None] | None = None
        self.tokenizer = E5Tokenizer(weights.vocab)
        self.dim = weights.hidden
        self._window = weights.max_positions - 2

    def token_ids(self, text: str, is_query: bool = False) -> list[int]:
        return self.tokenizer.content_ids(PREFIX[is_query] + text)

    def embed(
        self, texts: Sequence[str], is_query: bool = False, max_tokens: int | None = None
    ) -> np.ndarray:
        """L2-normalised vectors [len(texts), dim], in the order given, of each text's
        first ``max_tokens`` tokens (the prefix included; all of them if ``None``)."""
        # A text longer than the model's 512 positions is cut into windows and
        # its vector is their token-weighted mean, as the C engine does.
        segments: list[tuple[int, list[int]]] = []
        for i, text in enumerate(texts):
            ids = self.token_ids(text, is_query)[:max_tokens]
            for at in range(0, max(len(ids), 1), self._window):
                segments.append((i, ids[at : at + self._window]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(segments)), key=lambda s: len(segments[s][1]))
        group: list[int] = []
        size = 0
        for s in order + [-1]:
            if s >= 0 and (not group or size + len(segments[s][1]) + 2 <= GROUP_TOKENS):
                group.append(s)
                size += len(segments[s][1]) + 2
                continue
            means = self._forward([segments[g][1] for g in group])
            for g, mean in zip(group, means, strict=True):
                out[segments[g][0]] += max(len(segments[g][1]), 1) * mean
            group, size = ([s], len(segments[s][1]) + 2) if s >= 0 else ([], 0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        unit: np.ndarray = out / np.maximum(norms, np.float32(1e-6))
        return unit

    def _forward(self, contents: list[list[int]]) -> np.ndarray:
        """Mean of the final hidden states of each ``<s> content </s>``."""
        x, batch = self._embedding(contents)
        for i, layer in enumerate(self.w.layers):
            if self.between_layers is not None:
                self.between_layers()
            x = self._layer(x, layer, batch, i)
        return batch.means(x)

    def _embedding(self, contents: list[list[int]]) -> tuple[np.ndarray, Packed]:
        """The packed [tokens, hidden] input of the first layer, and where each note sits."""
        w = self.w
        lens = np.array([len(c) + 2 for c in contents])
        ids = np.concatenate([[w.vocab.bos, *c, w.vocab.eos] for c in contents]).astype(np.intp)
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
        pos = np.arange(len(ids)) - np.repeat(starts, lens)
        x = w.word_rows(ids)
        x += w.pos[pos]
        x += w.type0
        x = _layer_norm(x, w.emb_ln, w.eps)
        # Attention pads each note to the longest of the group: where each
        # packed token sits in the [notes, longest] grid, and which keys are padding.
        longest = int(lens.max())
        grid = np.repeat(np.arange(len(lens)) * longest, lens) + pos
        key_bias = np.where(np.arange(longest)[None, :] < lens[:, None], 0.0, -1e30)
        key_bias = key_bias.astype(np.float32)[:, None, None, :]
        return x, Packed(lens, starts, grid, len(lens), longest, key_bias)

    def _layer(self, x: np.ndarray, layer: Layer, batch: Packed, index: int) -> np.ndarray:
        w = self.w
        observe = self.observe
        grid, notes, longest = batch.grid, batch.notes, batch.longest
        h, heads = w.hidden, w.heads
        hd = h // heads
        if observe is not None:
            observe("x", index, x)
        qkv = x @ layer.qkv
        qkv += layer.qkv_b
        padded = np.zeros((notes * longest, 3 * h), dtype=np.float32)
        padded[grid] = qkv
        padded = padded.reshape(notes, longest, 3, heads, hd)
        q = padded[:, :, 0].transpose(0, 2, 1, 3)
        k = padded[:, :, 1].transpose(0, 2, 3, 1)
        v = padded[:, :, 2].transpose(0, 2, 1, 3)
        scores = q @ k
        scores *= np.float32(1.0 / np.sqrt(hd))
        scores += batch.key_bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(notes * longest, h)[grid]
        attn = ctx @ layer.out
        attn += layer.out_b
        attn += x
        x = _layer_norm(attn, layer.ln1, w.eps)
        if observe is not None:
            observe("h1", index, x)
        # The feed-forward in slices of FFN_ROWS tokens: the [rows, 1536]
        # intermediate then stays in the core's L2 cache through the GELU.
        ffn = np.empty_like(x)
        for at in range(0, len(x), FFN_ROWS):
            mid = x[at : at + FFN_ROWS] @ layer.ffn_in
            mid += layer.ffn_in_b
            _gelu(mid)
            if observe is not None:
                observe("mid", index, mid)
            np.matmul(mid, layer.ffn_out, out=ffn[at : at + FFN_ROWS])
        ffn += layer.ffn_out_b
        ffn += x
        return _layer_norm(ffn, layer.ln2, w.eps)
