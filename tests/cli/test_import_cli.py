"""``jupyter-memory import-from`` and ``export --format basic-memory|agents-md`` (issue 18)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from jupyter_memory.cli.main import main

DATA = Path(__file__).parents[1] / "data" / "imports"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_import_from_dry_run_json_then_import_and_summary(capsys, tmp_path, memory_home):
    src = tmp_path / "bm"
    shutil.copytree(DATA / "basic-memory", src)
    code, out, err = run(capsys, "import-from", "basic-memory", str(src), "--dry-run", "--json")
    assert code == 0 and err == ""  # no bar with --json
    dry = json.loads(out)
    assert dry["dry_run"] and dry["counts"] == {
        "memories": 4,
        "proposals": 0,
        "skipped": 0,
        "problems": 0,
    }
    assert not (memory_home / "memories").exists()
    code, out, _ = run(capsys, "import-from", "basic-memory", str(src))
    assert code == 0 and out.startswith("imported 4 memories and queued 0 proposals")
    code, out, _ = run(capsys, "import-from", "basic-memory", str(src))
    assert "imported 0 memories" in out and "4 × imported before" in out


def test_import_from_errors_and_choices(capsys, tmp_path):
    code, out, _ = run(capsys, "import-from", "mem0", str(tmp_path / "missing.json"), "--json")
    assert code == 1 and json.loads(out)["error"] == "ParseError" and "missing.json" in out


def test_export_basic_memory_and_agents_md(capsys, tmp_path):
    run(capsys, "import-from", "basic-memory", str(DATA / "basic-memory"))
    run(capsys, "import-from", "agents-md", str(DATA / "agents-md" / "AGENTS.md"))
    run(capsys, "process-all", "--yes")
    code, out, _ = run(
        capsys, "export", "--format", "basic-memory", str(tmp_path / "notes"), "--json"
    )
    assert code == 0 and json.loads(out)["written"] == 4
    assert (
        (tmp_path / "notes" / "收入口径.md").read_text(encoding="utf-8").startswith("---\ntitle:")
    )
    code, out, _ = run(capsys, "export", "--format", "agents-md", str(tmp_path / "AGENTS.md"))
    assert code == 0 and "exported to" in out
    assert "Never commit notebooks with outputs." in (tmp_path / "AGENTS.md").read_text("utf-8")
    code, _, err = run(capsys, "export", "--format", "agents-md")
    assert code == 1 and "needs a target" in err


def test_a_dry_run_into_a_new_project_registers_and_creates_nothing(capsys, tmp_path, memory_home):
    # A dry run writes nothing: not the project registry, not the project folder.
    project = tmp_path / "sales-q3"
    project.mkdir()
    src = tmp_path / "agents"
    src.mkdir()
    (src / "AGENTS.md").write_text(
        "# Rules\n\n- Always dedupe orders on order_id before joining.\n", encoding="utf-8"
    )
    code, out, _ = run(
        capsys,
        "import-from",
        "agents-md",
        str(src / "AGENTS.md"),
        "--project",
        str(project),
        "--dry-run",
        "--json",
    )
    assert code == 0, out
    report = json.loads(out)
    assert report["dry_run"] and [p["layer"] for p in report["proposals"]] == ["project"]
    assert not (memory_home / "projects.json").exists()
    assert list(project.iterdir()) == []
    code, out, _ = run(
        capsys, "import-from", "agents-md", str(src / "AGENTS.md"), "--project", str(project)
    )
    assert code == 0 and (project / ".jupyter-memory").is_dir()
    assert "sales-q3" in (memory_home / "projects.json").read_text(encoding="utf-8")
