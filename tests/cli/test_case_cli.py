"""``jupyter-memory case ...`` on a copy of the sample workspace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_memory.cli.main import main
from tests.service.case_helpers import CASE, copy_sample, tree


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return copy_sample(tmp_path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_note_then_list_index_doctor(ws: Path, capsys):
    code, out, _ = run(
        capsys,
        "case",
        "--workspace",
        str(ws),
        "--case",
        CASE,
        "note",
        "hesitate",
        "Dealer G 退款节奏",
        "--body",
        "Dealer G 的退款也紧跟返利，感觉是同一套路。",
        "--evidence",
        "E-018",
        "--hypothesis",
        "H-2",
        "--json",
    )
    result = json.loads(out)
    assert code == 0 and result["action"] == "created" and result["related"]
    assert Path(result["path"]).is_file()
    code, out, _ = run(
        capsys,
        "case",
        "list",
        "--workspace",
        str(ws),
        "--case",
        CASE,
        "--evidence",
        "E-018",
        "--json",
    )
    assert code == 0 and len(json.loads(out)) == 3
    code, out, _ = run(capsys, "case", "--workspace", str(ws), "--case", CASE, "index")
    assert code == 0 and out.startswith("# Case Memory Index — CASE-2026-001")
    assert "Dealer G 退款节奏" in out
    code, out, _ = run(capsys, "case", "--workspace", str(ws), "--case", CASE, "doctor", "--json")
    assert code == 0 and json.loads(out)["ok"] is True


def test_notify_prints_one_line_and_silent_prints_nothing(ws: Path, capsys):
    base = ("case", "--workspace", str(ws), "--case", CASE, "note", "insight")
    code, out, _ = run(capsys, *base, "Dealer H", "--body", "Dealer H orders spike at month end.")
    assert code == 0 and out.count("\n") == 1 and "created" in out
    (ws / "team-profile.md").write_text("Memory Write Policy: silent\n", "utf-8")
    code, out, _ = run(capsys, *base, "Dealer J", "--body", "Dealer J orders spike at month end.")
    assert code == 0 and out == ""


def test_doctor_exits_non_zero_on_problems(ws: Path, capsys):
    idx = ws / "cases" / CASE / "case_memory" / "INDEX.md"
    idx.write_text(idx.read_text("utf-8") + "| 2026-06-30 | observe | orphan | — | 存档待查 |\n")
    code, out, _ = run(capsys, "case", "--workspace", str(ws), "--case", CASE, "doctor")
    assert code == 1 and "orphan-row" in out
    code, out, _ = run(capsys, "case", "--workspace", str(ws), "--case", CASE, "repair", "--json")
    assert code == 0 and json.loads(out)["repaired"] is True
    code, _, _ = run(capsys, "case", "--workspace", str(ws), "--case", CASE, "doctor")
    assert code == 0


def test_status_archive_search_policy(ws: Path, capsys):
    base = ("case", "--workspace", str(ws), "--case", CASE)
    code, out, _ = run(
        capsys, *base, "status", "2026-06-04_insight_south-china-pattern.md", "已纳入"
    )
    assert code == 0 and "存档待查 → 已纳入" in out
    code, out, _ = run(
        capsys,
        *base,
        "archive",
        "--delete",
        "2026-06-18_hesitate_warehouse-stock-count.md",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["deleted"] == ["2026-06-18_hesitate_warehouse-stock-count.md"]
    assert any(r["file"] == "2026-06-04_insight_south-china-pattern.md" for r in data["included"])
    code, out, _ = run(capsys, "case", "search", "境外", "--workspace", str(ws), "--json")
    assert code == 0 and {h["case"] for h in json.loads(out)} == {"CASE-2026-001", "CASE-2025-014"}
    code, out, _ = run(capsys, "case", "policy", "--workspace", str(ws))
    assert code == 0 and "notify" in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (("--case", "../CASE-2026-001", "doctor"), "path separator"),
        (("--case", CASE, "status", "../evidence_registry.json", "已纳入"), "is not inside"),
        (
            ("--case", CASE, "status", "2026-06-04_insight_south-china-pattern.md", "完成"),
            "not one of",
        ),
        (("doctor",), "--case"),
    ],
)
def test_bad_input_is_a_clear_error_and_changes_nothing(ws: Path, capsys, argv, fragment):
    before = tree(ws)
    code, out, err = run(capsys, "case", "--workspace", str(ws), *argv, "--json")
    assert code == 1 and fragment in json.loads(out)["message"]
    assert tree(ws) == before


def test_console_script_runs(ws: Path):
    exe = Path(sys.executable).parent / "jupyter-memory"
    proc = subprocess.run(
        [str(exe), "case", "--case", CASE, "doctor"], cwd=ws, capture_output=True, text=True
    )
    assert proc.returncode == 0 and "15 entries, ok" in proc.stdout


def test_archive_compress_then_uncompress(ws: Path, capsys):
    """Issue 14: 已排除 entries compressed to one line, given back from the snapshot."""
    base = ("case", "--workspace", str(ws), "--case", CASE)
    folder = ws / "cases" / CASE / "case_memory"
    name = "2026-06-08_hesitate_rebate-rate-jump.md"
    original = (folder / name).read_bytes()
    code, out, _ = run(capsys, *base, "archive", "--compress", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["compressed"]) == 3 and name in data["compressed"]
    assert data["not_compressed"] == []
    assert (folder / name).read_bytes() != original
    code, out, _ = run(capsys, *base, "uncompress", name)
    assert code == 0 and "gave back 1 records" in out
    assert (folder / name).read_bytes() == original
    code, out, _ = run(capsys, *base, "doctor")
    assert code == 0


def test_list_shows_a_legacy_entry_without_status_and_doctor_names_an_unreadable_one(
    ws: Path, capsys
):
    folder = ws / "cases" / CASE / "case_memory"
    legacy = folder / "2026-05-31_hesitate_related-party-doubt.md"
    text = legacy.read_text("utf-8")
    legacy.write_text(text[: text.index("## 后续状态")], "utf-8")
    (folder / "2026-06-03_hesitate_overseas-payment.md").write_bytes(b"\xff")
    base = ("case", "--workspace", str(ws), "--case", CASE)
    code, out, _ = run(capsys, *base, "list", "--type", "hesitate")
    assert code == 0 and "—(unknown)  2026-05-31_hesitate_related-party-doubt.md" in out
    code, out, _ = run(capsys, *base, "note", "insight", "新线索", "--body", "经销商 F 值得对照。")
    assert code == 0 and "created" in out and "overseas-payment.md" in out
    code, out, _ = run(capsys, *base, "doctor")
    assert code == 1 and "entry-unparseable" in out and "overseas-payment.md" in out
