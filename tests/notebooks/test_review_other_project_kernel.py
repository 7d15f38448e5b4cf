"""In a real kernel run by nbclient (issue 15): focused on one project,
``%memory keep|promote|discard`` decide memories of another registered project (an id
from the panel or another notebook's listing), and an unknown or ambiguous id is
refused with the id named, in English and in Chinese."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from jupyter_memory import Memory
from tests.notebooks.test_review_kernel import run as run_in_kernel

pytestmark = pytest.mark.slow

UNKNOWN = "m-01zzzzzzzzzzzzzzzzzzzz"


def seed(home: Path, focus: Path, other: Path) -> list[str]:
    focus.mkdir()
    other.mkdir()
    with Memory(home=home, project=focus) as mem:
        mem.remember("the focused project's note", scope="project")
    with Memory(home=home, project=other) as mem:
        return [
            mem.remember(
                text,
                scope="project",
                source="session-digest",
                reviewed=False,
                evidence=[{"quote": quote, "source": "cell"}],
            ).id
            for text, quote in [
                ("Refunds arrive two days late", "refunds arrive 2 days late"),
                ("收入按预订日确认", "我们决定收入按预订日确认，因为财务按它结账"),
                ("Orders join customers on customer_id", "join on customer_id"),
            ]
        ]


def run(tmp_path: Path, cells: list[str], lang: str) -> nbformat.NotebookNode:
    return run_in_kernel(tmp_path, cells, lang, allow_errors=True)


def said(cell: nbformat.NotebookNode) -> str:
    parts = []
    for out in cell.outputs:
        parts.append(str(out.get("data", {}).get("text/plain", "")))
        parts.append(str(out.get("text", "")))
        parts.append(str(out.get("evalue", "")))
    return "".join(parts)


def test_review_magics_decide_a_memory_of_a_project_not_in_focus(tmp_path: Path) -> None:
    home, focus, other = tmp_path / "home", tmp_path / "alpha", tmp_path / "销售"
    keep, promote, discard = seed(home, focus, other)
    nb = run(
        tmp_path,
        [
            "%load_ext jupyter_memory",
            f"%memory focus {focus}",
            f"%memory keep {keep}",
            f"%memory promote {promote} --kind info",
            f"%memory discard {discard}",
            f"%memory keep {UNKNOWN}",
        ],
        "en",
    )
    out = [said(c) for c in nb.cells]
    assert f"Kept {keep}" in out[2], out[2]
    assert f"Promoted {promote}" in out[3], out[3]
    assert f"Discarded {discard}" in out[4], out[4]
    assert "UsageError" in str(nb.cells[5].outputs) and UNKNOWN in out[5], out[5]
    with Memory(home=home, project=other) as mem:
        assert mem.get(keep).meta.reviewed is True
        promoted = mem.get(promote)
        assert promoted.meta.reviewed is True
        pid = (promoted.meta.model_extra or {})["promoted_to"]
        assert mem.proposal(pid).project == "销售"
        assert {r["id"] for r in mem.memories() if r["layer"] == "project"} == {promote, keep}


def test_an_ambiguous_id_is_refused_in_the_kernel_naming_it_and_both_projects(
    tmp_path: Path,
) -> None:
    home, focus, other = tmp_path / "home", tmp_path / "alpha", tmp_path / "销售"
    first, _, _ = seed(home, focus, other)
    clone = tmp_path / "销售-clone"
    shutil.copytree(other / ".jupyter-memory" / "memories", clone / ".jupyter-memory" / "memories")
    with Memory(home=home, project=clone):
        pass  # the person registered the second clone
    nb = run(
        tmp_path,
        ["%load_ext jupyter_memory", f"%memory focus {focus}", f"%memory keep {first}"],
        "zh_CN",
    )
    text = said(nb.cells[2])
    assert first in text and "销售-clone" in text and "多个项目" in text, text
    with Memory(home=home, project=other) as mem:
        assert mem.get(first).meta.reviewed is False  # nothing decided
