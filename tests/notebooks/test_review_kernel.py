"""In a real kernel run by nbclient (issue 15): ``%memories --review`` emits one output of
our review MIME type with a readable fallback naming the magics that decide each card, no
widget; and ``%memory keep|discard|promote`` in later cells do what the fallback says."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from jupyter_memory import Memory
from tests.support.kernels import execute, kernel_env, new_notebook

pytestmark = pytest.mark.slow

REVIEW_MIME = "application/vnd.jupyter-memory.review+json"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def seed(home: Path) -> list[str]:
    with Memory(home=home) as mem:
        ids = [
            mem.remember(
                text,
                source="session-digest",
                reviewed=False,
                evidence=[{"quote": quote, "source": "cell"}],
            ).id
            for text, quote in [
                ("Refunds arrive two days late", "refunds arrive 2 days late"),
                ("收入按预订日确认", "我们决定收入按预订日确认，因为财务按它结账"),
                ("<b>Orders</b> join customers on customer_id", "join on customer_id"),
            ]
        ]
    return ids


def run(
    tmp_path: Path, cells: list[str], lang: str = "en", *, allow_errors: bool = False
) -> nbformat.NotebookNode:
    """Run ``cells`` in a real kernel with the home ``tmp_path/home`` in ``lang``."""
    env = kernel_env(JUPYTER_MEMORY_HOME=str(tmp_path / "home"), JUPYTER_MEMORY_LANG=lang)
    return execute(new_notebook(cells), tmp_path, env, allow_errors=allow_errors)


def text_of(cell) -> str:
    return "".join(str(o.get("data", {}).get("text/plain", "")) for o in cell.outputs)


def test_review_emits_our_mime_bundle_with_a_fallback_and_the_magics_decide(tmp_path: Path):
    keep, promote, discard = seed(tmp_path / "home")
    nb = run(
        tmp_path,
        [
            "%load_ext jupyter_memory",
            "%memories --review",
            f"%memory keep {keep}",
            f"%memory promote {promote} --kind info",
            f"%memory discard {discard}",
            "%memories --review",
        ],
    )
    (output,) = nb.cells[1].outputs
    data = output["data"]
    assert output["output_type"] == "execute_result"
    assert REVIEW_MIME in data and WIDGET_MIME not in data
    cards = data[REVIEW_MIME]["cards"]
    assert data[REVIEW_MIME]["version"] == 1
    assert {c["id"] for c in cards} == {keep, promote, discard}
    assert {c["state"] for c in cards} == {"unreviewed"}
    assert all(len(c["home"]) == 16 for c in cards)
    # The fallback names each card's decision where our extension is absent.
    for mid in (keep, promote, discard):
        assert f"%memory keep {mid}" in data["text/plain"]
        assert f"%memory promote {mid} --kind rule|info" in data["text/html"]
    assert "“我们决定收入按预订日确认，因为财务按它结账”" in data["text/plain"]
    assert "<b>Orders</b>" not in data["text/html"]  # stored text is escaped
    assert "&lt;b&gt;Orders&lt;/b&gt;" in data["text/html"]

    assert text_of(nb.cells[2]).startswith(f"Kept {keep}")
    assert "waits in the queue" in text_of(nb.cells[3])
    assert text_of(nb.cells[4]).startswith(f"Discarded {discard}")
    assert text_of(nb.cells[5]).startswith("Nothing to review")
    with Memory(home=tmp_path / "home") as mem:
        assert mem.get(keep).meta.reviewed is True
        (proposal,) = mem.queue()
        assert proposal.kind == "info" and "预订日" in proposal.evidence_quote
        assert [s.state for s in mem.hooks.review_states([keep, promote, discard]).states] == [
            "kept",
            "promoted",
        ]
