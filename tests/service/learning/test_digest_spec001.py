"""The session digest by spec 001: the prompt carries the reasoning-pattern rules and the
pre-check list; the validator names the work_method rules it can check; a scene label's
project comes from the messages, not from whatever project is focused."""

from __future__ import annotations

import json
from collections.abc import Sequence

from jupyter_memory.core.learning.digest_prompt import DIGEST_SYSTEM, digest_prompt

T0 = 1767225600000
CELLS = [
    {
        "id": "c1",
        "role": "user",
        "kind": "markdown",
        "text": "# Refund reconciliation",
        "timestamp": T0,
    },
    {
        "id": "c2",
        "role": "user",
        "kind": "code",
        "text": "# We decided to drop test accounts from refund totals because audit asks\nrev = 1",
        "timestamp": T0 + 1000,
    },
]


def test_the_prompt_carries_reasoning_patterns_and_the_pre_check():
    assert "REASONING PATTERNS" in DIGEST_SYSTEM and '"reasoning_pattern"' in DIGEST_SYSTEM
    for rule in (
        "(1) which signal or clue triggered the thinking",
        "(2) from which angle",
        "(3) on which principle, constraint or value",
        "The user holds that … (because: …)",
        "rejected or chose without a reason",
        "Triggers may be inferred; reasons may never be",
    ):
        assert rule in DIGEST_SYSTEM, rule
    check = DIGEST_SYSTEM[DIGEST_SYSTEM.index("PRE-CHECK") :]
    for n in range(1, 6):
        assert f"\n{n}. " in check
    assert "method_not_normative" in check and "method_one_off_specifics" in check
    assert "never guess it from a folder" in DIGEST_SYSTEM


def test_the_prompt_shows_the_project_a_message_was_recorded_in():
    batch = {"session_key": "k", "messages": [dict(CELLS[1], project="sales-q3")]}
    (_, user) = digest_prompt(batch, [], known_projects=["churn", "sales-q3"])
    assert '"project": "sales-q3"' in user["content"]
    assert (
        'Known projects (hints only, never a guess from folders): "churn", "sales-q3"'
        in (user["content"])
    )


class ScriptedLLM:
    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.prompts: list[Sequence[dict[str, str]]] = []

    def complete(self, messages: Sequence[dict[str, str]], *, max_tokens: int = 2_000) -> str:
        self.prompts.append(messages)
        return self.reply


def test_the_validator_names_the_work_method_rules_on_the_llm_path(mem):
    mem.hooks.digest_record("k", CELLS)
    method = {"type": "work_method", "priority": 85, "source_message_ids": ["c2"], "metadata": {}}
    mem.llm = ScriptedLLM(
        json.dumps(
            [
                {
                    "new_scene_name": "sales-q3｜退款对账",
                    "new_scene_reason": "池中没有退款对账议题",
                    "message_ids": ["c1", "c2"],
                    "memories": [
                        dict(method, content="Refund totals use the ledger export table."),
                        dict(method, content="Refund totals must be rebuilt after commit 8f3a2c1."),
                        dict(method, content="退款合计必须排除内部测试账户。"),
                    ],
                }
            ],
            ensure_ascii=False,
        )
    )
    report = mem.digest().to_dict()
    assert [r["rule"] for r in report["rejected"]] == [
        "method_not_normative",
        "method_one_off_specifics",
    ]
    assert [mem.get(s["id"]).text for s in report["stored"]] == ["退款合计必须排除内部测试账户。"]


def test_the_label_takes_the_project_the_cells_were_recorded_in_not_the_focus(mem, tmp_path):
    sales, churn = tmp_path / "sales-q3", tmp_path / "churn"
    sales.mkdir()
    churn.mkdir()
    mem.focus(sales)
    mem.hooks.digest_record("k", CELLS)  # typed in sales-q3
    mem.focus(churn)  # another notebook is focused when the digest runs
    report = mem.digest().to_dict()
    (item,) = report["stored"]
    extra = mem.get(item["id"]).meta.model_extra or {}
    assert extra["scene"] == "sales-q3｜Refund reconciliation"


def test_a_project_the_messages_name_wins_and_the_llm_sees_every_known_project(mem, tmp_path):
    sales, churn = tmp_path / "sales-q3", tmp_path / "churn"
    sales.mkdir()
    churn.mkdir()
    mem.focus(churn)
    mem.focus(sales)
    mem.hooks.digest_record(
        "k",
        [
            {"id": "m1", "role": "user", "kind": "markdown", "text": "# 流失口径", "timestamp": T0},
            {
                "id": "m2",
                "role": "user",
                "kind": "code",
                "text": "# 我们决定 churn 项目的流失口径排除试用账户，因为试用账户不付费\nx = 1",
                "timestamp": T0 + 1,
            },
        ],
    )
    report = mem.digest().to_dict()
    (item,) = report["stored"]
    assert (mem.get(item["id"]).meta.model_extra or {})["scene"] == "churn｜流失口径"
    mem.hooks.digest_record("k2", CELLS)
    mem.llm = ScriptedLLM("[]")
    mem.digest()
    (prompt,) = mem.llm.prompts
    assert '"churn", "sales-q3"' in prompt[1]["content"]


def test_the_embedded_extractor_never_emits_what_the_validator_refuses():
    from jupyter_memory.core.learning.digest_extract import extract_work_memories
    from jupyter_memory.core.learning.work_memory import validate_work_memories

    texts = [
        "# Always exclude internal test accounts before aggregating refunds",
        "# must rebuild the refund table after commit 8f3a2c1 lands",
        "# 这次必须在 2026-03-06 之前重算退款",
        "# 退款合计必须排除内部测试账户",
        "# never average conversion rates across regions directly",
        "# We decided to reconcile refunds with the ledger because audit asks",
        "# 我们决定按下单日统计收入，因为财务按下单日结账。",
    ]
    batch = {
        "session_key": "k",
        "messages": [
            {"id": f"c{i}", "role": "user", "kind": "code", "text": t, "timestamp": T0 + i}
            for i, t in enumerate(texts)
        ],
    }
    scenes = extract_work_memories(batch, [], project="sales-q3")
    report = validate_work_memories(batch, [s.to_spec() for s in scenes], [])
    assert report.rejected == []
    methods = [m.content for m in report.accepted if m.type.value == "work_method"]
    assert len(methods) == 3 and not any("8f3a2c1" in m or "2026" in m for m in methods)
