"""Team write policy, exclusions and the spec 000 decision flow (pure rules)."""

from __future__ import annotations

import pytest

from jupyter_memory.core.cases.entry_format import CaseEntry
from jupyter_memory.core.cases.policy import (
    decide_case_note,
    is_operation_record,
    is_reasoning_chain,
    match_registry,
    match_working_paper,
    noise_suggestion,
    parse_team_profile,
    registry_items,
)
from jupyter_memory.exceptions import ParseError


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("# Team\nMemory Write Policy: silent\n", "silent"),
        ("- **Memory Write Policy**: `disabled`\n", "disabled"),
        ("memory write policy：Notify  # 默认\n", "notify"),
        ("# 团队配置\n\n## Memory Write Policy\n\n silent \n\n## 其他\n", "silent"),
    ],
)
def test_policy_forms(text, value):
    pol = parse_team_profile(text, path="team-profile.md")
    assert pol.value == value and pol.hint is None and pol.source == "team-profile.md"


def test_missing_or_old_config_defaults_to_notify_with_a_hint():
    missing = parse_team_profile(None, path="/w/team-profile.md")
    old = parse_team_profile("# Team\nmemory: on\n", path="/w/team-profile.md")
    for pol in (missing, old):
        assert pol.value == "notify"
        assert pol.hint and "Memory Write Policy: silent|notify|disabled" in pol.hint
        assert "\n" not in pol.hint and "?" not in pol.hint


def test_unknown_policy_value_names_file_and_line_in_the_hint():
    pol = parse_team_profile("# T\n\nMemory Write Policy: loud\n", path="/w/team-profile.md")
    assert pol.value == "notify" and pol.hint
    assert "/w/team-profile.md:3" in pol.hint and "'loud'" in pol.hint
    pol = parse_team_profile("## Memory Write Policy\n\nsometimes\n", path="team-profile.md")
    assert pol.value == "notify" and pol.hint and "team-profile.md:3" in pol.hint


def test_registry_shapes():
    as_list = registry_items([{"id": "E-001", "description": "合同 A"}, "plain text item"])
    assert [(i.id, i.description) for i in as_list] == [
        ("E-001", "合同 A"),
        ("", "plain text item"),
    ]
    keyed = registry_items({"E-002": {"summary": "bank slip"}, "E-003": "call log"})
    assert [(i.id, i.description) for i in keyed] == [("E-002", "bank slip"), ("E-003", "call log")]
    wrapped = registry_items({"case": "x", "evidence": [{"evidence_id": "E-9", "描述": "描述"}]})
    assert [(i.id, i.description) for i in wrapped] == [("E-9", "描述")]
    with pytest.raises(ParseError, match="evidence_registry.json"):
        registry_items(42)
    with pytest.raises(ParseError, match="item 0"):
        registry_items([3])


def test_registry_match_is_restatement_not_mention():
    items = registry_items([{"id": "E-007", "description": "供应商 A 与 B 共用同一银行账户"}])
    assert match_registry("x", "供应商A与B共用同一银行账户", items).id == "E-007"  # spacing
    assert match_registry("供应商 A 与 B 共用同一银行账户", "whatever", items).id == "E-007"
    assert match_registry("t", "供应商 A 与 B 共用同一银行账户", items).id == "E-007"
    assert match_registry("t", "共用同一银行账户", items).id == "E-007"  # says nothing new
    quoting = "供应商 A 与 B 共用同一银行账户，但我怀疑这只是代账公司的习惯。"
    assert match_registry("t", quoting, items) is None  # a doubt on top of evidence is kept


def test_working_paper_match():
    papers = [
        ("working_papers/wp-02.md", "# 结论\n\n返利  比例 在 Q2 翻倍，已确认为系统配置错误。")
    ]
    assert match_working_paper("返利比例在 Q2 翻倍", papers) == "working_papers/wp-02.md"
    assert match_working_paper("返利比例在 Q3 翻倍", papers) is None
    assert match_working_paper("ok", papers) is None  # too short to mean anything


@pytest.mark.parametrize(
    "text",
    [
        "我调用了 query_ledger 工具。",
        "先分析数据再访谈",
        "I called the search tool.",
        "Ran the SQL query. Then exported it.",
    ],
)
def test_plain_operation_records(text):
    assert is_operation_record(text)


@pytest.mark.parametrize(
    "text",
    [
        "我调用了 query_ledger 工具，意外发现 6 月有两笔重复付款。",
        "I ran the query and found an unexpected refund spike.",
        "境外付款这条线感觉有异常。",
        "Paused the channel-collusion line because the data cannot tell a dispute from fraud.",
    ],
)
def test_operations_with_a_finding_are_kept(text):
    assert not is_operation_record(text)


def _e(title, body="b", **kw) -> CaseEntry:
    kw.setdefault("type", "discuss")
    kw.setdefault("date", "2026-06-14")
    return CaseEntry(title=title, body=body, **kw)


def test_decide_skip_update_create():
    old = _e("供应商重叠", "考虑过张三", evidence=("E-007",))
    existing = [("2026-06-14_discuss_a.md", old)]
    assert (
        decide_case_note(
            _e("供应商重叠", "考虑过  张三", evidence=("E-007",)), existing, status_given=False
        ).action
        == "skip"
    )
    upd = decide_case_note(_e("供应商重叠", "考虑过张三", evidence=("E-009",)), existing)
    assert upd.action == "update" and upd.target == "2026-06-14_discuss_a.md"
    status = decide_case_note(
        _e("供应商重叠", "考虑过张三", status="已纳入"), existing, status_given=True
    )
    assert status.action == "update"
    new = decide_case_note(_e("供应商重叠", "新的判断：李四才是关键"), existing)
    assert new.action == "create" and new.related == "2026-06-14_discuss_a.md"
    by_ev = decide_case_note(
        _e("Refund spike", "x", type="hesitate", evidence=("E-007",)), existing
    )
    assert by_ev.related == "2026-06-14_discuss_a.md"
    by_hyp = decide_case_note(
        _e("Other", "y", hypotheses=("H-2",)), [("n.md", _e("Z", "z", hypotheses=("H-2",)))]
    )
    assert by_hyp.related == "n.md"
    assert decide_case_note(_e("Unrelated", "q"), existing).related is None


def test_decide_never_updates_legacy():
    legacy = _e("旧条目", "b", schema_version=None)
    d = decide_case_note(_e("旧条目", "b", evidence=("E-1",)), [("old.md", legacy)])
    assert d.action == "create" and d.related == "old.md"


def test_noise_suggestion_past_thirty():
    assert noise_suggestion(30) is None
    assert "31" in noise_suggestion(31) and "cleanup" in noise_suggestion(31)


def test_reasoning_chains_are_recognised():
    assert is_reasoning_chain("第一步：看流水。\n第二步：对合同。\n第三步：下结论。")
    assert is_reasoning_chain("Step 1: read ledger\nStep 2: compare contracts")
    reason = (
        "暂缓渠道合谋方向，因为数据无法区分纠纷与欺诈。恢复条件：\n1. 往来邮件\n2. 第二家银行流水"
    )
    assert not is_reasoning_chain(reason)


def test_the_same_doubt_in_new_words_is_skipped_not_written_again():
    old = _e("Refund spike in March", "Doubt: the refund spike may come from test accounts.")
    existing = [("2026-06-14_discuss_refund-spike.md", old)]
    again = _e("March refund spike", "Doubt: test accounts may cause the refund spike.")
    d = decide_case_note(again, existing, status_given=False)
    assert (d.action, d.target) == ("skip", "2026-06-14_discuss_refund-spike.md")
    zh = [("z.md", _e("退款激增", "怀疑退款激增来自测试账号"))]
    assert decide_case_note(_e("退款激增（续）", "怀疑测试账号导致了退款激增"), zh).action == "skip"
    other = decide_case_note(_e("退款激增", "怀疑退款激增来自促销活动"), zh)
    assert other.action == "create" and other.related == "z.md"
