"""Legacy v1 entries lacking a section, INDEX.md rows of unknown state, row salvage,
and the write policy's safe default for unknown values (spec 000, issue 14)."""

from __future__ import annotations

import pytest

from jupyter_memory.core.cases.entry_format import STATUS_UNKNOWN, parse_entry
from jupyter_memory.core.cases.index_format import (
    CaseIndex,
    CaseIndexRow,
    parse_index,
    render_index,
    salvage_rows,
)
from jupyter_memory.core.cases.policy import parse_team_profile

V1_HEAD = "# 渠道返利的旧判断\n\n**类型**: think\n**日期**: 2026-05-20\n**关联证据**: E-003\n\n"


@pytest.mark.parametrize(
    ("tail", "body", "status", "files"),
    [
        # no 后续状态 at all
        (
            "## 记录\n\n当时认为渠道合谋证据不足。\n\n## 关联文件\n\n- [a.md](a.md)\n",
            "当时认为",
            "",
            1,
        ),
        # no 记录 heading, no 关联文件
        ("当时认为渠道合谋证据不足。\n\n## 后续状态\n\n- [x] 已排除\n", "当时认为", "已排除", 0),
        # status section with nothing checked, and with two checked
        ("理由。\n\n## 后续状态\n\n- [ ] 已纳入\n- [ ] 已排除\n", "理由", "", 0),
        ("理由。\n\n## 后续状态\n\n- [x] 已纳入\n- [x] 已排除\n", "理由", "", 0),
        # only the header: no section whatsoever
        ("", "", "", 0),
        # a link we cannot represent is left out, the rest is read
        ("理由。\n\n## 关联文件\n\n- [a](has space.md)\n- [b.md](b.md)\n", "理由", "", 1),
    ],
)
def test_v1_entry_lacking_sections_is_read_with_what_it_has(tail, body, status, files):
    entry = parse_entry(V1_HEAD + tail, path="x.md")
    assert entry.legacy and entry.title == "渠道返利的旧判断" and entry.type == "think"
    assert entry.evidence == ("E-003",) and entry.status == status
    assert entry.body.startswith(body) and "## " not in entry.body
    assert len(entry.files) == files


def test_unknown_state_is_a_dash_in_index_md_and_reads_back():
    rows = (
        CaseIndexRow("2026-05-20", "think", "旧判断", ("E-003",), STATUS_UNKNOWN),
        CaseIndexRow("2026-06-14", "discuss", "ok", (), "存档待查"),
    )
    text = render_index(CaseIndex("CASE-2026-001", "x", "—", rows))
    assert "| 2026-05-20 | think | 旧判断 | E-003 | — |" in text
    assert parse_index(text).rows == rows


def test_salvage_keeps_the_good_rows_of_a_broken_table():
    good = CaseIndexRow("2026-06-14", "discuss", "供应商重叠", ("E-007",), "存档待查")
    text = render_index(CaseIndex("CASE-2026-001", "x", "—", (good,)))
    broken = text.replace("# Case Memory Index", "# Index") + "| 2026-06-15 | gossip | x |\n"
    assert salvage_rows(broken) == (good,)


@pytest.mark.parametrize(
    "text",
    ["# T\n\nMemory Write Policy: loud\n", "## Memory Write Policy\n\nask-first\n"],
)
def test_unknown_or_unmigrated_policy_value_falls_back_to_notify(text):
    pol = parse_team_profile(text, path="/w/team-profile.md")
    assert pol.value == "notify" and pol.source == "/w/team-profile.md"
    assert pol.hint and "/w/team-profile.md:3" in pol.hint and "notify" in pol.hint
    assert "Memory Write Policy: silent|notify|disabled" in pol.hint and "\n" not in pol.hint
