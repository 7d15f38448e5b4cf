"""%case / %%case note over CaseMemory: open, note, index, status, search, policy, archive."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from IPython.core.error import UsageError

SAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "sample_workspace"


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    return ws


def set_policy(ws: Path, value: str) -> None:
    profile = ws / "team-profile.md"
    text = profile.read_text("utf-8")
    for old in ("silent", "notify", "disabled"):
        text = text.replace(f"\n{old}\n", f"\n{value}\n")
    profile.write_text(text, "utf-8")


def test_open_status_note_index(ip, workspace, capsys):
    out = ip.run_line_magic("case", f"open CASE-2026-001 --workspace {workspace}")
    assert "Case CASE-2026-001 · policy notify" in str(out)
    ip.run_cell_magic(
        "case", 'note --type insight --title "退款集中在一个商户"', "三份报告都指向同一商户。\n"
    )
    printed = capsys.readouterr().out
    assert "case memory CASE-2026-001: created" in printed
    folder = workspace / "cases/CASE-2026-001/case_memory"
    new = [f for f in folder.glob("*_insight_*.md") if "三份报告" in f.read_text("utf-8")]
    assert len(new) == 1
    index = ip.run_line_magic("case", "index")
    assert "退款集中在一个商户" in str(index)
    assert "insight" in str(ip.run_line_magic("case", "status"))


def test_silent_policy_prints_nothing_on_success(ip, workspace, capsys):
    set_policy(workspace, "silent")
    ip.run_line_magic("case", f"open CASE-2026-001 --workspace {workspace}")
    capsys.readouterr()
    ip.run_line_magic("case", 'note --type observe --title "Quiet note" nothing printed here')
    assert capsys.readouterr().out == ""
    assert list((workspace / "cases/CASE-2026-001/case_memory").glob("*_observe_quiet-note.md"))
    assert "silent" in str(ip.run_line_magic("case", "policy"))


def test_search_across_cases_in_chinese(ip, workspace):
    ip.run_line_magic("case", f"open CASE-2026-001 --workspace {workspace}")
    hits = ip.run_line_magic("case", "search 返利")
    assert hits and all(h["case"].startswith("CASE-") for h in hits)
    assert "<table" in hits._repr_html_()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("status", "no case open"),
        ("fly", "unknown action"),
        ("open", "one case id"),
        ("open CASE-2026-001 --workspace /does/not/exist", "not found"),
    ],
)
def test_case_errors(ip, line, message):
    with pytest.raises(UsageError, match=message):
        ip.run_line_magic("case", line)


def test_note_needs_type_title_and_body(ip, workspace, capsys):
    ip.run_line_magic("case", f"open CASE-2026-001 --workspace {workspace}")
    with pytest.raises(UsageError, match="needs --type, --title and a body"):
        ip.run_line_magic("case", "note just some words")
    before = sorted((workspace / "cases/CASE-2026-001/case_memory").iterdir())
    ip.run_line_magic("case", 'note --type nonsense --title "T" body')
    assert "not one of the five types" in capsys.readouterr().out
    assert sorted((workspace / "cases/CASE-2026-001/case_memory").iterdir()) == before


# -- issue 14: status ENTRY STATE, repair, list filters, damaged entries ------------------------

HESITATE = "2026-06-03_hesitate_overseas-payment.md"
LEGACY = "2026-05-31_hesitate_related-party-doubt.md"


def test_status_entry_state_sets_the_state_file_first_then_index(ip, workspace, capsys):
    ip.run_line_magic("case", f"open CASE-2026-001 --workspace {workspace}")
    capsys.readouterr()
    assert ip.run_line_magic("case", f"status {HESITATE} 已排除") is None
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 1 and "updated" in printed[0] and "已纳入 → 已排除" in printed[0]
    folder = workspace / "cases/CASE-2026-001/case_memory"
    assert "- [x] 已排除" in (folder / HESITATE).read_text("utf-8")
    assert "| 境外付款路线证据不足 | E-009 | 已排除 |" in (folder / "INDEX.md").read_text("utf-8")
    with pytest.raises(UsageError, match="ENTRY STATE"):
        ip.run_line_magic("case", f"status {HESITATE}")
    with pytest.raises(UsageError, match="status"):
        ip.run_line_magic("case", f"status {HESITATE} 完成")


def test_list_filters_by_type_evidence_and_hypothesis(ip, workspace):
    ip.run_line_magic("case", f"open CASE-2026-001 --workspace {workspace}")
    assert len(ip.run_line_magic("case", "list")) == 15
    rows = ip.run_line_magic("case", "list --evidence E-018")
    assert [r["file"] for r in rows] == [
        "2026-06-14_hesitate_dealer-b-refund-timing.md",
        "2026-06-15_think_hypothesis-2-revised.md",
    ]
    assert len(ip.run_line_magic("case", "list --hypothesis H-2")) == 5
    both = ip.run_line_magic("case", "list --type think --evidence E-018")
    assert [r["file"] for r in both] == ["2026-06-15_think_hypothesis-2-revised.md"]
    assert "<table" in both._repr_html_() and "E-018" in both._repr_html_()
    with pytest.raises(UsageError, match="one --evidence"):
        ip.run_line_magic("case", "list --evidence E-1 --evidence E-2")


def test_repair_and_a_damaged_case_in_the_notebook(ip, workspace, capsys):
    folder = workspace / "cases/CASE-2026-001/case_memory"
    text = (folder / LEGACY).read_text("utf-8")
    (folder / LEGACY).write_text(text[: text.index("## 后续状态")], "utf-8")
    (folder / HESITATE).write_bytes(b"\xff")
    (folder / "INDEX.md").write_text(
        (folder / "INDEX.md").read_text("utf-8") + "| broken |\n", "utf-8"
    )
    ip.run_line_magic("case", f"open CASE-2026-001 --workspace {workspace}")
    out = str(ip.run_line_magic("case", "repair"))
    assert "INDEX.md repaired" in out and "still: entry-unparseable" in out and HESITATE in out
    assert "fixed: index-unparseable" in out
    rows = {r["file"]: r for r in ip.run_line_magic("case", "list")}
    assert HESITATE not in rows and rows[LEGACY]["status"].startswith("—")
    capsys.readouterr()
    ip.run_line_magic("case", 'note --type insight --title "新的线索" 经销商 F 的发票与 B 相似。')
    printed = capsys.readouterr().out.strip().splitlines()
    assert "created" in printed[0] and HESITATE in printed[1]


def test_archive_compress_and_uncompress_in_the_notebook(ip, workspace):
    name = "2026-06-08_hesitate_rebate-rate-jump.md"
    path = workspace / "cases/CASE-2026-001/case_memory" / name
    original = path.read_bytes()
    ip.run_line_magic("case", f"open CASE-2026-001 --workspace {workspace}")
    out = str(ip.run_line_magic("case", "archive --compress"))
    assert "compressed 3 已排除 entries to one line" in out
    assert "归档时已压缩" in path.read_text("utf-8")
    back = str(ip.run_line_magic("case", "uncompress"))
    assert "gave back 3 records" in back and path.read_bytes() == original
