"""notebooks/case_retrospective.ipynb runs in a real kernel against the sample case."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tests.service.case_helpers import copy_sample, tree
from tests.support.kernels import execute

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "case_retrospective.ipynb"


def _text(cell: nbformat.NotebookNode) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out["text"])
        elif "data" in out:
            parts.append(out["data"].get("text/plain", ""))
    return "".join(parts)


@pytest.mark.slow
def test_retrospective_notebook_runs_and_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    ws = copy_sample(tmp_path)
    monkeypatch.setenv("JM_CASE_WORKSPACE", str(ws))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    before = tree(ws)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    execute(nb, tmp_path)  # the kernel gets the two variables set above
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code_cells:
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source
        for out in cell.outputs:
            if out.output_type == "stream" and out.name == "stderr":
                assert "Glyph" not in out.text and "Traceback" not in out.text
    texts = "\n".join(_text(c) for c in code_cells)
    assert "CASE-2026-001: 15 entries, 3 legacy v1, index ok: True" in texts
    assert (
        "hesitations: 5; confirmed 2, ruled out 2, open 1; hesitation hit rate 50% of decided"
        in texts
    )
    assert "验证——我当初的直觉对吗？" in texts
    assert "6 entries feed the retrospective report" in texts
    images = [o for c in code_cells for o in c.outputs if "data" in o and "image/png" in o["data"]]
    assert len(images) >= 4
    assert tree(ws) == before  # a retrospective only reads
