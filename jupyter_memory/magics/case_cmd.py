"""``%case`` / ``%%case note``: investigation case memory (spec 000) from a notebook.

``%case open CASE-2026-001 [--workspace DIR]`` picks the case; ``note``,
``list``, ``index``, ``status`` (with ``ENTRY STATE``: set an entry's state),
``repair``, ``archive``, ``search`` and ``policy`` work on it. The
write policy decides what is printed: under ``silent`` a successful note
prints nothing; a failure is always raised (docs/design.md invariant 2).
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from .._i18n import N_
from .args import argument, joined, magic_arguments, parse
from .render import TableResult, TextBlock

ACTIONS = (
    "open",
    "note",
    "list",
    "index",
    "status",
    "repair",
    "archive",
    "uncompress",
    "search",
    "policy",
)


class CaseEntries(TableResult):
    columns = ("file", "title", "type", "date", "status", "evidence", "hypotheses")
    category_columns = ("type", "status")
    time_columns = ()
    empty_message = N_("No case memory entries matched.")


class CaseSearchResult(TableResult):
    columns = ("case", "name", "title", "type", "date", "status", "snippet")
    category_columns = ("type", "status")
    time_columns = ()
    empty_message = N_("No case memory entries matched.")


@magic_arguments()
@argument("action", help="open, note, list, index, status, repair, archive, search or policy")
@argument(
    "words",
    nargs="*",
    help="open: CASE-ID · note: the body · status: ENTRY STATE · search: the text",
)
@argument("--workspace", help="folder holding cases/ (default: the kernel's folder)")
@argument("--name", help="open: the case's display name")
@argument("--type", help="note/list/search: discuss, hesitate, insight, observe or think")
@argument("--title", help="note: the entry title")
@argument("--evidence", action="append", help="note: an evidence id (repeatable) · list: filter")
@argument("--hypothesis", action="append", help="note: a hypothesis id (repeatable) · list: filter")
@argument("--related", help="note: a related entry")
@argument("--file", action="append", help="note: a file the entry refers to (repeatable)")
@argument("--status", help="note: 已纳入, 存档待查 or 已排除")
@argument("--final", action="append", help="archive: ENTRY=STATE (repeatable)")
@argument("--delete", action="append", help="archive: an entry confirmed worthless (repeatable)")
@argument(
    "--compress",
    action="store_true",
    help="archive: compress 已排除 entries into one-line summaries (undo: %%case uncompress)",
)
@argument("--limit", type=int, help="search: at most this many hits")
def case(self: Any, line: str, cell: str | None = None) -> Any:
    """Investigation case memory. Examples::

    %case open CASE-2026-001
    %case note --type insight --title "Refund spike is one merchant" Seen in three reports.
    %%case note --type hesitate --title "Unclear chargeback window"
    The policy says 60 days, the data shows 90.
    %case status
    %case status 2026-06-03_hesitate_overseas-payment.md 已纳入
    %case list --type hesitate --evidence E-009 --hypothesis H-2
    %case repair
    %case archive --final <file>.md=已排除 --compress
    %case uncompress
    %case search 退款
    """
    args = parse(case, line)
    if args.action not in ACTIONS:
        raise UsageError(f"%case: unknown action {args.action!r}; use one of {', '.join(ACTIONS)}")
    if cell is not None and args.action != "note":
        raise UsageError("only %%case note takes a cell body")
    if args.action == "open":
        return _open(self, args)
    if args.action == "search":
        return _search(self, args)
    cm = _current(self)
    if args.action == "note":
        return _note(cm, args, cell)
    if args.action == "list":
        return _list(cm, args)
    if args.action == "index":
        return TextBlock(cm.index_markdown())
    if args.action == "status":
        return _set_status(cm, args) if args.words else _status(cm)
    if args.action == "repair":
        return _repair(cm)
    if args.action == "uncompress":
        return _uncompress(cm, args)
    if args.action == "policy":
        pol = cm.policy()
        where = pol.source or "default"
        extra = f"\n{pol.hint}" if pol.hint else ""
        return TextBlock(f"Memory Write Policy: {pol.value} (from {where}){extra}")
    return _archive(cm, args)


def _workspace(self: Any, args: Any) -> str:
    if args.workspace:
        return str(args.workspace)
    current = getattr(self, "case_memory", None)
    return str(current.workspace) if current is not None else "."


def _open(self: Any, args: Any) -> Any:
    from ..service.cases.memory import CaseMemory

    if len(args.words) != 1:
        raise UsageError("%case open needs one case id, e.g. %case open CASE-2026-001")
    self.case_memory = CaseMemory(_workspace(self, args), args.words[0], name=args.name)
    return _status(self.case_memory)


def _current(self: Any) -> Any:
    cm = getattr(self, "case_memory", None)
    if cm is None:
        raise UsageError("no case open: start with %case open CASE-YYYY-NNN")
    return cm


def _status(cm: Any) -> TextBlock:
    st = cm.status()
    lines = [
        f"Case {st['case']} · policy {st['policy']} · {st['entries']} entries",
        f"  folder: {st['memory_dir']}",
        "  by type: " + ", ".join(f"{k} {v}" for k, v in sorted(st["by_type"].items())),
        "  by status: " + ", ".join(f"{k} {v}" for k, v in sorted(st["by_status"].items())),
        f"  index: {'ok' if st['index_ok'] else 'needs repair'}",
    ]
    lines += [f"  problem: {p}" for p in st["problems"]]
    lines += [f"  {line}" for line in (st.get("hint"), st.get("suggestion")) if line]
    return TextBlock("\n".join(lines))


def _one(values: list[str] | None, option: str) -> str | None:
    if values and len(values) > 1:
        raise UsageError(f"%case list takes one {option}")
    return values[0] if values else None


def _list(cm: Any, args: Any) -> CaseEntries:
    records = cm.entries(
        type=args.type,
        evidence=_one(args.evidence, "--evidence"),
        hypothesis=_one(args.hypothesis, "--hypothesis"),
    )
    rows = [
        {
            "file": r.name,
            "title": r.title,
            "type": r.type,
            "date": r.date,
            # a legacy entry whose 后续状态 cannot be told: shown as unknown
            "status": r.status or "— (legacy, unknown)",
            "evidence": ", ".join(r.entry.evidence) or "—",
            "hypotheses": ", ".join(r.entry.hypotheses) or "—",
        }
        for r in records
    ]
    return CaseEntries(rows)


def _set_status(cm: Any, args: Any) -> None:
    if len(args.words) != 2:
        raise UsageError("%case status takes ENTRY STATE, e.g. %case status <file>.md 已纳入")
    result = cm.set_status(args.words[0], args.words[1], actor="person")
    for message in result.notice():  # nothing under the silent policy
        print(message)


def _repair(cm: Any) -> TextBlock:
    report = cm.repair()
    lines = [
        f"{report.case_id}: " + ("INDEX.md repaired" if report.repaired else "nothing to repair")
    ]
    # what repair cannot settle (unreadable or ambiguous entries, stray files) stays listed
    lines += [
        f"  {'fixed' if report.repaired and p.repairable else 'still'}: {p}"
        for p in report.problems
    ]
    return TextBlock("\n".join(lines))


def _note(cm: Any, args: Any, cell: str | None) -> None:
    body = cell.strip("\n") if cell is not None else joined(args.words)
    if cell is not None and args.words:
        raise UsageError("%%case note takes the body from the cell; put only options on line one")
    if not args.type or not args.title or not body.strip():
        raise UsageError(
            '%case note needs --type, --title and a body: %case note --type insight --title "…" text'
        )
    result = cm.note(
        args.type,
        args.title,
        body,
        evidence=args.evidence or (),
        hypotheses=args.hypothesis or (),
        related=args.related,
        files=args.file or (),
        status=args.status,
        actor="person",
    )
    for message in result.notice():  # nothing at all under the silent policy
        print(message)


def _archive(cm: Any, args: Any) -> TextBlock:
    final: dict[str, str] = {}
    for item in args.final or []:
        entry, sep, state = item.partition("=")
        if not sep or not entry.strip() or not state.strip():
            raise UsageError(f"--final takes ENTRY=STATE, got {item!r}")
        final[entry.strip()] = state.strip()
    result = cm.archive(final, args.delete or (), compress_excluded=args.compress)
    lines = [
        f"Archived {result.case_id}: snapshot {result.snapshot}",
        f"  已纳入 ({len(result.included)}): " + ", ".join(r.title for r in result.included),
        f"  updated {len(result.updated)}, deleted {len(result.deleted)}",
    ]
    if args.compress:
        lines.append(f"  compressed {len(result.compressed)} 已排除 entries to one line")
        lines += [f"  not compressed: {why}" for why in result.not_compressed]
    return TextBlock("\n".join(lines))


def _uncompress(cm: Any, args: Any) -> TextBlock:
    result = cm.uncompress(args.words)
    lines = [f"{result.case_id}: gave back {len(result.restored)} records from {result.snapshot}"]
    lines += [f"  {name}" for name in result.restored]
    lines += [f"  skipped {why}" for why in result.skipped]
    return TextBlock("\n".join(lines))


def _search(self: Any, args: Any) -> CaseSearchResult:
    from ..service.cases.search import search_cases

    hits = search_cases(
        _workspace(self, args), joined(args.words), type=args.type, limit=args.limit
    )
    rows = [
        {
            "case": h.case_id,
            "name": h.name,
            "title": h.title,
            "type": h.type,
            "date": h.date,
            "status": h.status,
            "snippet": h.snippet,
            "path": str(h.path),
        }
        for h in hits
    ]
    return CaseSearchResult(rows)
