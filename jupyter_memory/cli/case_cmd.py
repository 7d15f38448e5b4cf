"""``jupyter-memory case ...``: investigation case memory (spec 000), a thin shell
over :class:`~jupyter_memory.service.cases.memory.CaseMemory`.

``jupyter-memory case --workspace DIR --case CASE-2026-001 note hesitate "title"
--body TEXT --evidence E-007 --hypothesis H-2``; every sub-command takes
``--json``; ``doctor`` exits 1 when INDEX.md and the files disagree.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._i18n import localized, tr
from .._i18n.argparse_words import ArgumentParser
from ..exceptions import ValidationError
from .output import emit_json
from .stdin import read_stdin


def _case_options(*, suppress: bool) -> argparse.ArgumentParser:
    # Repeated on every sub-command with SUPPRESS defaults, so the options work
    # before or after the sub-command name.
    default: Any = argparse.SUPPRESS if suppress else None
    p = ArgumentParser(add_help=False)
    p.add_argument("--workspace", default=default, help=tr("workspace folder (default: .)"))
    p.add_argument("--case", default=default, help=tr("case id, e.g. CASE-2026-001"))
    p.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help=tr("print machine-readable JSON"),
    )
    return p


def _open(args: argparse.Namespace, *, name: str | None = None) -> Any:
    from ..service.cases.memory import CaseMemory

    if not args.case:
        raise ValidationError(tr("give the case with --case CASE-YYYY-NNN"), field="case")
    return CaseMemory(args.workspace or ".", args.case, name=name)


def _print_result(args: argparse.Namespace, result: Any) -> int:
    if args.json:
        emit_json(result.to_dict())
    else:
        for line in result.localized_notice():
            print(line)
    return 0


def _cmd_open(args: argparse.Namespace) -> int:
    status = _open(args, name=args.name).status()
    if args.json:
        emit_json(status)
        return 0
    print(
        tr("{case}: {n} entries ({legacy} legacy v1)").format(
            case=status["case"], n=status["entries"], legacy=status["legacy"]
        )
    )
    print("  " + tr("folder: {path}").format(path=status["memory_dir"]))
    print("  " + tr("write policy: {policy}").format(policy=status["policy"]))
    for line in (status["hint"], status["suggestion"], *status["problems"]):
        if line:
            print(f"  {localized(line)}")
    return 0


def _cmd_note(args: argparse.Namespace) -> int:
    body = read_stdin("body") if args.body == "-" else args.body
    result = _open(args).note(
        args.type,
        args.title,
        body,
        evidence=args.evidence or (),
        hypotheses=args.hypothesis or (),
        related=args.related,
        files=args.file or (),
        status=args.status,
        slug=args.slug,
        actor="person",
    )
    return _print_result(args, result)


def _cmd_list(args: argparse.Namespace) -> int:
    records = _open(args).entries(
        type=args.type, evidence=args.evidence, hypothesis=args.hypothesis
    )
    if args.json:
        emit_json([r.to_dict() for r in records])
        return 0
    for r in records:
        legacy = " " + tr("(legacy v1)") if r.legacy else ""
        state = r.status or tr("—(unknown)")  # a legacy entry whose 后续状态 cannot be told
        print(f"{r.date}  {r.type:<8}  {state}  {r.name}{legacy}\n    {r.title}")
    return 0


def _cmd_index(args: argparse.Namespace) -> int:
    cm = _open(args)
    if args.json:
        index = cm.index()
        emit_json(
            {
                "case": index.case_id,
                "name": index.name,
                "period": index.period,
                "rows": [
                    {
                        "date": r.date,
                        "type": r.type,
                        "summary": r.summary,
                        "evidence": list(r.evidence),
                        "status": r.status,
                    }
                    for r in index.rows
                ],
            }
        )
    else:
        sys.stdout.write(cm.index_markdown())
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    return _print_result(args, _open(args).set_status(args.entry, args.state, actor="person"))


def _cmd_archive(args: argparse.Namespace) -> int:
    finals: dict[str, str] = {}
    for item in args.final or ():
        entry, sep, state = item.partition("=")
        if not sep:
            raise ValidationError(
                tr("{item} is not ENTRY=STATE").format(item=repr(item)), field="--final"
            )
        finals[entry] = state
    result = _open(args).archive(
        final_states=finals, delete=args.delete or (), compress_excluded=args.compress
    )
    if args.json:
        emit_json(result.to_dict())
        return 0
    print(
        tr("archived {case}; snapshot {snapshot}").format(
            case=result.case_id, snapshot=result.snapshot
        )
    )
    print(
        "  "
        + tr("updated: {updated}, deleted: {deleted}").format(
            updated=len(result.updated), deleted=len(result.deleted)
        )
    )
    if args.compress:
        print("  " + tr("compressed to one line: {n}").format(n=len(result.compressed)))
        for why in result.not_compressed:
            print("  " + tr("not compressed: {why}").format(why=localized(why)))
    print("  " + tr("已纳入 (retrospective input): {n}").format(n=len(result.included)))
    for r in result.included:
        print(f"    {r.date} {r.type} {r.title}")
    return 0


def _cmd_uncompress(args: argparse.Namespace) -> int:
    result = _open(args).uncompress(args.entry)
    if args.json:
        emit_json(result.to_dict())
        return 0
    print(
        tr("{case}: gave back {n} records from {snapshot}").format(
            case=result.case_id, n=len(result.restored), snapshot=result.snapshot
        )
    )
    for why in result.skipped:
        print("  " + tr("skipped {why}").format(why=localized(why)))
    return 0


def _cmd_search(args: argparse.Namespace) -> int:
    from ..service.cases.search import search_cases

    hits = search_cases(args.workspace or ".", " ".join(args.text), type=args.type)
    if args.json:
        emit_json([h.to_dict() for h in hits])
        return 0
    if not hits:
        print(tr("no case memory entries found"))
    for h in hits:
        print(f"{h.case_id}  {h.date}  {h.type:<8}  {h.status}  {h.title}\n    {h.snippet}")
    return 0


def _cmd_doctor(args: argparse.Namespace) -> int:
    report = _open(args).doctor()
    if args.json:
        emit_json(report.to_dict())
    else:
        said = tr("{case}: {n} entries, ok") if report.ok else tr("{case}: {n} entries, problems:")
        print(said.format(case=report.case_id, n=report.entries))
        for p in report.problems:
            print(f"  {p.localized()}")
    return 0 if report.ok else 1


def _cmd_repair(args: argparse.Namespace) -> int:
    report = _open(args).repair()
    if args.json:
        emit_json(report.to_dict())
    else:
        said = tr("{case}: repaired") if report.repaired else tr("{case}: nothing to repair")
        print(said.format(case=report.case_id))
        for p in report.problems:  # unreadable or ambiguous entries stay: "still"
            fixed = report.repaired and p.repairable
            print(
                "  "
                + (tr("fixed {problem}") if fixed else tr("still {problem}")).format(
                    problem=p.localized()
                )
            )
    return 0


def _cmd_policy(args: argparse.Namespace) -> int:
    from ..service.cases.memory import workspace_policy

    pol = workspace_policy(args.workspace or ".")
    if args.json:
        hint = str(pol.hint) if pol.hint else None
        emit_json({"policy": pol.value, "source": pol.source, "line": pol.line, "hint": hint})
    else:
        said = (
            tr("Memory Write Policy: {policy} ({source})")
            if pol.source
            else tr("Memory Write Policy: {policy}")
        )
        print(said.format(policy=pol.value, source=pol.source))
        if pol.hint:
            print(localized(pol.hint))
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    top = _case_options(suppress=False)
    sub_opts = _case_options(suppress=True)
    case = subparsers.add_parser(
        "case", parents=[top], help=tr("investigation case memory (case_memory/, INDEX.md)")
    )

    def show_help(args: argparse.Namespace) -> int:
        case.print_help()
        return 2

    case.set_defaults(func=show_help)
    cmds = case.add_subparsers(dest="case_command", metavar="SUBCOMMAND")

    def add(name: str, func: Any, help: str) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = cmds.add_parser(name, parents=[sub_opts], help=help)
        p.set_defaults(func=func)
        return p

    add("open", _cmd_open, tr("show a case: entries, policy, index health")).add_argument(
        "--name", help=tr("case name for INDEX.md's 案件 line")
    )
    note = add(
        "note",
        _cmd_note,
        tr("write a note, after the write policy and the evidence and duplicate checks"),
    )
    note.add_argument("type", help=tr("discuss | hesitate | insight | observe | think"))
    note.add_argument("title")
    note.add_argument("--body", required=True, help=tr("the record text ('-' reads stdin)"))
    note.add_argument("--evidence", action="append", metavar="E-NNN")
    note.add_argument("--hypothesis", action="append", metavar="H-N")
    note.add_argument("--related", help=tr("an existing entry file this continues"))
    note.add_argument("--file", action="append", metavar="PATH", help=tr("a related file link"))
    note.add_argument("--status", help=tr("已纳入 | 存档待查 | 已排除"))
    note.add_argument(
        "--slug", help=tr("the file name's slug (default: from the title, Chinese kept)")
    )
    lst = add("list", _cmd_list, tr("list entries, filtered"))
    lst.add_argument("--type")
    lst.add_argument("--evidence")
    lst.add_argument("--hypothesis")
    add("index", _cmd_index, tr("print the index derived from the entry files"))
    st = add("status", _cmd_status, tr("set an entry's 后续状态 (file first, then INDEX.md)"))
    st.add_argument("entry")
    st.add_argument("state", help=tr("已纳入 | 存档待查 | 已排除"))
    arc = add("archive", _cmd_archive, tr("close the case: snapshot, final states, cleanup"))
    arc.add_argument("--final", action="append", metavar="ENTRY=STATE")
    arc.add_argument("--delete", action="append", metavar="ENTRY")
    arc.add_argument(
        "--compress",
        action="store_true",
        help=tr(
            "compress 已排除 entries into one-line summaries (their text kept in the snapshot)"
        ),
    )
    unc = add("uncompress", _cmd_uncompress, tr("give compressed records back from the snapshot"))
    unc.add_argument("entry", nargs="*", help=tr("entries to give back (default: all)"))
    se = add("search", _cmd_search, tr("search every case's case_memory/ (no --case needed)"))
    se.add_argument("text", nargs="+")
    se.add_argument("--type")
    add("doctor", _cmd_doctor, tr("check INDEX.md against the files (exit 1 on problems)"))
    add("repair", _cmd_repair, tr("repair INDEX.md from the entry files"))
    add("policy", _cmd_policy, tr("show the team's Memory Write Policy"))
