"""In a real kernel run by nbclient, told its notebook the way jupyter_server tells it
(``JPY_SESSION_NAME``): ``%remember`` and ``%%case note`` with Chinese titles write
readable file names, and the case entry's 关联文件 is that notebook."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from jupyter_memory.service.cases.memory import CaseMemory
from tests.support.kernels import execute, kernel_env

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "sample_workspace"
CASE = "CASE-2026-001"


def test_chinese_titles_make_readable_names_and_the_notebook_is_the_related_file(
    tmp_path: Path, memory_home: Path
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    work = tmp_path / "分析"
    work.mkdir()
    nb_path = work / "退款 核查.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext jupyter_memory"),
        nbformat.v4.new_code_cell('%remember --title "退款不计入收入" 退款按订单净额冲减，不计入收入。'),
        nbformat.v4.new_code_cell(f"%case open {CASE} --workspace {ws}"),
        nbformat.v4.new_code_cell(
            '%%case note --type hesitate --title "退款冲减口径可疑" --evidence E-009\n'
            "退款冲减的口径与报表不一致，尚无法判断是否为故意。"
        ),
    ]
    nbformat.write(nb, str(nb_path))
    # As jupyter_server does for a kernel it starts for a notebook.
    env = kernel_env(JUPYTER_MEMORY_HOME=str(memory_home), JPY_SESSION_NAME=str(nb_path))
    execute(nb, work, env)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error", f"{cell.source!r}: {out.get('evalue')}"
    memories = [p.name for p in (memory_home / "memories").glob("*.md")]
    assert len(memories) == 1 and memories[0].endswith("_退款不计入收入.md")
    cm = CaseMemory(ws, CASE)
    (entry,) = [r for r in cm.entries() if r.title == "退款冲减口径可疑"]
    assert entry.name.endswith("_hesitate_退款冲减口径可疑.md")
    (link,) = entry.entry.files
    assert link.name == "退款 核查.ipynb" and link.note == "记录时所在的笔记本"
    assert link.path == "../../../../分析/退款%20核查.ipynb"
    assert entry.entry.evidence == ("E-009",)
