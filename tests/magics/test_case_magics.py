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
