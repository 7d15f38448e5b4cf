"""The int8 passage engine: the encoder's layers run by onnxruntime on one core.

Same steps as the numpy pass (``e5_forward.py``: tokens, packing, windows,
the embedding layer and the mean stay there), but each of the 12 layers is
an onnxruntime session over the graph ``e5_onnx_graph.py`` builds, whose
weight products run in int8: ~2× the numpy pass's notes per CPU second
(docs/recall.md, "Throughput"). A session per layer keeps the numpy pass's
yield point: ``between_layers`` is called before each, so a batch gives way
to a recall within a layer. Sessions run on the calling thread only (one
intra-op and one inter-op thread, sequential), so the worker's nice 19 holds
for all of it; ``run`` releases the GIL.

The graphs are built in memory when the engine is first needed (~1 s, in the
worker): nothing is written to disk and nothing is downloaded. Without
onnxruntime (or onnx), or if the engine's vectors on the calibration texts
stray from the float32 pass's, :func:`build_engine` returns ``None`` and the
embedder keeps the numpy pass.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Protocol

import numpy as np

from .e5_forward import E5Forward
from .e5_model import E5Weights
from .e5_onnx_graph import unshrink

LOG = logging.getLogger(__name__)
# The engine is kept only if its vectors of the calibration texts are this
# close (cosine) to the float32 pass's; measured ≥ 0.9995.
MIN_SELF_CHECK = 0.998
# What masks a key: e^-30 ≈ 1e-13 of the row's largest weight, nothing. Not
# -1e30 as in the numpy pass: onnxruntime's softmax takes 4-6× as long when
# an exponent falls below float32's range (measured: 1.3 ms against 0.19 ms
# for [8, 12, 45, 45] scores), and a fifth of each row is padding.
MASKED = np.float32(-30.0)


class _Session(Protocol):  # onnxruntime.InferenceSession, which has no types
    def run(self, outputs: list[str], feeds: dict[str, np.ndarray]) -> list[np.ndarray]: ...


def onnxruntime_module() -> Any | None:
    """onnxruntime, if it and onnx (to build the graphs) are installed."""
    try:
        import onnx  # noqa: F401
        import onnxruntime
    except ImportError:
        return None
    return onnxruntime


def session_options(ort: Any) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # No arena: each of the 12 sessions would keep the largest activations it
    # ever saw (a 512-token note took the process from ~0.3 to ~1.3 GB);
    # plain allocations cost no measurable speed here.
    options.enable_cpu_mem_arena = False
    options.log_severity_level = 3  # warnings about unused initializers are ours to fix, not logs
    return options


class E5Onnx(E5Forward):
    kind = "onnx"

    def __init__(self, weights: E5Weights, sessions: list[_Session], x_floats: np.ndarray) -> None:
        # The float32 layers are not kept: the sessions hold their int8 form.
        super().__init__(dataclasses.replace(weights, layers=[]))
        self.sessions = sessions
        self._heads = weights.heads
        self._shrink = 1 / unshrink(x_floats, weights.hidden)  # the first layer's input

    def _forward(self, contents: list[list[int]]) -> np.ndarray:
        x, batch = self._embedding(contents)
        x *= self._shrink
        grid, key_bias = shared_rows(batch.lens)
        rows, longest = key_bias.shape[0], key_bias.shape[-1]
        pad_idx = np.zeros(rows * longest, np.int64)
        pad_idx[grid] = np.arange(len(x))
        shape5 = [rows, longest, 3, self._heads, self.dim // self._heads]
        feeds = {
            "pad_idx": pad_idx,
            "grid": grid,
            "shape5": np.array(shape5, np.int64),
            "key_bias": key_bias,
        }
        for session in self.sessions:
            if self.between_layers is not None:
                self.between_layers()
            feeds["x"] = x
            x = session.run(["y"], feeds)[0]
        return batch.means(x)


def shared_rows(lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Attention rows as long as the longest note, short notes sharing a row.

    First fit, longest first; a note attends only to its own tokens (key_bias
    [rows, 1, longest, longest]: 0 within a note, MASKED elsewhere). Fewer rows
    than notes means less padding in the scores and their softmax (~12% of a
    layer's time with a row per note). Returns each packed token's slot in the
    [rows × longest] grid, and key_bias.
    """
    longest = int(lens.max())
    free: list[int] = []
    first = np.empty(len(lens), np.int64)
    for i in np.argsort(-lens, kind="stable"):
        row = next((r for r, space in enumerate(free) if space >= lens[i]), len(free))
        if row == len(free):
            free.append(longest)
        first[i] = row * longest + longest - free[row]
        free[row] -= int(lens[i])
    starts = np.repeat(first, lens)
    within = np.arange(len(starts)) - np.repeat(np.cumsum(lens) - lens, lens)
    grid = starts + within
    owner = np.full(len(free) * longest, -1, np.int64)
    owner[grid] = np.repeat(np.arange(len(lens)), lens)
    by_row = owner.reshape(len(free), longest)
    same = (by_row[:, :, None] == by_row[:, None, :]) & (by_row[:, None, :] >= 0)
    key_bias = np.where(same, np.float32(0), MASKED).astype(np.float32)
    return grid, key_bias[:, None]


def build_engine(weights: E5Weights) -> E5Onnx | None:
    """The int8 engine over ``weights``, or ``None`` where it cannot run faithfully."""
    ort = onnxruntime_module()
    if ort is None:
        return None
    from .e5_onnx_graph import calibrate, layer_graph

    calibration = calibrate(weights)
    try:
        options = session_options(ort)
        sessions: list[_Session] = [
            ort.InferenceSession(
                layer_graph(weights, i, calibration.outliers).SerializeToString(),
                options,
                providers=["CPUExecutionProvider"],
            )
            for i in range(len(weights.layers))
        ]
        engine = E5Onnx(weights, sessions, calibration.outliers.x[0])
        ours = engine._forward(calibration.contents)
    except Exception as exc:  # onnxruntime's errors derive from Exception only
        LOG.warning("onnxruntime engine unavailable, numpy pass kept: %s", exc)
        return None
    cosine = float(min(_cosines(ours, calibration.means)))
    if cosine < MIN_SELF_CHECK:
        LOG.warning("onnxruntime engine off: calibration cosine %.4f", cosine)
        return None
    return engine


def _cosines(a: np.ndarray, b: np.ndarray) -> list[float]:
    dots = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return [float(d) for d in dots]
