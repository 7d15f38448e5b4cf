"""Compare an INDEX.md with the index the entry files imply (spec 000 repair rules).

Every difference found here is repairable from the files (the files are the
authority); only problems found while reading the files themselves (an
unparseable entry, two files owning one row) block writing.
"""

from __future__ import annotations

from collections import Counter

from ..._i18n import M_
from ...core.cases.index_format import CaseIndex, CaseIndexRow, parse_index, render_index
from ...exceptions import ParseError
from .results import CaseProblem


def _row_text(row: CaseIndexRow) -> str:
    ev = ", ".join(row.evidence) or "—"
    return f"{row.date} | {row.type} | {row.summary} | {ev} | {row.status or '—'}"


def index_problems(
    expected: CaseIndex,
    text: str | None,
    files_by_key: dict[tuple[str, str, str], str],
    index_rel: str,
) -> list[CaseProblem]:
    if text is None:
        n = len(expected.rows)
        said = M_("INDEX.md is missing ({n} entries)", n=n)
        return [CaseProblem("index-missing", index_rel, said)]
    try:
        actual = parse_index(text, path=index_rel)
    except ParseError as exc:
        return [CaseProblem("index-unparseable", index_rel, exc.reason, line=exc.line)]
    problems: list[CaseProblem] = []
    if actual.case_id != expected.case_id:
        problems.append(
            CaseProblem(
                "index-header",
                index_rel,
                M_(
                    "INDEX.md names {named}, the folder is {folder}",
                    named=actual.case_id,
                    folder=expected.case_id,
                ),
                line=1,
            )
        )
    # Keys may repeat when two entry files own one row (reported as ambiguous
    # by the keeper; both rows are what the files say), so compare counts.
    want: dict[tuple[str, str, str], list[CaseIndexRow]] = {}
    for r in expected.rows:
        want.setdefault(r.key, []).append(r)
    have = Counter(r.key for r in actual.rows)
    for key, count in have.items():
        if count > len(want.get(key, ())) > 0 or (count > 1 and key not in want):
            problems.append(
                CaseProblem(
                    "index-duplicate-row",
                    index_rel,
                    M_("row {row} x{count}", row=" | ".join(key), count=count),
                )
            )
    for row in actual.rows:
        if row.key not in want:
            problems.append(
                CaseProblem(
                    "orphan-row",
                    index_rel,
                    M_("row with no entry file: {row}", row=_row_text(row)),
                )
            )
        elif row not in want[row.key]:
            w = want[row.key][0]
            problems.append(
                CaseProblem(
                    "row-mismatch",
                    files_by_key.get(row.key, index_rel),
                    M_(
                        "INDEX.md says {status} / {evidence}, the file says {file_status} / "
                        "{file_evidence}",
                        status=row.status or "—",
                        evidence=", ".join(row.evidence) or "—",
                        file_status=w.status or "—",
                        file_evidence=", ".join(w.evidence) or "—",
                    ),
                )
            )
    for key, rows in want.items():
        if have.get(key, 0) < len(rows):
            problems.append(
                CaseProblem(
                    "missing-row",
                    files_by_key.get(key, index_rel),
                    M_("no INDEX.md row for {row}", row=_row_text(rows[0])),
                )
            )
    if not problems and render_index(expected) != text.replace("\r\n", "\n"):
        problems.append(
            CaseProblem(
                "index-stale",
                index_rel,
                M_("header, period or row order differ from the files (rebuild rewrites it)"),
            )
        )
    return problems
