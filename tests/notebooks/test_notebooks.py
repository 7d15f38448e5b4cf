"""Both notebooks executed with nbclient in a real ipykernel, asserting on their outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from jupyter_memory.cli.notebook_demo import find_notebook, run_notebook

pytestmark = pytest.mark.slow


def outputs(nb) -> list[tuple[str, str]]:
    """(cell source, all its text output) for every code cell; errors fail loudly."""
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        texts: list[str] = []
        previous = None
        for o in cell.outputs:
            assert o.output_type != "error", f"{cell.source!r} raised {o.ename}: {o.evalue}"
            if o.output_type == "stream":
                # The kernel may flush one printed line in several stream messages.
                if previous == "stream":
                    texts[-1] += o.text
                else:
                    texts.append(o.text)
            elif "data" in o:
                texts.append(str(o.data.get("text/plain", "")))
                texts.append(str(o.data.get("text/html", "")))
            previous = o.output_type
        out.append((cell.source, "\n".join(texts)))
    return out


def cell_output(cells, startswith: str, nth: int = 0) -> str:
    matches = [text for src, text in cells if src.startswith(startswith)]
    return matches[nth]


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory) -> tuple[Path, list[tuple[str, str]]]:
    out = tmp_path_factory.mktemp("quickstart")
    executed = run_notebook(find_notebook("quickstart.ipynb"), out)
    return out, outputs(nbformat.read(str(executed), as_version=4))


def card_id(quickstart) -> str:
    out, _ = quickstart
    executed = nbformat.read(str(out / "quickstart.executed.ipynb"), as_version=4)
    for cell in executed.cells:
        if cell.source.startswith("cards = %memory queue"):
            data = cell.outputs[0]["data"]
            assert "application/vnd.jupyter.widget-view+json" not in data
            return str(data["application/vnd.jupyter-memory.proposal+json"]["cards"][0]["id"])
    raise AssertionError("no %memory queue cell")


def test_quickstart_card_apply_and_context(quickstart):
    out, cells = quickstart
    card = cell_output(cells, "cards = %memory queue")
    assert "Revenue excludes refunds issued in the same month" in card
    assert "“note: revenue excludes refunds issued in the same month” — cell 5" in card
    assert "Saved to Project · sales-q3" in cell_output(cells, "pid = cards.ids[0]")
    again = cell_output(cells, "%memory dismiss $pid")
    assert "Already saved elsewhere (Project · sales-q3); nothing written." in again
    # The card's own output: our MIME type with a fallback naming the magic, no widget.
    assert f"%memory apply {card_id(quickstart)} --to user" in card
    context = cell_output(cells, "%memory context")
    assert "Revenue excludes refunds issued in the same month" in context
    assert 'project="sales-q3"' in context
    knowledge = out / "work" / "sales-q3" / ".jupyter-memory" / "knowledge.md"
    assert "- Revenue excludes refunds issued in the same month" in knowledge.read_text("utf-8")


def test_quickstart_remember_recall_forget(quickstart):
    _, cells = quickstart
    assert "Remembered" in cell_output(cells, "%remember Always run")
    assert "Always run the tests before pushing a notebook" in cell_output(cells, "%recall tests")
    assert "收入口径不含当月退款" in cell_output(cells, "%recall 退款", 0)
    forgot = cell_output(cells, "hits = %recall")
    assert "收入口径不含当月退款" in forgot and "Forgot " in forgot
    assert "收入口径不含当月退款" not in cell_output(cells, "%recall 退款", 1)  # forgotten
    stats = cell_output(cells, "%memories --stats")
    words = " ".join(stats.split())  # the table's column widths follow its longest label
    assert "total 1" in words and "index (project) 1 entries, ok" in words


def test_retrospective_answers_with_plots(tmp_path):
    executed = run_notebook(find_notebook("retrospective.ipynb"), tmp_path)
    nb = nbformat.read(str(executed), as_version=4)
    cells = outputs(nb)
    assert "datetime64" in cell_output(cells, "import warnings")
    by_source = cell_output(cells, "weekly = ")
    assert "chat-extraction" in by_source and "gotcha" in by_source
    rate = cell_output(cells, "decided = ")
    assert "apply rate overall: 0." in rate and "median minutes to a decision:" in rate
    assert "project  info" in cell_output(cells, "applies = ")
    assert "access_count" in cell_output(cells, "top = ")
    assert "durable" in cell_output(cells, "tiers = ")
    images = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "image/png" in o.get("data", {})
    ]
    assert len(images) == 5
    assert not any(
        "Warning" in o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs
    )
