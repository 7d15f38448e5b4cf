"""Investigation case memory entry files (spec 000): names, fields, parse and render.

Pure. ``render_entry`` and ``parse_entry`` are exact inverses on every entry
this package writes (schema version 2); entries without ``**Schema Version**``
are legacy v1 and are parsed leniently, never rendered back (they are never
overwritten, compressed or migrated). ``INDEX.md`` is in :mod:`.index_format`.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from datetime import date as _date

from ..._i18n import M_
from ...exceptions import ParseError, UnsafeNameError, ValidationError
from ..names import is_slug, reject_unsafe

ENTRY_TYPES = ("discuss", "hesitate", "insight", "observe", "think")
STATUSES = ("已纳入", "存档待查", "已排除")
DEFAULT_STATUS = "存档待查"
# A legacy v1 entry without a readable 后续状态 (no section, none or several
# boxes checked): read with what it has, its state unknown ("—" in INDEX.md).
STATUS_UNKNOWN = ""
SCHEMA_VERSION = 2
STATUS_TEXT = {
    "已纳入": "已纳入（已转化为新的调查方向或假设）",
    "存档待查": "存档待查（当前证据不足，暂缓推进）",
    "已排除": "已排除（已找到合理解释或反证）",
}
EMPTY = "—"
MAX_TITLE = 200
MAX_BODY = 20_000

# Spec 000 "复盘时的角色": memory type → retrospective dimension → question.
RETROSPECTIVE_MAP: tuple[tuple[str, str, str, str], ...] = (
    ("hesitate", "犹豫与不确定性", "推理质量、直觉准确度", "验证——我当初的直觉对吗？"),
    ("discuss", "讨论分支", "覆盖宽度、决策效率", "评估——我们是否过早放弃了某个方向？"),
    ("insight", "灵感", "模式识别能力", "复盘——哪些凭经验的判断得到了验证？"),
    ("observe", "非正式观察", "信息敏感度", "回顾——那些旁支信息是否本应更早纳入主线？"),
    (
        "think",
        "关键决策理由",
        "推理逻辑一致性",
        "检查——当时为何暂缓或修正，该理由后来是否仍成立？",
    ),
)

CASE_ID_RE = re.compile(r"^CASE-\d{4}-\d{3}$")
# The shape of an entry file name; the slug part is checked by ``is_slug``
# (ASCII kebab case as before, or words that keep Chinese and other letters).
ENTRY_NAME_RE = re.compile(
    r"^([0-9]{4}-[0-9]{2}-[0-9]{2})_(discuss|hesitate|insight|observe|think)_([^_/\\.]+)\.md$"
)
EVIDENCE_RE = re.compile(r"^E-\d{1,6}$")
HYPOTHESIS_RE = re.compile(r"^H-\d{1,6}$")
# ``**name**: value`` header lines (ASCII or full-width colon), in entries and INDEX.md.
FIELD_RE = re.compile(r"^\*\*(.+?)\*\*\s*[:：]\s*(.*)$")
_STATUS_RE = re.compile(r"^\s*[-*]\s*\[([ xX])\]\s*(已纳入|存档待查|已排除)")
_LINK_RE = re.compile(r"^- \[([^\[\]\n]+)\]\(([^()\s]+)\)(?: — (.+))?$")
_MD_LINK_RE = re.compile(r"^\[[^\]]*\]\(([^()\s]+)\)$")
# Split on the separator alone and strip each piece: ``\s*[,，、;；]\s*`` was tried
# from every space of a long run of spaces and scanned the rest of it (quadratic).
_LIST_SEPARATOR = re.compile(r"[,，、;；]")
_RESERVED = ("## 记录", "## 后续状态", "## 关联文件")
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def validate_case_id(value: str) -> str:
    reject_unsafe(value, field="case")
    if not CASE_ID_RE.match(value):
        raise UnsafeNameError(
            M_("{value!r} is not a case id like CASE-2026-001", value=value), field="case"
        )
    return value


def validate_entry_type(value: str) -> str:
    if value not in ENTRY_TYPES:
        raise ValidationError(
            M_(
                "{value!r} is not one of the five types ({types})",
                value=value,
                types=", ".join(ENTRY_TYPES),
            ),
            field="type",
        )
    return value


def validate_status(value: str) -> str:
    if value not in STATUSES:
        raise ValidationError(
            M_("{value!r} is not one of {statuses}", value=value, statuses=", ".join(STATUSES)),
            field="status",
        )
    return value


def validate_evidence_ids(values: tuple[str, ...]) -> tuple[str, ...]:
    for ev in values:
        if not isinstance(ev, str) or not EVIDENCE_RE.match(ev):
            raise ValidationError(
                M_("{ev!r} is not an evidence id like E-007", ev=ev), field="evidence"
            )
    return values


def validate_date(value: str, *, field_name: str = "date") -> str:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValidationError(M_("{value!r} is not YYYY-MM-DD", value=value), field=field_name)
    try:
        _date.fromisoformat(value)
    except ValueError as exc:
        raise ValidationError(
            M_("{value!r} is not a real date", value=value), field=field_name
        ) from exc
    return value


def _single_line(value: str, field_name: str, *, max_len: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(M_("must not be empty"), field=field_name)
    if "\n" in value or "\r" in value or _CTRL.search(value):
        raise ValidationError(M_("must be one line without control characters"), field=field_name)
    if value != value.strip():
        raise ValidationError(M_("must not start or end with spaces"), field=field_name)
    if len(value) > max_len:
        raise ValidationError(
            M_("longer than {max_len} characters", max_len=max_len), field=field_name
        )
    return value


def normalize_body(text: str) -> str:
    """The canonical body: ``\\n`` line ends, no trailing spaces, no outer blank lines."""
    lines = [ln.rstrip() for ln in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


def entry_file_name(date: str, entry_type: str, slug: str) -> str:
    return f"{date}_{entry_type}_{slug}.md"


def parse_entry_name(name: str) -> tuple[str, str, str] | None:
    """``(date, type, slug)`` of a name that follows the naming rule, else ``None``.

    Both slug forms are entries: ``supplier-overlap`` / ``zh-94ba0cadf2``
    (written before) and ``退款不计入收入`` (now), in NFC or NFD (HFS+ lists
    names decomposed)."""
    m = ENTRY_NAME_RE.match(name)
    return (m.group(1), m.group(2), m.group(3)) if m and is_slug(m.group(3)) else None


@dataclass(frozen=True)
class FileLink:
    """One line of ``## 关联文件``: ``- [name](path) — note``."""

    name: str
    path: str
    note: str = ""

    def __post_init__(self) -> None:
        _single_line(self.name, "files.name", max_len=200)
        if "[" in self.name or "]" in self.name:
            raise ValidationError(M_("must not contain '[' or ']'"), field="files.name")
        _single_line(self.path, "files.path", max_len=500)
        if re.search(r"[()\s]", self.path):
            raise ValidationError(M_("must not contain spaces or parentheses"), field="files.path")
        if self.note:
            _single_line(self.note, "files.note", max_len=300)

    def render(self) -> str:
        return f"- [{self.name}]({self.path})" + (f" — {self.note}" if self.note else "")


@dataclass(frozen=True)
class CaseEntry:
    """One case memory entry. ``schema_version`` ``None`` or 1 means legacy v1."""

    title: str
    type: str
    date: str
    body: str
    status: str = DEFAULT_STATUS
    evidence: tuple[str, ...] = ()
    hypotheses: tuple[str, ...] = ()
    related: str | None = None
    files: tuple[FileLink, ...] = field(default_factory=tuple)
    schema_version: int | None = SCHEMA_VERSION

    @property
    def legacy(self) -> bool:
        return self.schema_version != SCHEMA_VERSION


def check_new_entry(entry: CaseEntry) -> CaseEntry:
    """Everything a v2 entry must satisfy so that render and parse are inverses."""
    _single_line(entry.title, "title", max_len=MAX_TITLE)
    validate_entry_type(entry.type)
    validate_date(entry.date)
    validate_status(entry.status)
    if entry.body != normalize_body(entry.body) or not entry.body:
        raise ValidationError(
            M_("must be non-empty normalized text (see normalize_body)"), field="body"
        )
    if len(entry.body) > MAX_BODY:
        raise ValidationError(M_("longer than {limit} characters", limit=MAX_BODY), field="body")
    if _CTRL.search(entry.body.replace("\t", " ")):
        raise ValidationError(M_("contains control characters"), field="body")
    for line in entry.body.split("\n"):
        if line.strip() in _RESERVED:
            raise ValidationError(
                M_("must not contain the section heading {line!r}", line=line), field="body"
            )
    validate_evidence_ids(entry.evidence)
    for hyp in entry.hypotheses:
        if not HYPOTHESIS_RE.match(hyp):
            raise ValidationError(
                M_("{hyp!r} is not a hypothesis id like H-2", hyp=hyp), field="hypotheses"
            )
    if len(set(entry.evidence)) != len(entry.evidence):
        raise ValidationError(M_("evidence ids repeat"), field="evidence")
    if len(set(entry.hypotheses)) != len(entry.hypotheses):
        raise ValidationError(M_("hypothesis ids repeat"), field="hypotheses")
    if entry.related is not None and parse_entry_name(entry.related) is None:
        raise ValidationError(
            M_("{related!r} is not a case memory file name", related=entry.related), field="related"
        )
    if entry.schema_version != SCHEMA_VERSION:
        raise ValidationError(M_("new entries use schema version 2"), field="schema_version")
    return entry


def join_ids(values: tuple[str, ...]) -> str:
    """Ids as one header or table cell: ``E-1, E-2``, or ``—`` when there are none."""
    return ", ".join(values) if values else EMPTY


def render_entry(entry: CaseEntry) -> str:
    """The v2 file text of ``entry`` (exactly spec 000's structure)."""
    check_new_entry(entry)
    status_lines = [f"- [{'x' if s == entry.status else ' '}] {STATUS_TEXT[s]}" for s in STATUSES]
    parts = [
        f"# {entry.title}",
        "",
        f"**Schema Version**: {SCHEMA_VERSION}",
        f"**类型**: {entry.type}",
        f"**日期**: {entry.date}",
        f"**关联证据**: {join_ids(entry.evidence)}",
        f"**关联假设**: {join_ids(entry.hypotheses)}",
        f"**关联 Memory**: {entry.related or EMPTY}",
        "",
        "## 记录",
        "",
        entry.body,
        "",
        "## 后续状态",
        "",
        *status_lines,
        "",
        "## 关联文件",
        "",
        *(f.render() for f in entry.files),
    ]
    return "\n".join(parts).rstrip("\n") + "\n"


def split_ids(value: str) -> tuple[str, ...]:
    """The inverse of :func:`join_ids`, lenient on separators (``,，、;；``) and "none"."""
    value = value.strip()
    if value in ("", EMPTY, "-", "无", "none", "None"):
        return ()
    # ``value`` is stripped, so stripping every piece removes exactly the spaces
    # around the separators.
    return tuple(v for v in (p.strip() for p in _LIST_SEPARATOR.split(value)) if v)


def _related(value: str) -> str | None:
    value = value.strip()
    if value in ("", EMPTY, "-", "无"):
        return None
    m = _MD_LINK_RE.match(value)
    value = m.group(1) if m else value
    return value[2:] if value.startswith("./") else value


def _find(lines: list[str], heading: str, start: int) -> int:
    for i in range(start, len(lines)):
        if lines[i].strip() == heading:
            return i
    return -1


def _status(lines: list[str], path: str) -> str:
    checked = [m.group(2) for ln in lines if (m := _STATUS_RE.match(ln)) and m.group(1) != " "]
    if len(checked) != 1:
        found = ", ".join(checked) if checked else "none"
        raise ParseError(
            M_(
                "后续状态 must have exactly one checked state of {statuses} (checked: {found})",
                statuses="/".join(STATUSES),
                found=found,
            ),
            path=path,
        )
    return checked[0]


def parse_entry(text: str, *, path: str = "<entry>") -> CaseEntry:
    """Parse an entry file (v2 strictly enough to round-trip; v1 leniently).

    A legacy v1 entry may lack any section (记录, 后续状态, 关联文件): it is read
    with what it has, its state :data:`STATUS_UNKNOWN` when 后续状态 is missing
    or does not check exactly one state. Only its title line is required."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None or not lines[first].startswith("# "):
        raise ParseError(M_("missing the title line '# <title>'"), path=path, line=(first or 0) + 1)
    title = lines[first][2:].strip()
    fields: dict[str, str] = {}
    i = first + 1
    while i < len(lines) and not lines[i].startswith("## "):
        line = lines[i].strip()
        m = FIELD_RE.match(line) if line.startswith("**") else None
        if m:
            fields[m.group(1).strip()] = m.group(2).strip()
        i += 1
    header_end = i
    version_text = fields.get("Schema Version")
    version: int | None = None
    if version_text is not None:
        if not version_text.isdigit() or int(version_text) not in (1, SCHEMA_VERSION):
            raise ParseError(
                M_("unsupported Schema Version {version!r}", version=version_text), path=path
            )
        version = int(version_text)
    status_at = _find(lines, "## 后续状态", header_end)
    legacy = version != SCHEMA_VERSION
    if status_at < 0 and not legacy:
        raise ParseError(M_("missing the '## 后续状态' section"), path=path)
    files_at = _find(lines, "## 关联文件", status_at + 1 if status_at >= 0 else header_end)
    record_at = _find(lines, "## 记录", header_end)
    if not legacy:
        status = _status(lines[status_at + 1 : files_at if files_at >= 0 else len(lines)], path)
        if record_at < 0 or record_at > status_at or files_at < 0:
            raise ParseError(M_("a v2 entry needs ## 记录, ## 后续状态 and ## 关联文件"), path=path)
        body_lines = lines[record_at + 1 : status_at]
    else:  # legacy: every section before the status block is reasoning material
        status = STATUS_UNKNOWN
        if status_at >= 0:
            end = files_at if files_at >= 0 else len(lines)
            with contextlib.suppress(ParseError):  # none or several checked: unknown
                status = _status(lines[status_at + 1 : end], path)
        ends = [at for at in (status_at, files_at) if at >= 0]
        stop = min(ends) if ends else len(lines)
        # text between the header fields and the first section is record too
        loose = [ln for ln in lines[first + 1 : header_end] if not FIELD_RE.match(ln.strip())]
        body_lines = [ln for ln in loose + lines[header_end:stop] if ln.strip() != "## 记录"]
    files: list[FileLink] = []
    for ln in lines[files_at + 1 :] if files_at >= 0 else []:
        m = _LINK_RE.match(ln.strip())
        if m:
            try:
                files.append(FileLink(m.group(1), m.group(2), m.group(3) or ""))
            except ValidationError as exc:
                if legacy:  # read with what it has: a link we cannot represent is left out
                    continue
                raise ParseError(M_("关联文件: {exc}", exc=exc), path=path) from exc
    entry_type = fields.get("类型", "").strip()
    if entry_type and entry_type not in ENTRY_TYPES:
        raise ParseError(
            M_(
                "类型 {entry_type!r} is not one of {types}",
                entry_type=entry_type,
                types=", ".join(ENTRY_TYPES),
            ),
            path=path,
        )
    entry_date = fields.get("日期", "").strip()
    if version == SCHEMA_VERSION:
        for key in ("类型", "日期"):
            if not fields.get(key):
                raise ParseError(M_("missing **{key}**", key=key), path=path)
    if entry_date:
        try:
            validate_date(entry_date, field_name="日期")
        except ValidationError as exc:
            raise ParseError(str(exc), path=path) from exc
    return CaseEntry(
        title=title,
        type=entry_type,
        date=entry_date,
        body=normalize_body("\n".join(body_lines)),
        status=status,
        evidence=split_ids(fields.get("关联证据", "")),
        hypotheses=split_ids(fields.get("关联假设", "")),
        related=_related(fields.get("关联 Memory", "")),
        files=tuple(files),
        schema_version=version,
    )


# ``[^\S\n]*`` (spaces of this line), not ``\s*``: from every line start of a run of
# blank lines ``\s*`` read all the rest of the run (quadratic in it); a match now starts
# on the keyword's own line, and what is found (or counted) is the same.
_CHECKED_RE = re.compile(r"^[^\S\n]*[-*]\s*\[[xX]\]\s*(已纳入|存档待查|已排除)", re.MULTILINE)


def peek_entry(text: str) -> tuple[str, str, bool]:
    """``(title, status or "", legacy)`` without a full parse (search hits)."""
    title = next((ln[2:].strip() for ln in text.split("\n", 8) if ln.startswith("# ")), "")
    checked = _CHECKED_RE.findall(text)
    return title, checked[0] if len(checked) == 1 else "", "**Schema Version**: 2" not in text
