"""Which notebook text an extraction round reads (spec 002 §4.1 applied to notebooks).

The person's text in a notebook is what they wrote into cells: the executed
code cells (captured by the kernel hook) and the markdown cells right above
them in the saved notebook — the prose that explains the code just run.
Outputs are never part of it. The most recent ``window`` pieces are used.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from ...store.knowledge.notebook_cells import read_cells


class ExecutedCell(Protocol):
    # Read-only: the magics' captured cells are frozen dataclasses.
    @property
    def text(self) -> str: ...

    @property
    def cell_id(self) -> str: ...

    def as_message(self, notebook_path: str | None) -> dict[str, Any]: ...


def markdown_above(cells: Sequence[Any], cell_id: str, source: str = "") -> list[Any]:
    """The contiguous markdown cells directly above the executed cell.

    The cell is found by id; front ends that send no cell id (nbclient, the
    terminal) are matched by their source text instead.
    """
    index = next((i for i, c in enumerate(cells) if c.cell_id == cell_id), None)
    if index is None and source.strip():
        wanted = source.strip()
        index = next(
            (
                i
                for i, c in enumerate(cells)
                if c.cell_type == "code" and c.source.strip() == wanted
            ),
            None,
        )
    out: list[Any] = []
    if index is None:
        return out
    i = index - 1
    while i >= 0 and cells[i].cell_type == "markdown":
        out.insert(0, cells[i])
        i -= 1
    return out


def round_messages(
    executed: Sequence[ExecutedCell], notebook: Path | None, window: int
) -> list[dict[str, Any]]:
    """Messages for ``Memory.extract``: recent code cells plus markdown explaining them."""
    nb_path = str(notebook) if notebook else None
    saved = read_cells(notebook) if notebook is not None else []
    messages: list[dict[str, Any]] = []
    seen: set[str] = set()
    for cell in executed:
        for md in markdown_above(saved, cell.cell_id, cell.text):
            if md.cell_id not in seen and md.source.strip():
                seen.add(md.cell_id)
                messages.append(
                    {
                        "role": "markdown",
                        "text": md.source,
                        "cell_id": md.cell_id,
                        "notebook_path": nb_path,
                    }
                )
        messages.append(cell.as_message(nb_path))
    return messages[-window:] if window > 0 else []
