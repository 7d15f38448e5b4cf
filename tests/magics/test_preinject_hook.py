"""The ``pre_run_cell`` hook never reorganizes for an unrelated cell (issue 13, defect 5).

Only a cell that injects the block (it names ``memory_context``, as
``%%ai model`` prompts with ``{memory_context}`` do) or an ``%%ask`` may run the
pre-inject reorganize, with the spec's notice under that cell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.format import Entry, KnowledgeDoc, render_knowledge
from jupyter_memory.service.knowledge.preinject import NOTICE


def _flat_file(home: Path) -> Path:
    # Filler pays for the labels: a reorganize never makes the file longer (issue 32).
    entries = tuple(
        Entry(f"Note that {('orders', 'refunds')[i % 2]} must pass check {i} in region {i * 3}")
        for i in range(80)
    )
    with Memory(home) as mem:
        mem.save_knowledge("user", render_knowledge(KnowledgeDoc(entries, ())))
        return Path(mem.hooks.library_status("user")["path"])


def test_an_unrelated_cell_never_reorganizes(
    ip: Any, memory_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _flat_file(memory_home)
    before = path.read_bytes()
    ip.run_cell("total = 1 + 1")
    assert path.read_bytes() == before and not Path(f"{path}.bak").exists()
    assert NOTICE not in capsys.readouterr().out
    assert 'mode="catalog"' in ip.user_ns["memory_context"]  # kept current all the same


def test_a_cell_injecting_memory_context_reorganizes_with_the_notice(
    ip: Any, memory_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _flat_file(memory_home)
    ip.run_cell("prompt = f'Answer with this: {memory_context}'")
    out = capsys.readouterr().out
    assert NOTICE in out
    assert Path(f"{path}.bak").exists()
    with Memory(memory_home) as mem:
        assert mem.hooks.knowledge_doc("user").has_groups
    # At most once per conversation: the next such cell says nothing.
    ip.run_cell("prompt = f'{memory_context}'")
    assert NOTICE not in capsys.readouterr().out


@pytest.mark.slow
def test_in_a_real_kernel_only_the_injecting_cell_shows_the_notice(
    memory_home: Path, tmp_path: Path
) -> None:
    from tests.support.kernels import execute, kernel_env, new_notebook

    path = _flat_file(memory_home)
    nb = new_notebook(
        [
            "%load_ext jupyter_memory",
            "total = 1 + 1\nprint('unrelated', total)",
            "prompt = f'Use this: {memory_context}'\nprint(len(prompt) > 0)",
        ]
    )
    execute(nb, tmp_path, kernel_env(JUPYTER_MEMORY_HOME=str(memory_home)))

    def said(cell: Any) -> str:
        return "".join(o.get("text", "") for o in cell.get("outputs", []))

    assert NOTICE not in said(nb.cells[1]) and "unrelated 2" in said(nb.cells[1])
    assert NOTICE in said(nb.cells[2]) and "Reorganized" in said(nb.cells[2])
    assert Path(f"{path}.bak").exists()
