from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_memory.cli.main import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_remember_recall_forget_json(capsys, memory_home: Path):
    code, out, _ = run(capsys, "remember", "收入不含退款", "--title", "收入口径", "--json")
    assert code == 0
    stored = json.loads(out)
    assert stored["id"] and Path(stored["path"]).exists()
    code, out, _ = run(capsys, "recall", "退款", "--json")
    hits = json.loads(out)
    assert [h["id"] for h in hits] == [stored["id"]]
    assert set(hits[0]) >= {"id", "title", "text", "type", "tier", "scope", "tags", "score", "path"}
    code, out, _ = run(capsys, "--json", "get", stored["id"])
    assert json.loads(out)["title"] == "收入口径"
    assert run(capsys, "forget", stored["id"])[0] == 0
    code, out, _ = run(capsys, "recall", "退款", "--json")
    assert json.loads(out) == []


def test_home_flag_before_or_after(capsys, tmp_path: Path):
    home = tmp_path / "h"
    run(capsys, "--home", str(home), "remember", "alpha")
    code, out, _ = run(capsys, "recall", "alpha", "--home", str(home), "--json")
    assert len(json.loads(out)) == 1


def test_errors_exit_nonzero_with_message(capsys):
    code, out, err = run(capsys, "forget", "../etc")
    assert code == 1 and "id" in err
    code, out, _ = run(capsys, "get", "m-missing", "--json")
    assert code == 1 and json.loads(out)["error"] == "NotFoundError"


def test_doctor_json_and_exit(capsys, memory_home: Path):
    run(capsys, "remember", "fine")
    code, out, _ = run(capsys, "doctor", "--json")
    assert code == 0 and json.loads(out) == {"ok": True, "problems": [], "notices": []}
    (memory_home / "memories" / "2026-01-01_semantic_bad.md").write_text("---\n- list\n---\n")
    code, out, _ = run(capsys, "doctor", "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    assert set(report["problems"][0]) == {"path", "kind", "message"}


def test_import_export_stats_list_rebuild(capsys, tmp_path: Path):
    src = tmp_path / "m.jsonl"
    src.write_text('{"text": "one"}\n{"text": "二", "tags": ["t"]}\n')
    code, out, _ = run(capsys, "import", str(src), "--json")
    assert json.loads(out)["imported"] == 2
    code, out, _ = run(capsys, "export", "--format", "jsonl")
    assert len(out.strip().splitlines()) == 2
    code, out, _ = run(capsys, "export", "--format", "csv")
    assert out.splitlines()[0].startswith("id,title")
    code, out, _ = run(capsys, "stats", "--json")
    assert json.loads(out)["total"] == 2
    code, out, _ = run(capsys, "list", "--json")
    assert len(json.loads(out)) == 2
    code, out, _ = run(capsys, "rebuild-index", "--json")
    assert json.loads(out)["user"]["indexed"] == 2


def test_demo_runs_in_subprocess(tmp_path: Path):
    exe = Path(sys.executable).with_name("jupyter-memory")
    if not exe.exists():
        pytest.fail("the jupyter-memory console script is missing: run `pip install -e .`")
    out = subprocess.run([str(exe), "demo", "--json"], capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    assert result["doctor_ok"] and result["rebuild"]["user"]["indexed"] == 5
    assert result["recall"]["退款"], "Chinese recall found nothing"


def test_env_home_honoured(capsys, memory_home: Path):
    run(capsys, "remember", "env home")
    assert list((memory_home / "memories").glob("*.md"))


def test_recall_mode_option(capsys):
    run(capsys, "remember", "alpha words")
    code, out, _ = run(capsys, "recall", "alpha", "--mode", "lexical", "--json")
    assert code == 0 and len(json.loads(out)) == 1
    code, out, err = run(capsys, "recall", "alpha", "--mode", "semantic")
    assert code == 1 and "semantic" in err  # the suite switches the extra off


def test_remember_tags_split_on_commas_like_the_magic(capsys, memory_home: Path):
    # %remember --tags sales,refunds stores two tags; the CLI stores the same.
    code, out, _ = run(capsys, "remember", "Weeks start on Monday", "--tags", "sales,refunds", "q3")
    assert code == 0, out
    from jupyter_memory import Memory

    with Memory(home=memory_home) as mem:
        (row,) = mem.memories()
    assert row["tags"] == ["sales", "refunds", "q3"]
