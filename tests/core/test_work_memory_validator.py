"""The spec-001 validator: one test per hard rule, plus valid examples it must accept."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_memory.core.event_time import EPOCH, event_iso, parse_iso8601, to_iso
from jupyter_memory.core.learning.scene_labels import label_problem, make_label, split_label
from jupyter_memory.core.learning.work_memory import (
    MemoryOutput,
    SceneOutput,
    parse_batch,
    validate_work_memories,
)
from jupyter_memory.core.learning.work_memory_types import RULES, WorkMemoryType
from jupyter_memory.exceptions import ValidationError

T0 = 1767225600000  # 2026-01-01T00:00:00Z

BATCH: dict[str, Any] = {
    "session_key": "kernel-1",
    "messages": [
        {
            "id": "m1",
            "role": "user",
            "text": "We decided to count revenue on booking date because finance closes "
            "the month on booking date.",
            "timestamp": T0,
            "recorded_at": "2026-01-02T08:00:00Z",
        },
        {
            "id": "m2",
            "role": "assistant",
            "text": "Done: revenue_q3 now groups by booking_date.",
            "timestamp": T0 + 60_000,
            "recorded_at": "2026-01-02T08:00:00Z",
        },
        {
            "id": "m3",
            "role": "user",
            "text": "TODO: backfill March refunds before the board review",
            "timestamp": None,
            "recorded_at": "2026-01-02T08:05:00Z",
        },
        {
            "id": "m4",
            "role": "user",
            "text": "Other kernel: export written to reports/q3.parquet",
            "timestamp": T0 + 120_000,
            "recorded_at": "2026-01-02T08:06:00Z",
            "session_key": "kernel-2",
        },
    ],
    "background": [
        {"id": "b1", "role": "user", "text": "Earlier: we looked at Q2.", "timestamp": T0 - 1}
    ],
}
POOL = [{"id": "sc0001", "label": "sales-q3｜revenue definition"}]

FACT = {
    "content": "sales-q3 counts revenue on booking date because finance closes the month on "
    "booking date.",
    "type": "work_fact",
    "priority": 90,
    "source_message_ids": ["m1", "m2"],
    "metadata": {},
}
METHOD = {
    "content": "Revenue should always be counted on the booking date, never on the payment date.",
    "type": "work_method",
    "priority": 85,
    "source_message_ids": ["m1", "m2"],
    "metadata": {},
}
TASK = {
    "content": "Backfill the March refunds in sales-q3 before the board review.",
    "type": "work_task",
    "priority": 80,
    "source_message_ids": ["m3"],
    "metadata": {},
}


def reuse(*memories: dict[str, Any], ids: list[str] | None = None) -> list[dict[str, Any]]:
    return [
        {
            "scene_id": "sc0001",
            "message_ids": ids or ["m1", "m2", "m3"],
            "memories": [copy.deepcopy(m) for m in memories],
        }
    ]


def new(name: str, *memories: dict[str, Any], reason: str = "No pool scene covers refunds."):
    return [
        {
            "new_scene_name": name,
            "new_scene_reason": reason,
            "message_ids": ["m1", "m2", "m3"],
            "memories": [copy.deepcopy(m) for m in memories],
        }
    ]


def with_(memory: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(memory)
    for key, value in changes.items():
        if value is _DROP:
            out.pop(key, None)
        else:
            out[key] = value
    return out


_DROP = object()


def only_rule(report, rule: str) -> None:
    assert [r.rule for r in report.rejected] == [rule], report.rejected
    assert report.accepted == []


# ---- accepted examples ---------------------------------------------------------------


def test_valid_english_reuse_is_accepted_unchanged():
    output = reuse(FACT, TASK)
    report = validate_work_memories(BATCH, json.dumps(output), POOL)
    assert report.rejected == []
    fact, task = report.accepted
    assert fact.content == FACT["content"] and fact.priority == 90
    assert fact.scene.status == "reused" and fact.scene.id == "sc0001"
    assert fact.scene.label == "sales-q3｜revenue definition"
    assert fact.session_key == "kernel-1"
    assert (fact.event_start, fact.event_end) == (
        "2026-01-01T00:00:00.000Z",
        "2026-01-01T00:01:00.000Z",
    )
    # m3 has no event timestamp: recorded_at never stands in for it
    assert task.event_start is None and task.event_end is None
    assert task.task_state is None and task.to_dict()["taskState"] is None


def test_valid_chinese_new_scene_with_every_type_is_accepted():
    memories = [
        {
            "content": "sales-q3 的收入按下单日统计，因为财务月报按下单日结账。",
            "type": "work_fact",
            "priority": 92,
            "source_message_ids": ["m1"],
            "metadata": {
                "work_object": "收入口径",
                "activity_start_time": "2026-01-01T08:00:00+08:00",
            },
        },
        {
            "content": "合并订单表和退款表之前，必须先把金额统一换算成人民币。",
            "type": "work_method",
            "priority": 88,
            "source_message_ids": ["m1", "m2"],
            "metadata": {"scope": "self", "method_type": "constraint"},
        },
        {
            "content": "sales-q3 需要在董事会评审前补齐三月退款数据。",
            "type": "work_task",
            "taskState": "done",
            "priority": 85,
            "source_message_ids": ["m3"],
            "metadata": {"deadline": "2026-03-06", "owner": "分析师"},
        },
        {
            "content": "revenue_q3 笔记本是 sales-q3 收入口径的核对依据。",
            "type": "work_artifact",
            "priority": 75,
            "source_message_ids": ["m2"],
            "metadata": {"artifact_type": "report", "artifact_ref": "revenue_q3.ipynb"},
        },
    ]
    output = new("sales-q3｜退款口径", *memories, reason="池中只有收入口径议题，没有退款口径。")
    report = validate_work_memories(BATCH, output, POOL)
    assert report.rejected == []
    assert [m.type for m in report.accepted] == list(WorkMemoryType.__members__.values())
    assert all(m.scene.status == "new" for m in report.accepted)
    assert report.accepted[0].scene.label == "sales-q3｜退款口径"
    assert report.accepted[2].to_dict()["taskState"] == "done"
    assert report.accepted[3].metadata == memories[3]["metadata"]


def test_the_specs_own_example_is_accepted():
    batch = {
        "session_key": "s",
        "messages": [{"id": "id1", "role": "user", "text": "…", "timestamp": None}],
    }
    output = [
        {
            "new_scene_name": "A104527 后端｜合同签署流程 V2",
            "new_scene_reason": "池中只有该项目的「分支迁移」与「空 stash 清理」，无合同流程议题",
            "message_ids": ["id1"],
            "memories": [
                {
                    "content": "合同签署流程 V2 需要签署双方确认合同版本后才能生成签署链接。",
                    "type": "work_fact",
                    "priority": 80,
                    "source_message_ids": ["id1"],
                    "metadata": {},
                }
            ],
        }
    ]
    report = validate_work_memories(batch, output, [])
    assert report.rejected == [] and len(report.accepted) == 1


@pytest.mark.parametrize(
    "label",
    [
        "A104527 后端｜合同签署流程 V2",
        "pi-agent｜L1 召回闸门",
        "xianhua｜3D 泡泡原型布局",
        "Agent Memory｜L1 提取误分类排查",
        "Billing API｜超时重试实现",
        "pi-agent｜子代理调度重构",
        "sales-q3｜pending orders backlog",
        "bonds｜fixed income pricing",
    ],
)
def test_spec_example_labels_pass(label: str):
    assert label_problem(label) is None


def test_zero_memories_is_valid():
    report = validate_work_memories(BATCH, "[]", POOL)
    assert report.accepted == [] and report.rejected == []


def test_unclassified_scene_is_allowed():
    output = [{"message_ids": ["m1", "m2"], "memories": [FACT]}]
    report = validate_work_memories(BATCH, output, POOL)
    assert report.rejected == [] and report.accepted[0].scene.status == "unclassified"


def test_nothing_is_repaired_silently_but_ignored_fields_are_noted():
    output = reuse(with_(FACT, reason="extra"))
    output[0]["scene_name"] = "hand-copied"
    report = validate_work_memories(BATCH, output, POOL)
    (memory,) = report.accepted
    assert memory.scene.label == "sales-q3｜revenue definition"
    assert any("scene_name ignored" in n for n in memory.notes)
    assert any("reason" in n for n in memory.notes)


def test_model_output_objects_are_accepted_like_json():
    scene = SceneOutput(
        scene_id="sc0001",
        message_ids=["m1", "m2", "m3"],
        memories=[MemoryOutput.model_validate(FACT)],
    )
    report = validate_work_memories(parse_batch(BATCH), [scene], POOL)
    assert len(report.accepted) == 1


# ---- one test per hard rule -------------------------------------------------------------

CASES: list[tuple[str, Any, Any]] = [
    # (rule, output, pool) — pool None means POOL
    ("not_json", "```json\n[]\n```", None),
    ("not_an_array", json.dumps({"scenes": []}), None),
    ("scene_not_object", [["m1"]], None),
    ("scene_shape", [{"scene_id": "sc0001", "message_ids": ["m1"]}], None),
    ("scene_shape", [{"scene_id": "sc0001", "message_ids": "m1", "memories": [FACT]}], None),
    (
        "mixed_scene_forms",
        [{**reuse(FACT)[0], "new_scene_name": "sales-q3｜退款", "new_scene_reason": "r"}],
        None,
    ),
    ("invented_scene_id", [{**reuse(FACT)[0], "scene_id": "sc0007"}], None),
    ("invented_scene_id", reuse(FACT), []),
    (
        "new_scene_incomplete",
        [{k: v for k, v in new("s｜t", FACT)[0].items() if k != "new_scene_reason"}],
        None,
    ),
    (
        "new_scene_incomplete",
        [{k: v for k, v in new("s｜t", FACT)[0].items() if k != "new_scene_name"}],
        None,
    ),
    ("scene_reason_not_one_line", new("sales-q3｜refunds", FACT, reason="one\ntwo"), None),
    ("scene_label_format", new("sales-q3 | refunds", FACT), None),
    ("scene_label_format", new("refunds", FACT), None),
    ("scene_label_format", new("sales-q3｜", FACT), None),
    ("scene_label_activity", new("A104527 后端｜排查企业端盖章失败并修复重试逻辑", FACT), None),
    ("scene_label_activity", new("sales-q3｜fixing the refund join", FACT), None),
    ("scene_label_activity", new("sales-q3｜refund join and fix totals", FACT), None),
    ("scene_label_state", new("sales-q3｜退款口径进行中", FACT), None),
    ("scene_label_state", new("sales-q3｜refund join (WIP)", FACT), None),
    ("scene_label_state", new("sales-q3｜refund join - done", FACT), None),
    ("scene_label_date", new("sales-q3｜2026-03-01 退款", FACT), None),
    ("scene_label_date", new("sales-q3｜3月5日退款", FACT), None),
    ("scene_label_date", new("sales-q3｜refunds today", FACT), None),
    ("scene_label_date", new("sales-q3｜refunds March 5", FACT), None),
    ("new_scene_label_exists", new("sales-q3｜Revenue  Definition", FACT), None),
    ("scene_messages_outside_batch", [{**reuse(FACT)[0], "message_ids": ["m1", "m2", "zz"]}], None),
    ("scene_messages_outside_batch", [{**reuse(FACT)[0], "message_ids": ["m1", "m2", "b1"]}], None),
    ("empty_scene", reuse(), None),
    ("memory_not_object", reuse("just a string"), None),  # type: ignore[arg-type]
    ("invalid_type", reuse(with_(FACT, type="work_note")), None),
    ("invalid_type", reuse(with_(FACT, type=_DROP)), None),
    ("empty_content", reuse(with_(FACT, content="   ")), None),
    ("empty_content", reuse(with_(FACT, content=_DROP)), None),
    ("context_dependent_content", reuse(with_(FACT, content="上面说的口径已经确认。")), None),
    ("context_dependent_content", reuse(with_(FACT, content="This is the agreed rule.")), None),
    (
        "context_dependent_content",
        reuse(with_(FACT, content="Use the definition as discussed above.")),
        None,
    ),
    ("invalid_priority", reuse(with_(FACT, priority=85.5)), None),
    ("invalid_priority", reuse(with_(FACT, priority="90")), None),
    ("invalid_priority", reuse(with_(FACT, priority=True)), None),
    ("invalid_priority", reuse(with_(FACT, priority=101)), None),
    ("invalid_priority", reuse(with_(FACT, priority=_DROP)), None),
    ("priority_below_70", reuse(with_(FACT, priority=69)), None),
    ("empty_source_ids", reuse(with_(FACT, source_message_ids=[])), None),
    ("empty_source_ids", reuse(with_(FACT, source_message_ids=_DROP)), None),
    ("empty_source_ids", reuse(with_(FACT, source_message_ids=["m1", ""])), None),
    ("source_outside_batch", reuse(with_(FACT, source_message_ids=["m1", "m9"])), None),
    ("source_in_background", reuse(with_(FACT, source_message_ids=["b1"])), None),
    (
        "source_outside_scene",
        reuse(with_(FACT, source_message_ids=["m1", "m3"]), ids=["m1", "m2"]),
        None,
    ),
    (
        "mixed_session_keys",
        reuse(with_(FACT, source_message_ids=["m1", "m4"]), ids=["m1", "m2", "m4"]),
        None,
    ),
    ("invalid_task_state", reuse(with_(TASK, taskState="doing")), None),
    ("task_state_on_non_task", reuse(with_(FACT, taskState="done")), None),
    ("task_status_in_metadata", reuse(with_(TASK, metadata={"status": "done"})), None),
    ("metadata_not_object", reuse(with_(FACT, metadata=["scope"])), None),
    ("invalid_scope", reuse(with_(FACT, metadata={"scope": "project"})), None),
    (
        "invalid_method_type",
        reuse(with_(METHOD, metadata={"method_type": "tip"})),
        None,
    ),
    (
        "invalid_artifact_type",
        reuse(with_(FACT, type="work_artifact", metadata={"artifact_type": "notebook"})),
        None,
    ),
    ("metadata_wrong_type", reuse(with_(FACT, metadata={"method_type": "principle"})), None),
    # spec 001's work_method tests that a program can check (three tests, self-check 1-2)
    ("method_not_normative", reuse(with_(FACT, type="work_method")), None),
    (
        "method_not_normative",
        reuse(with_(METHOD, content="sales-q3 的收入按下单日统计，财务也按下单日结账。")),
        None,
    ),
    (
        "method_one_off_specifics",
        reuse(with_(METHOD, content="Revenue must be recounted after commit 8f3a2c1 lands.")),
        None,
    ),
    (
        "method_one_off_specifics",
        reuse(with_(METHOD, content="收入必须在 2026-03-06 之前按下单日重算。")),
        None,
    ),
    ("metadata_wrong_type", reuse(with_(FACT, metadata={"deadline": "2026-03-06"})), None),
    ("invalid_timestamp", reuse(with_(TASK, metadata={"deadline": "next Friday"})), None),
    ("invalid_timestamp", reuse(with_(TASK, metadata={"deadline": "2026-02-30"})), None),
    (
        "invalid_timestamp",
        reuse(with_(FACT, metadata={"activity_start_time": "2026-01-01T00:00:00"})),
        None,
    ),
    (
        "invalid_timestamp",
        reuse(with_(FACT, metadata={"activity_start_time": 1767225600000})),
        None,
    ),
    (
        # m3 has no event timestamp; its recorded_at may not stand in for one
        "activity_time_without_event_timestamp",
        reuse(
            with_(TASK, type="work_fact", metadata={"activity_start_time": "2026-01-02T08:05:00Z"})
        ),
        None,
    ),
    (
        "activity_time_outside_sources",
        reuse(with_(FACT, metadata={"activity_end_time": "2026-01-02T08:00:00Z"})),
        None,
    ),
    (
        "project_without_evidence",
        reuse(with_(FACT, metadata={"scope": "self", "project": "sales-q3"})),
        None,
    ),
    (
        "project_evidence_outside_sources",
        reuse(
            with_(
                FACT,
                metadata={
                    "scope": "self",
                    "project": "sales-q3",
                    "projectEvidence": [{"message_id": "m3", "quote": "board review"}],
                },
            )
        ),
        None,
    ),
    (
        "global_scope_with_project",
        reuse(
            with_(
                METHOD,
                metadata={"scope": "global", "project": "sales-q3", "projectEvidence": "m1"},
            )
        ),
        None,
    ),
]


@pytest.mark.parametrize(("rule", "output", "pool"), CASES, ids=[c[0] for c in CASES])
def test_each_hard_rule_rejects(rule: str, output: Any, pool: Any):
    report = validate_work_memories(BATCH, output, POOL if pool is None else pool)
    only_rule(report, rule)
    assert report.rejected[0].message


def test_every_rule_in_the_catalogue_has_a_case():
    assert {c[0] for c in CASES} | {"ambiguous_source_id"} == set(RULES)


def test_ambiguous_source_id():
    batch = copy.deepcopy(BATCH)
    batch["messages"].append(
        {"id": "m1", "role": "user", "text": "same id, other kernel", "session_key": "kernel-2"}
    )
    only_rule(validate_work_memories(batch, reuse(FACT), POOL), "ambiguous_source_id")


def test_a_scene_rule_rejects_each_of_its_memories():
    report = validate_work_memories(BATCH, [{**reuse(FACT, TASK)[0], "scene_id": "sc9"}], POOL)
    assert [r.rule for r in report.rejected] == ["invented_scene_id"] * 2
    assert [r.memory_index for r in report.rejected] == [0, 1]


def test_one_bad_memory_does_not_sink_its_neighbours():
    report = validate_work_memories(BATCH, reuse(FACT, with_(TASK, priority=50)), POOL)
    assert len(report.accepted) == 1 and report.rejected[0].rule == "priority_below_70"


def test_all_violations_of_a_record_are_listed():
    report = validate_work_memories(BATCH, reuse(with_(FACT, priority=10, taskState="x")), POOL)
    assert report.rejected[0].rule == "priority_below_70"
    assert report.rejected[0].other_rules == ["invalid_task_state"]


def test_report_dict_shape():
    data = validate_work_memories(BATCH, reuse(FACT, with_(TASK, priority=1)), POOL).to_dict()
    assert set(data) == {"accepted", "rejected"}
    assert set(data["rejected"][0]) >= {"record", "rule", "message"}
    json.dumps(data)


# ---- trusted inputs ------------------------------------------------------------------


def test_bad_batch_names_the_field():
    bad = copy.deepcopy(BATCH)
    bad["messages"][1]["role"] = "robot"
    with pytest.raises(ValidationError, match=r"batch\.messages\[1\]\.role"):
        validate_work_memories(bad, "[]", POOL)


def test_duplicate_message_ids_in_one_session_are_refused():
    bad = copy.deepcopy(BATCH)
    bad["messages"].append({"id": "m2", "role": "user", "text": "dup"})
    with pytest.raises(ValidationError, match="m2"):
        parse_batch(bad)


def test_duplicate_pool_ids_are_refused():
    with pytest.raises(ValidationError, match=r"pool\[1\]"):
        validate_work_memories(BATCH, "[]", POOL + POOL)


def test_recorded_at_alias_is_accepted():
    batch = parse_batch(
        {"sessionKey": "s", "messages": [{"id": "a", "role": "user", "text": "t", "recordedAt": 1}]}
    )
    assert batch.session_key == "s" and batch.messages[0].recorded_at == 1


# ---- event times -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", [None, "1767225600000", True, float("nan"), float("inf"), -5, 1767225600, 10**16]
)
def test_invalid_event_timestamps_give_no_time(value: Any):
    assert event_iso(value) is None


def test_valid_event_timestamp_is_iso_utc():
    assert event_iso(T0) == "2026-01-01T00:00:00.000Z"
    assert event_iso(T0 + 0.5) == "2026-01-01T00:00:00.000Z"


@given(st.datetimes(min_value=datetime(2000, 1, 2), max_value=datetime(9999, 12, 30)))
def test_iso_round_trip(moment: datetime):
    aware = moment.replace(microsecond=(moment.microsecond // 1000) * 1000, tzinfo=timezone.utc)
    assert parse_iso8601(to_iso(aware), allow_date=False) == aware


@given(st.integers(min_value=946_684_800_000, max_value=253_402_300_799_999))
def test_every_valid_epoch_ms_round_trips(ms: int):
    text = event_iso(ms)
    assert text is not None
    parsed = parse_iso8601(text, allow_date=False)
    assert isinstance(parsed, datetime)
    assert (parsed - EPOCH) // timedelta(milliseconds=1) == ms


_TOPIC = st.text(
    alphabet=st.characters(blacklist_characters="｜\n\r", blacklist_categories=("Cs", "Cc")),
    min_size=1,
    max_size=30,
).filter(lambda s: s.strip() != "")


@given(_TOPIC, _TOPIC)
def test_label_round_trip(project: str, topic: str):
    assert split_label(make_label(project, topic)) == (project.strip(), topic.strip())


@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "content": st.sampled_from(
                    ["sales-q3 收入应按下单日统计。", "Refunds must be booked on the refund date."]
                ),
                "type": st.sampled_from(["work_fact", "work_method", "work_artifact"]),
                "priority": st.integers(min_value=70, max_value=100),
                "source_message_ids": st.lists(
                    st.sampled_from(["m1", "m2", "m3"]), min_size=1, max_size=3, unique=True
                ),
            }
        ),
        max_size=5,
    )
)
def test_valid_generated_output_round_trips_through_json(memories: list[dict[str, Any]]):
    scenes = (
        [
            SceneOutput(
                scene_id="sc0001",
                message_ids=["m1", "m2", "m3"],
                memories=[MemoryOutput.model_validate(m) for m in memories],
            )
        ]
        if memories
        else []
    )
    text = json.dumps([s.to_spec() for s in scenes], ensure_ascii=False)
    report = validate_work_memories(BATCH, text, POOL)
    assert report.rejected == []
    assert [
        (m.content, m.type.value, m.priority, m.source_message_ids) for m in report.accepted
    ] == [(m["content"], m["type"], m["priority"], m["source_message_ids"]) for m in memories]


def test_method_checks_accept_the_specs_own_methods():
    """The spec's example methods pass; its counter-examples of one-off records do not."""
    from jupyter_memory.core.learning.method_checks import is_normative, one_off_specifics

    for ok in (
        "当 pi 扩展改源码后，必须用 npx tsgo -p tsconfig.build.json 重建 dist 再重启。",
        "排查构建失败时，应先看最近一次 package-lock.json 变更，再检查 unused import。",
        "用户主张记忆衰减机制应以实际使用频率为基准（依据：未使用的时段不产生使用价值）。",
        "Prefer the existing tools over ad-hoc scripts when debugging an agent.",
        "Never average conversion rates across regions directly.",
    ):
        assert is_normative(ok) and one_off_specifics(ok) == [], ok
    for description in (
        "X 事件监听器为 no-op。",
        "The export uses fs.watchFile polling.",
        "系统响应很慢。",
    ):
        assert not is_normative(description), description
    assert one_off_specifics("commit 8f3a2c1（2026-08-22）修复了 id 问题") == [
        "8f3a2c1",
        "2026-08-22",
    ]


def test_method_checks_accept_english_imperatives_and_when_conditionals():
    """Issue 32: plain imperatives and "when …, do …" are normative (as 当…时 is);
    descriptions, also those opening with "when", are not."""
    from jupyter_memory.core.learning.method_checks import is_normative

    for ok in (
        "When a join multiplies row counts, check key uniqueness on both sides first.",
        "Check key uniqueness on both sides before joining.",
        "Use the booking date for monthly revenue.",
        "If the refresh fails, re-run the upstream job before the report.",
        "Before comparing regions, normalise revenue to the same currency.",
        "Do the currency conversion before aggregating.",
        "Whenever a metric changes definition, note the date in the dashboard.",
        "Exclude test accounts from every revenue figure.",
        "Drop the first row before parsing the dates.",
        "Please verify the currency of each region.",
    ):
        assert is_normative(ok), ok
    for description in (
        "When I ran the join, the row count doubled.",
        "When the job ran yesterday it failed twice.",
        "Checks are run on both sides.",
        "The join multiplies row counts.",
        "Uses the booking date.",
        "If the refresh fails, the report is empty.",
        "Revenue figures exclude test accounts.",
        "Test accounts are excluded from the sample.",
        "Use of the cache is limited to the nightly job.",
        "Drop rate is computed per week.",
    ):
        assert not is_normative(description), description
