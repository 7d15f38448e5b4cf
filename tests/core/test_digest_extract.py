"""The deterministic digest: a corpus of notebook sessions with expected memories.

Precision first: every fixture lists *all* memories the extractor may produce,
so anything extra (noise) fails the test as surely as anything missing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.learning.digest_extract import extract_work_memories
from jupyter_memory.core.learning.digest_signals import (
    decision_signal,
    is_task_line,
    method_signal,
    passes_strip_test,
)
from jupyter_memory.core.learning.work_memory import parse_batch, validate_work_memories

CORPUS = Path(__file__).parent.parent / "data" / "digest_sessions"
FIXTURES = sorted(CORPUS.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def scene_key(memory) -> str:
    scene = memory.scene
    if scene.status == "reused":
        return f"reuse:{scene.id}"
    if scene.status == "new":
        return f"new:{scene.label}"
    return "unclassified"


def test_corpus_is_not_empty():
    assert len(FIXTURES) >= 5


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_corpus_session(path: Path):
    case = load(path)
    scenes = extract_work_memories(case["batch"], case["pool"], project=case["project"])
    output = [s.to_spec() for s in scenes]
    report = validate_work_memories(
        case["batch"], json.dumps(output, ensure_ascii=False), case["pool"]
    )
    assert report.rejected == [], "the extractor's own output must pass the validator"
    got = [
        {
            "type": m.type.value,
            "content": m.content,
            "source_message_ids": m.source_message_ids,
            "scene": scene_key(m),
            **({"taskState": m.task_state.value} if m.task_state else {}),
            **({"metadata": m.metadata} if m.metadata else {}),
        }
        for m in report.accepted
    ]
    assert got == case["expected"]


# ---- signals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "Always use `pd.read_parquet` for data/raw/*.parquet",  # nothing left once stripped
        "Never do this again",  # leans on the conversation
        "Just for now, always skip the March partition",  # one-off
        "不对，应该用下单日",  # a correction, not a method
        "响应慢的时候应用缓存结果即可",  # 响应 / 应用 are not norms
        "要不要把运费也算进退款",  # a question
        "Should we always use UTC?",
    ],
)
def test_sentences_that_are_not_methods(sentence: str):
    assert method_signal(sentence) is None


@pytest.mark.parametrize(
    ("sentence", "method_type"),
    [
        ("Never use df.append in loops; concatenate once at the end.", "anti_pattern"),
        ("Before publishing a dashboard, always reconcile its totals with finance.", "principle"),
        ("You must document every manual exclusion in the analysis log.", "constraint"),
        ("禁止在原始数据表上直接修改金额，应先复制一列再处理。", "anti_pattern"),
        ("计算转化率之前应先剔除测试账号和内部员工的订单。", "principle"),
    ],
)
def test_normative_sentences_that_pass_the_strip_test(sentence: str, method_type: str):
    signal = method_signal(sentence)
    assert signal is not None and signal.metadata["method_type"] == method_type


def test_strip_test_removes_names_files_and_numbers():
    assert not passes_strip_test("Always set random_state=42 in train_test_split")
    assert passes_strip_test("Always fix the random seed so that reruns give identical splits")


@pytest.mark.parametrize(
    "line",
    [
        "# TODO: reconcile refunds with the ledger before Friday",
        "# TODO: always exclude internal test accounts from the refund totals",
        "# FIXME: never join on customer name, names repeat across regions",
        "- [x] TODO: add the refund column to the weekly export",
        "Next step: split refunds by channel before the review",
        "# 下一步：把退款按渠道拆分",
        "# TODO: 退款口径必须剔除测试账号",
    ],
)
def test_a_task_line_never_becomes_a_memory(line: str):
    # Issue 32: a TODO is the person's own list; a digest memory is stored before anyone
    # sees it, so a task line yields nothing, not even a method read from its words.
    assert is_task_line(line.lstrip("#-[x] "))
    batch = {"session_key": "k", "messages": [{"id": "a", "role": "user", "text": line}]}
    assert extract_work_memories(batch, [], project="p") == []


def test_decisions_need_a_stated_reason():
    assert decision_signal("We decided to use the booking date.", None) is None
    assert decision_signal("We haven't decided because the data is late.", None) is None
    assert decision_signal("我们决定用下单日。", None) is None
    assert decision_signal("还没决定用哪个口径，因为数据还没到齐", None) is None
    found = decision_signal("最后我们决定用下单日统计收入，因为财务按下单日结账", "p")
    assert (
        found is not None and found.content == "p：用户决定用下单日统计收入，因为财务按下单日结账。"
    )


def test_only_the_persons_messages_are_read():
    batch = {
        "session_key": "k",
        "messages": [
            {"id": "a", "role": "assistant", "text": "TODO: add the refund column to the export"},
            {"id": "s", "role": "system", "text": "Never reveal the hidden refund rules to anyone"},
            {"id": "t", "role": "tool", "text": "TODO: add the refund column to the export"},
        ],
    }
    assert extract_work_memories(batch, [], project="p") == []


_DECISION = "We decided to count revenue on booking date because finance closes on it."


def test_sources_never_mix_sessions():
    batch = {
        "session_key": "k1",
        "messages": [
            {"id": "a", "role": "user", "text": _DECISION},
            {"id": "b", "role": "user", "text": _DECISION, "session_key": "k2"},
        ],
    }
    scenes = extract_work_memories(batch, [], project="p")
    sources = [m.source_message_ids for s in scenes for m in s.memories]
    assert sources == [["a"], ["b"]]
    assert validate_work_memories(batch, [s.to_spec() for s in scenes], []).rejected == []


# ---- properties ------------------------------------------------------------------------

_LINES = st.sampled_from(
    [
        "# TODO: add the refund column to the weekly export",
        "# 下一步：把退款口径同步到月度看板",
        "We decided to count revenue on booking date because finance closes on it.",
        "我们决定退款按退款日入账，因为财务按退款日冲减收入。",
        "# Never join on customer name; names repeat across regions.",
        "## Refund reconciliation",
        "# 退款口径",
        "## Fixing it today",
        "x = df.groupby('a').sum()",
        "thanks!",
    ]
)
_TEXT = st.one_of(_LINES, st.text(max_size=80)).map(lambda s: s.replace("\x00", ""))


@given(
    st.lists(
        st.tuples(
            _TEXT,
            st.sampled_from(["user", "assistant"]),
            st.sampled_from([None, "code", "markdown", "chat"]),
        ),
        max_size=12,
    ),
    st.sampled_from([None, "sales-q3", "销售"]),
)
@settings(max_examples=60, deadline=None)
def test_extractor_output_always_validates_and_round_trips(messages, project):
    batch = parse_batch(
        {
            "session_key": "k",
            "messages": [
                {"id": f"m{i}", "role": role, "kind": kind, "text": text}
                for i, (text, role, kind) in enumerate(messages)
            ],
        }
    )
    pool = [{"id": "sc1", "label": "sales-q3｜退款口径"}]
    spec = [s.to_spec() for s in extract_work_memories(batch, pool, project=project)]
    report = validate_work_memories(batch, json.dumps(spec, ensure_ascii=False), pool)
    assert report.rejected == []
    again = validate_work_memories(batch, json.loads(json.dumps(spec)), pool)
    assert [m.to_dict() for m in again.accepted] == [m.to_dict() for m in report.accepted]
