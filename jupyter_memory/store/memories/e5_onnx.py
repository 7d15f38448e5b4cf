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
        pad_idx = np.zeros(batch.notes * batch.longest, np.int64)
        pad_idx[batch.grid] = np.arange(len(x))
        shape5 = [batch.notes, batch.longest, 3, self._heads, self.dim // self._heads]
        feeds = {
            "pad_idx": pad_idx,
            "grid": batch.grid.astype(np.int64),
            "shape5": np.array(shape5, np.int64),
            "key_bias": batch.key_bias,
        }
        for session in self.sessions:
            if self.between_layers is not None:
                self.between_layers()
            feeds["x"] = x
            x = session.run(["y"], feeds)[0]
        return batch.means(x)


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
