"""``jupyter-memory notebooks``: the shipped notebooks copied into a folder of the person's."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from jupyter_memory.cli.main import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_copies_every_notebook_and_the_sample_case(capsys, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    code, text, _ = run(capsys, "notebooks", "--out", str(out))
    assert code == 0, text
    for name in ("quickstart.ipynb", "retrospective.ipynb", "case_retrospective.ipynb"):
        nbformat.validate(nbformat.read(out / name, as_version=4))
        assert name in text
    assert (out / "sample_workspace" / "team-profile.md").is_file()
    assert any((out / "sample_workspace" / "cases").rglob("INDEX.md"))
    assert "jupyter lab" in text and "jupyter-memory[plots]" in text


def test_an_edited_notebook_is_never_overwritten_without_force(capsys, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    run(capsys, "notebooks", "--out", str(out))
    mine = out / "retrospective.ipynb"
    mine.write_text('{"edited": "我的复盘"}', encoding="utf-8")
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    code, text, _ = run(capsys, "notebooks", "--out", str(out), "--json")
    assert code == 1
    error = json.loads(text)
    assert error["error"] == "ConflictError" and "--force" in error["message"]
    assert mine.read_text(encoding="utf-8") == '{"edited": "我的复盘"}'
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    code, text, _ = run(capsys, "notebooks", "--out", str(out), "--force", "--json")
    assert code == 0 and str(mine) in json.loads(text)["files"]
    nbformat.validate(nbformat.read(mine, as_version=4))


def test_list_names_what_ships(capsys) -> None:
    code, text, _ = run(capsys, "notebooks", "--list", "--json")
    files = json.loads(text)["files"]
    assert code == 0 and "case_retrospective.ipynb" in files
    assert not [f for f in files if "__pycache__" in f or "/." in f or f.startswith(".")]
