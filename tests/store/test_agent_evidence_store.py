"""The stores behind agents' quote checks stay bounded (issue 13).

``recent/person-text.json`` keeps the newest 200 records and about a
megabyte of text (under the JSON reader's cap, Chinese included); ``project_notebooks`` lists at most 200 notebooks, newest first,
never through a link or a hidden folder; parsed notebooks are cached boundedly.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat

from jupyter_memory.store.knowledge import notebook_cells
from jupyter_memory.store.knowledge.notebook_cells import project_notebooks, read_cells
from jupyter_memory.store.knowledge.person_text import (
    KEEP_RECORDS,
    PersonTextLog,
)


def test_person_text_keeps_the_newest_records_within_its_caps(tmp_path: Path) -> None:
    log = PersonTextLog(tmp_path)
    log.append([{"role": "code", "text": f"cell {i}"} for i in range(KEEP_RECORDS + 50)])
    kept = log.read()
    assert len(kept) == KEEP_RECORDS and kept[-1]["text"] == f"cell {KEEP_RECORDS + 49}"
    big = '收入\n不含"退款"。' * 2_000  # ~20,000 characters, with escapes
    log.append([{"role": "user", "text": f"{i} {big}"} for i in range(60)])
    kept = log.read()
    assert (tmp_path / "recent" / "person-text.json").stat().st_size < 1_000_000
    assert kept[-1]["text"].startswith("59 ") and len(kept) < 60


def _notebook(path: Path, text: str, mtime: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(text)]
    nbformat.write(nb, str(path))
    os.utime(path, (mtime, mtime))
    return path


def test_project_notebooks_are_newest_first_bounded_and_never_linked(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    for i in range(notebook_cells.MAX_NOTEBOOKS + 5):
        _notebook(project / "deep" / f"n{i:03d}.ipynb", f"cell {i}", 1_700_000_000 + i)
    _notebook(project / ".ipynb_checkpoints" / "c.ipynb", "checkpoint", 1_800_000_000)
    _notebook(project / "node_modules" / "m.ipynb", "module", 1_800_000_000)
    outside = _notebook(tmp_path / "outside" / "o.ipynb", "outside", 1_800_000_000)
    (project / "link.ipynb").symlink_to(outside)
    (project / "linked").symlink_to(outside.parent)
    found = project_notebooks(project)
    assert len(found) == notebook_cells.MAX_NOTEBOOKS
    assert found[0].name == f"n{notebook_cells.MAX_NOTEBOOKS + 4:03d}.ipynb"
    assert all(p.parent == project / "deep" for p in found)
    assert project_notebooks(project / "linked") == []


def test_parsed_notebooks_are_cached_boundedly(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(notebook_cells, "MAX_CACHED", 3)
    monkeypatch.setattr(notebook_cells, "_CACHE", {})
    paths = [_notebook(tmp_path / f"{i}.ipynb", f"text {i}", 1_700_000_000) for i in range(5)]
    for path in paths:
        assert read_cells(path)[0].source == f"text {paths.index(path)}"
    assert len(notebook_cells._CACHE) == 3
