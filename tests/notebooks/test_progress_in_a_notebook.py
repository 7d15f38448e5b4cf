"""A first open of a large memory home in a real kernel shows a progress widget."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jupyter_memory import Memory
from tests.support.kernels import execute, kernel_env, new_notebook


@pytest.mark.slow
def test_first_open_shows_a_progress_widget_then_nothing(memory_home: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.jsonl"
    notes.write_text(
        "".join(json.dumps({"text": f"退款 refunds note {i}"}) + "\n" for i in range(400)),
        encoding="utf-8",
    )
    with Memory(memory_home) as mem:
        mem.hooks.import_jsonl(notes)
    shutil.rmtree(memory_home / ".index")  # as after copying or cloning the files
    nb = new_notebook(
        ["%load_ext jupyter_memory", "%recall 退款 --limit 1", "%recall refunds --limit 1"]
    )
    execute(nb, tmp_path, kernel_env(JUPYTER_MEMORY_HOME=str(memory_home)))
    first, second = nb.cells[1].outputs, nb.cells[2].outputs
    assert not [o for o in first + second if o.output_type == "error"]
    widgets = [o for o in first if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert widgets, first  # tqdm.auto's bar while 400 files were indexed
    assert not [
        o for o in second if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    assert any("1 memory" in str(o.get("data", {}).get("text/plain", "")) for o in first)
