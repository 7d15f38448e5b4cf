"""Case memory as pandas DataFrames for retrospectives (pandas imported lazily).

Columns: case, file, title, type, date, status, evidence, hypotheses, related,
legacy, path, dimension, question — ``dimension`` and ``question`` come from
spec 000's retrospective mapping (type → 复盘维度 → 问题).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..core.cases.entry_format import RETROSPECTIVE_MAP

if TYPE_CHECKING:
    from ..service.cases.memory import CaseMemory
    from ..service.cases.results import CaseRecord

COLUMNS = [
    "case",
    "file",
    "title",
    "type",
    "date",
    "status",
    "evidence",
    "hypotheses",
    "related",
    "legacy",
    "path",
    "dimension",
    "question",
]


def retrospective_frame() -> Any:
    """Spec 000's mapping: type, 记忆类型, 复盘维度, 价值 (the question to ask)."""
    import pandas as pd

    return pd.DataFrame(RETROSPECTIVE_MAP, columns=["type", "memory_type", "dimension", "question"])


def _rows(records: list[CaseRecord]) -> list[dict[str, Any]]:
    dims = {t: (dim, q) for t, _, dim, q in RETROSPECTIVE_MAP}
    rows = []
    for r in records:
        e = r.entry
        dim, question = dims.get(e.type, ("", ""))
        rows.append(
            {
                "case": r.case_id,
                "file": r.name,
                "title": e.title,
                "type": e.type,
                "date": e.date,
                "status": e.status,
                "evidence": list(e.evidence),
                "hypotheses": list(e.hypotheses),
                "related": e.related,
                "legacy": e.legacy,
                "path": str(r.path),
                "dimension": dim,
                "question": question,
            }
        )
    return rows


def _frame(rows: list[dict[str, Any]]) -> Any:
    import pandas as pd

    df = pd.DataFrame(rows, columns=COLUMNS)
    df["date"] = pd.to_datetime(df["date"], errors="coerce")
    df["legacy"] = df["legacy"].astype(bool)
    return df


def case_frame(case: CaseMemory | str | os.PathLike[str], case_id: str | None = None) -> Any:
    """One case's entries: ``case_frame(cm)`` or ``case_frame(workspace, "CASE-2026-001")``."""
    from ..service.cases.memory import CaseMemory

    cm = case if isinstance(case, CaseMemory) else CaseMemory(case, case_id or "")
    return _frame(_rows(cm.entries()))


def cases_frame(workspace: str | os.PathLike[str]) -> Any:
    """Every case's entries in one frame (the cross-case retrospective)."""
    from ..service.cases.memory import CaseMemory, list_cases

    rows: list[dict[str, Any]] = []
    for case_id in list_cases(workspace):
        rows.extend(_rows(CaseMemory(workspace, case_id).entries()))
    return _frame(rows)
