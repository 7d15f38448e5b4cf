"""multilingual-e5-small's encoder layers as ONNX graphs whose products run in int8.

One graph per layer (so a batch can stop between layers, as in the numpy
pass), built with ``onnx.helper`` from the weights ``e5_model.py`` loaded; no
file is written or downloaded. Each weight product is onnxruntime's
``DynamicQuantizeMatMul``: the activations are rounded to uint8 per call, the
weights (the model's 4-bit values, already an integer times a block scale)
to int8 per output column, and the product runs on the CPU's int8 units
(VNNI/AMX), ~2× the float32 BLAS pass per note.

Rounding the activations per call is where the error would be: a few input
channels of this model (the same ones for every text, the first token's
above all) are 10-60× larger than the rest, and one range for the whole
tensor would leave the others a handful of levels. Those channels (found by
:func:`calibrate` on a few fixed texts run through the float32 pass) leave
their layer norm shrunk by SHRINK, get zero int8 weights, and are multiplied
in float32 beside the int8 product (a [tokens, k] × [k, n] ``Gemm`` added to
its result; the GELU outputs' by splitting the feed-forward's columns):
cosine to the C engine's vectors 0.9993 (min) instead of 0.994, 0.9997
(mean) instead of 0.9965 (tests/store/test_e5_onnx.py, docs/recall.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .e5_forward import E5Forward
from .e5_model import E5Weights, Layer

OPSET = 17
MS = "com.microsoft"
GELU = "FastGelu"  # com.microsoft's tanh form: as faithful here (cosine to the C engine's erf form) and ~7% faster
# Input channels of a layer's products kept in float32: of its input (for
# the query/key/value product), of the attention's normalised output (for the
# feed-forward's first product) and of the GELU output (its second).
FLOAT_CHANNELS = {"x": 4, "h1": 4, "mid": 2}
# Those channels leave the layer norm that makes them multiplied by this power
# of two (folded into its weights; exact both ways), so they no longer set the
# range int8 rounding gets; their float32 product and the residual undo it.
SHRINK = np.float32(2.0**-8)
CALIBRATION = (
    "passage: The quarterly report was filed on Friday; refunds are not counted as revenue.",
    "passage: 收入不含退款，季度报告在周五提交。客户流失率在第三季度上升。",
    "passage: hello",
)


@dataclass(frozen=True)
class Outliers:
    """Per layer, the input channels multiplied in float32 (sorted)."""

    x: list[np.ndarray]
    h1: list[np.ndarray]
    mid: list[np.ndarray]


@dataclass(frozen=True)
class Calibration:
    outliers: Outliers
    contents: list[list[int]]  # the token ids of CALIBRATION
    means: np.ndarray  # and their float32 mean hidden states, to check an engine against


def calibrate(weights: E5Weights) -> Calibration:
    """The largest channels of each product's input on :data:`CALIBRATION` (float32 pass)."""
    peaks: dict[tuple[str, int], np.ndarray] = {}

    def observe(name: str, layer: int, x: np.ndarray) -> None:
        peak = np.abs(x).max(axis=0)
        seen = peaks.get((name, layer))
        peaks[(name, layer)] = peak if seen is None else np.maximum(seen, peak)

    forward = E5Forward(weights)
    forward.observe = observe
    contents = [forward.tokenizer.content_ids(t) for t in CALIBRATION]
    means = forward._forward(contents)

    def top(name: str) -> list[np.ndarray]:
        k = FLOAT_CHANNELS[name]
        n = len(weights.layers)
        return [np.sort(np.argsort(peaks[(name, i)])[::-1][:k]) for i in range(n)]

    return Calibration(Outliers(x=top("x"), h1=top("h1"), mid=top("mid")), contents, means)


class _Graph:
    def __init__(self, name: str) -> None:
        self.name = name
        self.nodes: list[Any] = []
        self.inits: list[Any] = []

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op: str, inputs: list[str], out: str, domain: str = "", **attrs: Any) -> str:
        from onnx import helper

        self.nodes.append(helper.make_node(op, inputs, [out], name=out, domain=domain, **attrs))
        return out

    def split_product(
        self, name: str, x: str, w: np.ndarray, b: np.ndarray, floats: np.ndarray
    ) -> str:
        """``x @ w + b`` [tokens, n], where the input channels ``floats`` of ``x`` come
        shrunk by SHRINK: int8 for the others (zero weights there), float32 for them."""
        q, scale = int8_columns(np.where(_rows(floats, len(w))[:, None], 0.0, w))
        y = self.op(
            "DynamicQuantizeMatMul",
            [
                x,
                self.const(f"{name}.q", q),
                self.const(f"{name}.scale", scale),
                self.const(f"{name}.zero", np.zeros(len(scale), np.int8)),
                self.const(f"{name}.b", b.astype(np.float32)),
            ],
            f"{name}.int8",
            domain=MS,
        )
        if not floats.size:
            return y
        xf = self.op("Gather", [x, self.const(f"{name}.fidx", floats)], f"{name}.xf", axis=1)
        return self.op("Gemm", [xf, self.const(f"{name}.wf", w[floats] / SHRINK), y], name)


def _rows(index: np.ndarray, n: int) -> np.ndarray:
    mask = np.zeros(n, bool)
    mask[index] = True
    return mask


def unshrink(channels: np.ndarray, n: int) -> np.ndarray:
    """What restores a tensor whose ``channels`` were multiplied by SHRINK."""
    out: np.ndarray = np.where(_rows(channels, n), 1 / SHRINK, 1).astype(np.float32)
    return out


def _layer_norm(
    g: _Graph, out: str, x: str, ln: tuple[np.ndarray, np.ndarray], shrink: np.ndarray, eps: float
) -> str:
    """LayerNormalization whose output channels ``shrink`` come multiplied by SHRINK."""
    factor = 1 / unshrink(shrink, len(ln[0]))
    params = [g.const(f"{out}.w", ln[0] * factor), g.const(f"{out}.b", ln[1] * factor)]
    return g.op("LayerNormalization", [x, *params], out, axis=-1, epsilon=eps)


# Weights in 7 bits, not 8: on a CPU without VNNI (AVX2 only, as on the AMD EPYC
# machines CI runs on), onnxruntime multiplies uint8 activations by int8 weights
# with vpmaddubsw, which adds two products into an int16 and saturates past 32,767
# (255 × 127 × 2 = 64,770): the vectors drifted to cosine 0.9978 of the C engine's
# there. 255 × 63 × 2 = 32,130 cannot saturate; the rounding costs less than the
# saturation did (min 0.9978 → 0.9991, mean 0.9985 → 0.9994 on that CPU) and the
# speed is the same. onnxruntime's own quantizer calls this `reduce_range`.
WEIGHT_PEAK = 63


def int8_columns(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[k, n] float32 -> int8 [k, n] in ±WEIGHT_PEAK and each column's float32 scale (symmetric)."""
    peak = np.abs(w).max(axis=0)
    scale = np.where(peak > 0, peak / float(WEIGHT_PEAK), 1.0).astype(np.float32)
    q = np.clip(np.rint(w / scale), -WEIGHT_PEAK, WEIGHT_PEAK).astype(np.int8)
    return q, scale


def layer_graph(weights: E5Weights, index: int, outliers: Outliers) -> Any:
    """One encoder layer: inputs x [T, H] (packed notes; the channels ``outliers.x``
    shrunk), pad_idx [N·L], grid [T], shape5 [N, L, 3, heads, head_dim] and key_bias
    [N, 1, L, L] (N rows of attention, notes sharing them: e5_onnx.shared_rows);
    output y [T, H], shrunk for the next layer's ``x`` (none after the last)."""
    from onnx import TensorProto, helper

    layer: Layer = weights.layers[index]
    h, heads = weights.hidden, weights.heads
    hd = h // heads
    g = _Graph(f"e5_layer{index}")
    x_floats, h1_floats, mid = outliers.x[index], outliers.h1[index], outliers.mid[index]
    last = index + 1 == len(weights.layers)
    y_floats = np.zeros(0, np.int64) if last else outliers.x[index + 1]
    # The scores' 1/sqrt(head_dim) goes into the query's weights and bias.
    qkv = layer.qkv.copy()
    qkv_b = layer.qkv_b.copy()
    qkv[:, :h] *= np.float32(1.0 / np.sqrt(hd))
    qkv_b[:h] *= np.float32(1.0 / np.sqrt(hd))
    proj = g.split_product("qkv", "x", qkv, qkv_b, x_floats)
    # Attention rows as long as the longest note (padding slots repeat token 0:
    # as keys they are masked by key_bias, as queries never gathered back).
    padded = g.op("Gather", [proj, "pad_idx"], "padded", axis=0)
    grid5 = g.op("Reshape", [padded, "shape5"], "grid5")
    heads5 = g.op("Transpose", [grid5], "heads5", perm=[2, 0, 3, 1, 4])
    split = [heads5, g.const("ones3", np.ones(3, np.int64))]
    g.nodes.append(helper.make_node("Split", split, ["q3", "k3", "v3"], name="split", axis=0))
    axis0 = g.const("axis0", np.array([0], np.int64))
    q, k, v = (g.op("Squeeze", [f"{n}3", axis0], n) for n in "qkv")
    kt = g.op("Transpose", [k], "kt", perm=[0, 1, 3, 2])
    scores = g.op("Add", [g.op("MatMul", [q, kt], "scores0"), "key_bias"], "scores")
    probs = g.op("Softmax", [scores], "probs", axis=-1)
    ctx = g.op("Transpose", [g.op("MatMul", [probs, v], "ctx4")], "ctxt", perm=[0, 2, 1, 3])
    flat = g.op("Reshape", [ctx, g.const("rows", np.array([-1, h], np.int64))], "ctxf")
    packed = g.op("Gather", [flat, "grid"], "ctxp", axis=0)
    none = np.zeros(0, np.int64)
    attn = g.split_product("out", packed, layer.out, layer.out_b, none)
    x = g.op("Mul", ["x", g.const("x.unshrink", unshrink(x_floats, h))], "x.full")
    h1 = _layer_norm(g, "h1", g.op("Add", [attn, x], "res1"), layer.ln1, h1_floats, weights.eps)
    # Feed-forward: the GELU outputs of the channels ``mid`` go on in float32.
    rest = np.setdiff1d(np.arange(layer.ffn_in.shape[1]), mid)
    ffn_in = g.split_product("fi", h1, layer.ffn_in[:, rest], layer.ffn_in_b[rest], h1_floats)
    act = g.op(GELU, [ffn_in], "act", domain=MS)
    ffn = g.split_product("fo", act, layer.ffn_out[rest], layer.ffn_out_b, none)
    h1_full = unshrink(h1_floats, h)
    if mid.size:
        wm = layer.ffn_in[:, mid] * h1_full[:, None]
        pre = g.op(
            "Gemm", [h1, g.const("fi.wm", wm), g.const("fi.bm", layer.ffn_in_b[mid])], "fi.mid"
        )
        act_mid = g.op(GELU, [pre], "act.mid", domain=MS)
        ffn = g.op("Gemm", [act_mid, g.const("fo.wm", layer.ffn_out[mid]), ffn], "fo.all")
    res2 = g.op("Add", [ffn, g.op("Mul", [h1, g.const("h1.unshrink", h1_full)], "h1.full")], "res2")
    _layer_norm(g, "y", res2, layer.ln2, y_floats, weights.eps)

    def tensor(name: str, kind: int, shape: list[str | int]) -> Any:
        return helper.make_tensor_value_info(name, kind, shape)

    graph = helper.make_graph(
        g.nodes,
        g.name,
        [
            tensor("x", TensorProto.FLOAT, ["T", h]),
            tensor("pad_idx", TensorProto.INT64, ["P"]),
            tensor("grid", TensorProto.INT64, ["T"]),
            tensor("shape5", TensorProto.INT64, [5]),
            tensor("key_bias", TensorProto.FLOAT, ["N", 1, "L", "L"]),
        ],
        [tensor("y", TensorProto.FLOAT, ["T", h])],
        g.inits,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS, 1)]
    )
    model.ir_version = 8
    return model
