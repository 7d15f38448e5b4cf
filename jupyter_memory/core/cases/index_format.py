"""A case's ``INDEX.md`` (spec 000): one table row per entry file, parse and render.

Pure. The index is derived from the entry files (the files are the
authority): :func:`entry_row` is the row an entry owns, :func:`render_index`
the text the service writes, :func:`parse_index` the strict reader that names
a broken line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..._i18n import M_
from ...exceptions import ParseError, ValidationError
from ..visible import visible
from .entry_format import (
    EMPTY,
    FIELD_RE,
    STATUS_UNKNOWN,
    CaseEntry,
    join_ids,
    split_ids,
    validate_date,
    validate_entry_type,
    validate_status,
)

INDEX_NAME = "INDEX.md"
SNAPSHOT_NAME = "INDEX.pre-archive.md"

INDEX_HEADER = "| 日期 | 类型 | 摘要 | 关联证据 | 状态 |"
INDEX_RULE = "|------|------|------|---------|------|"
_INDEX_TITLE = re.compile(r"^# Case Memory Index — (\S+)\s*$")


@dataclass(frozen=True)
class CaseIndexRow:
    date: str
    type: str
    summary: str
    evidence: tuple[str, ...]
    status: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.date, self.type, self.summary)


@dataclass(frozen=True)
class CaseIndex:
    case_id: str
    name: str
    period: str
    rows: tuple[CaseIndexRow, ...]


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|")


def _split_row(line: str) -> list[str] | None:
    s = line.strip()
    if not (s.startswith("|") and s.endswith("|") and len(s) >= 2):
        return None
    cells, cur, i, body = [], [], 0, s[1:-1]
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            cur.append(body[i + 1])
            i += 2
            continue
        if ch == "|":
            cells.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    cells.append("".join(cur).strip())
    return cells


def entry_row(entry: CaseEntry) -> CaseIndexRow:
    # A person reads INDEX.md: its summary shows the title's control and bidi
    # characters (core/visible.py), and a check compares the row as shown.
    summary = visible(entry.title, lines=False)
    return CaseIndexRow(entry.date, entry.type, summary, entry.evidence, entry.status)


def period_of(rows: tuple[CaseIndexRow, ...] | list[CaseIndexRow]) -> str:
    dates = sorted(r.date for r in rows if r.date)
    return f"{dates[0]} ~ {dates[-1]}" if dates else EMPTY


def render_index(index: CaseIndex) -> str:
    lines = [
        f"# Case Memory Index — {index.case_id}",
        "",
        f"**案件**: {index.name}",
        f"**时间段**: {index.period}",
        "",
        INDEX_HEADER,
        INDEX_RULE,
    ]
    for r in index.rows:
        status = r.status or EMPTY  # a legacy entry whose state is unknown
        cells = (r.date, r.type, _cell(r.summary), join_ids(r.evidence), status)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def parse_index(text: str, *, path: str = INDEX_NAME) -> CaseIndex:
    """Strict: a broken table row is a :class:`ParseError` naming its line."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    m = _INDEX_TITLE.match(lines[0]) if lines else None
    if not m:
        raise ParseError(
            M_("first line must be '# Case Memory Index — CASE-YYYY-NNN'"), path=path, line=1
        )
    case_id = m.group(1)
    fields: dict[str, str] = {}
    table_at = -1
    for i, ln in enumerate(lines[1:], start=1):
        if ln.strip().startswith("|"):
            table_at = i
            break
        fm = FIELD_RE.match(ln.strip())
        if fm:
            fields[fm.group(1).strip()] = fm.group(2).strip()
    if table_at < 0:
        raise ParseError(M_("no table '| 日期 | 类型 | 摘要 | 关联证据 | 状态 |'"), path=path)
    if _split_row(lines[table_at]) != ["日期", "类型", "摘要", "关联证据", "状态"]:
        raise ParseError(
            M_("table header must be {header}", header=INDEX_HEADER), path=path, line=table_at + 1
        )
    rule = _split_row(lines[table_at + 1]) if table_at + 1 < len(lines) else None
    if not rule or len(rule) != 5 or not all(re.fullmatch(r":?-{3,}:?", c) for c in rule):
        raise ParseError(M_("missing the table's |---| rule line"), path=path, line=table_at + 2)
    rows: list[CaseIndexRow] = []
    ended = False
    for n, ln in enumerate(lines[table_at + 2 :], start=table_at + 3):
        if not ln.strip():
            ended = True
            continue
        if ended:
            raise ParseError(
                M_("broken table row: {row!r}", row=ln.strip()[:80]), path=path, line=n
            )
        rows.append(_row(ln, path, n))
    return CaseIndex(case_id, fields.get("案件", ""), fields.get("时间段", EMPTY), tuple(rows))


def _row(line: str, path: str, n: int) -> CaseIndexRow:
    cells = _split_row(line)
    if cells is None or len(cells) != 5:
        raise ParseError(M_("broken table row: {row!r}", row=line.strip()[:80]), path=path, line=n)
    status = STATUS_UNKNOWN if cells[4] == EMPTY else cells[4]
    try:
        validate_date(cells[0], field_name="日期")
        validate_entry_type(cells[1])
        if status != STATUS_UNKNOWN:
            validate_status(status)
    except ValidationError as exc:
        raise ParseError(M_("broken table row: {exc}", exc=exc), path=path, line=n) from exc
    if not cells[2]:
        raise ParseError(M_("broken table row: empty 摘要"), path=path, line=n)
    return CaseIndexRow(cells[0], cells[1], cells[2], split_ids(cells[3]), status)


def salvage_rows(text: str) -> tuple[CaseIndexRow, ...]:
    """Every well-formed entry row of an INDEX.md, even one whose table is broken
    elsewhere: the rows of entries that cannot be read are kept from here as they are."""
    rows = []
    for n, line in enumerate(text.lstrip("\ufeff").replace("\r\n", "\n").split("\n"), 1):
        try:
            rows.append(_row(line, INDEX_NAME, n))
        except ParseError:
            continue
    return tuple(dict.fromkeys(rows))


def parse_index_header(text: str) -> tuple[str | None, str | None]:
    """Best effort ``(case_id, name)`` of an INDEX.md whose table may be broken."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    m = _INDEX_TITLE.match(lines[0]) if lines else None
    name = None
    for ln in lines[1:]:
        if ln.strip().startswith("|"):
            break
        fm = FIELD_RE.match(ln.strip())
        if fm and fm.group(1).strip() == "案件" and fm.group(2).strip():
            name = fm.group(2).strip()
    return (m.group(1) if m else None), name
