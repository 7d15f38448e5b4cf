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

from .._i18n import N_, localized, tr
from ..core.visible import visible
from .args import argument, joined, magic_arguments, parse
from .host import MagicsHost
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
@argument("action", help=tr("open, note, list, index, status, repair, archive, search or policy"))
@argument(
    "words",
    nargs="*",
    help=tr("open: CASE-ID · note: the body · status: ENTRY STATE · search: the text"),
)
@argument("--workspace", help=tr("folder holding cases/ (default: the kernel's folder)"))
@argument("--name", help=tr("open: the case's display name"))
@argument("--type", help=tr("note/list/search: discuss, hesitate, insight, observe or think"))
@argument("--title", help=tr("note: the entry title"))
@argument(
    "--evidence", action="append", help=tr("note: an evidence id (repeatable) · list: filter")
)
@argument(
    "--hypothesis", action="append", help=tr("note: a hypothesis id (repeatable) · list: filter")
)
@argument("--related", help=tr("note: a related entry"))
@argument(
    "--file",
    action="append",
    help=tr("note: a file the entry refers to (repeatable; default: this notebook)"),
)
@argument("--status", help=tr("note: 已纳入, 存档待查 or 已排除"))
@argument("--final", action="append", help=tr("archive: ENTRY=STATE (repeatable)"))
@argument(
    "--delete", action="append", help=tr("archive: an entry confirmed worthless (repeatable)")
)
@argument(
    "--compress",
    action="store_true",
    help=tr("archive: compress 已排除 entries into one-line summaries (undo: %%case uncompress)"),
)
@argument("--limit", type=int, help=tr("search: at most this many hits"))
def case(self: MagicsHost, line: str, cell: str | None = None) -> Any:
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
        raise UsageError(
            tr("%case: unknown action {action}; use one of {actions}").format(
                action=repr(args.action), actions=", ".join(ACTIONS)
            )
        )
    if cell is not None and args.action != "note":
        raise UsageError(tr("only %%case note takes a cell body"))
    if args.action == "open":
        return _open(self, args)
    if args.action == "search":
        return _search(self, args)
    cm = _current(self)
    if args.action == "note":
        return _note(self, cm, args, cell)
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
        where = pol.source or tr("default")
        extra = f"\n{localized(pol.hint)}" if pol.hint else ""
        said = tr("Memory Write Policy: {policy} (from {where})")
        return TextBlock(said.format(policy=pol.value, where=where) + extra)
    return _archive(cm, args)


def _workspace(self: MagicsHost, args: Any) -> str:
    if args.workspace:
        return str(args.workspace)
    current = getattr(self, "case_memory", None)
    return str(current.workspace) if current is not None else "."


def _open(self: MagicsHost, args: Any) -> Any:
    from ..service.cases.memory import CaseMemory

    if len(args.words) != 1:
        raise UsageError(tr("%case open needs one case id, e.g. %case open CASE-2026-001"))
    self.case_memory = CaseMemory(_workspace(self, args), args.words[0], name=args.name)
    return _status(self.case_memory)


def _current(self: MagicsHost) -> Any:
    cm = getattr(self, "case_memory", None)
    if cm is None:
        raise UsageError(tr("no case open: start with %case open CASE-YYYY-NNN"))
    return cm


def _status(cm: Any) -> TextBlock:
    st = cm.status()
    by_type = ", ".join(f"{k} {v}" for k, v in sorted(st["by_type"].items()))
    by_status = ", ".join(f"{k} {v}" for k, v in sorted(st["by_status"].items()))
    index = tr("ok") if st["index_ok"] else tr("needs repair")
    lines = [
        tr("Case {case} · policy {policy} · {n} entries").format(
            case=st["case"], policy=st["policy"], n=st["entries"]
        ),
        "  " + tr("folder: {path}").format(path=st["memory_dir"]),
        "  " + tr("by type: {counts}").format(counts=by_type),
        "  " + tr("by status: {counts}").format(counts=by_status),
        "  " + tr("index: {state}").format(state=index),
    ]
    lines += ["  " + tr("problem: {problem}").format(problem=localized(p)) for p in st["problems"]]
    lines += [f"  {localized(line)}" for line in (st.get("hint"), st.get("suggestion")) if line]
    return TextBlock("\n".join(lines))


def _one(values: list[str] | None, option: str) -> str | None:
    if values and len(values) > 1:
        raise UsageError(tr("%case list takes one {option}").format(option=option))
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
            "status": r.status or tr("— (legacy, unknown)"),
            "evidence": ", ".join(r.entry.evidence) or "—",
            "hypotheses": ", ".join(r.entry.hypotheses) or "—",
        }
        for r in records
    ]
    return CaseEntries(rows)


def _set_status(cm: Any, args: Any) -> None:
    if len(args.words) != 2:
        raise UsageError(tr("%case status takes ENTRY STATE, e.g. %case status <file>.md 已纳入"))
    result = cm.set_status(args.words[0], args.words[1], actor="person")
    for message in result.localized_notice():  # nothing under the silent policy
        print(visible(message))


def _repair(cm: Any) -> TextBlock:
    report = cm.repair()
    done = tr("{case}: INDEX.md repaired") if report.repaired else tr("{case}: nothing to repair")
    lines = [done.format(case=report.case_id)]
    # what repair cannot settle (unreadable or ambiguous entries, stray files) stays listed
    lines += [
        "  "
        + (
            tr("fixed: {problem}") if report.repaired and p.repairable else tr("still: {problem}")
        ).format(problem=p.localized())
        for p in report.problems
    ]
    return TextBlock("\n".join(lines))


def _note(self: MagicsHost, cm: Any, args: Any, cell: str | None) -> None:
    body = cell.strip("\n") if cell is not None else joined(args.words)
    if cell is not None and args.words:
        raise UsageError(
            tr("%%case note takes the body from the cell; put only options on line one")
        )
    if not args.type or not args.title or not body.strip():
        raise UsageError(
            tr(
                "%case note needs --type, --title and a body:"
                ' %case note --type insight --title "…" text'
            )
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
        # 关联文件 of a new entry given no --file: the notebook this kernel runs
        source=getattr(getattr(self, "session", None), "notebook", None),
        actor="person",
    )
    for message in result.localized_notice():  # nothing at all under the silent policy
        print(visible(message))


def _archive(cm: Any, args: Any) -> TextBlock:
    final: dict[str, str] = {}
    for item in args.final or []:
        entry, sep, state = item.partition("=")
        if not sep or not entry.strip() or not state.strip():
            raise UsageError(tr("--final takes ENTRY=STATE, got {item}").format(item=repr(item)))
        final[entry.strip()] = state.strip()
    result = cm.archive(final, args.delete or (), compress_excluded=args.compress)
    lines = [
        tr("Archived {case}: snapshot {snapshot}").format(
            case=result.case_id, snapshot=result.snapshot
        ),
        "  "
        + tr("已纳入 ({n}): {titles}").format(
            n=len(result.included), titles=", ".join(r.title for r in result.included)
        ),
        "  "
        + tr("updated {updated}, deleted {deleted}").format(
            updated=len(result.updated), deleted=len(result.deleted)
        ),
    ]
    if args.compress:
        lines.append(
            "  " + tr("compressed {n} 已排除 entries to one line").format(n=len(result.compressed))
        )
        lines += [
            "  " + tr("not compressed: {why}").format(why=localized(why))
            for why in result.not_compressed
        ]
    return TextBlock("\n".join(lines))


def _uncompress(cm: Any, args: Any) -> TextBlock:
    result = cm.uncompress(args.words)
    lines = [
        tr("{case}: gave back {n} records from {snapshot}").format(
            case=result.case_id, n=len(result.restored), snapshot=result.snapshot
        )
    ]
    lines += [f"  {name}" for name in result.restored]
    lines += ["  " + tr("skipped {why}").format(why=localized(why)) for why in result.skipped]
    return TextBlock("\n".join(lines))


def _search(self: MagicsHost, args: Any) -> CaseSearchResult:
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
