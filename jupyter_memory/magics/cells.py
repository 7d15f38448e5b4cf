"""What the capture hook hands on: a captured cell, and a repeated error made a gotcha.

Shared by the capture hook (``capture.py``), the suggestion worker
(``worker.py``) and the digest feed, so none of them imports another for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CapturedCell:
    text: str
    cell_id: str
    execution_count: int | None

    @property
    def label(self) -> str:
        return f"cell {self.execution_count}" if self.execution_count else f"cell {self.cell_id}"

    def as_message(self, notebook_path: str | None) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "code", "text": self.text, "cell_id": self.cell_id}
        if notebook_path:
            msg["notebook_path"] = notebook_path
        return msg


@dataclass(frozen=True)
class Gotcha:
    """One exception signature seen ``GOTCHA_REPEATS`` times (capture.py).

    ``line`` is the failing line of the person's cell, None when no line of the
    cell is in the traceback (the whole cell is quoted then).
    """

    signature: str
    line: str | None
    cell: CapturedCell
