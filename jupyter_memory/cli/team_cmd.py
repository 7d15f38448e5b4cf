"""Team projects on git: ``project init``, ``log``, the merge drivers git calls,
``knowledge resolve`` and the project settings (docs/teams.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .._i18n import localized, tr
from .._i18n.argparse_words import ArgumentParser
from ..exceptions import ValidationError
from .output import emit_json, open_memory
from .stdin import read_stdin


def _project_init(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.project_init(args.dir)
    if args.json:
        emit_json(result.to_dict())
        return 0
    print(
        tr("team project {project}: {folder}/.jupyter-memory").format(
            project=result.project, folder=result.folder
        )
    )
    if result.attributes_written:
        print("  " + tr("wrote .jupyter-memory/.gitattributes (commit it with the project)"))
    for name in result.drivers:
        said = tr("registered git merge driver {name} in {git}/.git/config")
        print("  " + said.format(name=name, git=result.git))
    for notice in result.notices:
        print(f"  {localized(notice)}")
    storage = result.status.storage
    said = tr("storage: {kind} ({reason})")
    print("  " + said.format(kind=storage["kind"], reason=storage["reason"]))
    return 0


def _merge_driver(args: argparse.Namespace, kind: str) -> int:
    """Git's merge driver contract: read %O %A %B, write the result to %A, exit 0 or 1.

    Exit 1 tells git the file is conflicted; the file then holds our conflict
    blocks, which doctor, ``%memory status`` and the panel show.
    """
    texts = []
    for name in (args.base, args.ours, args.theirs):
        try:
            texts.append(Path(name).read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            said = tr("jupyter-memory {kind}: cannot read {name}: {error}")
            print(said.format(kind=kind, name=name, error=exc), file=sys.stderr)
            return 2
    where = args.path or args.ours
    if kind == "merge-knowledge":
        from ..core.knowledge.merge import merge_knowledge  # only what this driver needs

        result = merge_knowledge(*texts)
        out, conflicted = result.text, not result.clean
        if conflicted:
            said = (
                tr(
                    "jupyter-memory: {where}: {n} item(s) over the 8,000-character cap;"
                    " resolve in the Library editor or with `jupyter-memory knowledge resolve`"
                )
                if result.over_cap
                else tr(
                    "jupyter-memory: {where}: {n} item(s) changed on both sides;"
                    " resolve in the Library editor or with `jupyter-memory knowledge resolve`"
                )
            )
            print(said.format(where=where, n=len(result.conflicts)), file=sys.stderr)
    else:
        from ..core.knowledge.proposal_merge import merge_proposal

        merged = merge_proposal(*texts)
        if merged is None:
            return 1  # unreadable side: leave git's own conflict
        out, contested = merged
        conflicted = False
        if contested:
            print(
                tr(
                    "jupyter-memory: {where}: decided differently in two clones; the earlier"
                    " decision holds, the other is kept as 'contested' (see doctor)"
                ).format(where=where),
                file=sys.stderr,
            )
    Path(args.ours).write_bytes(out.encode("utf-8"))
    return 1 if conflicted else 0


def _merge_knowledge(args: argparse.Namespace) -> int:
    return _merge_driver(args, "merge-knowledge")


def _merge_proposal(args: argparse.Namespace) -> int:
    return _merge_driver(args, "merge-proposal")


def _log(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        rows = mem.hooks.knowledge_history(project=args.project)
    if args.json:
        emit_json([r.to_dict() for r in rows])
        return 0
    if not rows:
        print(tr("no knowledge history for this project yet"))
    for r in rows:
        what = f"{r.change:<10} {r.item or ''}"
        extra = []
        if r.proposal:
            extra.append(tr("proposal {id}").format(id=r.proposal))
        if r.commit:
            extra.append(tr("commit {commit}").format(commit=r.commit[:10]))
        elif r.source == "git":
            extra.append(tr("not committed"))
        print(f"{r.at}  {r.by or '?'}  {what}" + (f"  ({', '.join(extra)})" if extra else ""))
        if r.evidence:
            print("    " + tr("evidence: “{quote}”").format(quote=r.evidence))
    return 0


def resolve(args: argparse.Namespace) -> int:
    """``knowledge resolve --layer project (--take ours|theirs | text on stdin)``."""
    if args.layer != "project":
        raise ValidationError(tr("only a project's knowledge is merged by git"), field="layer")
    text = None if args.take else read_stdin("text")
    with open_memory(args) as mem:
        result = mem.hooks.resolve_knowledge(args.project, take=args.take, text=text)
    if args.json:
        emit_json(result)
    else:
        said = tr("resolved: {path} (staged for the merge commit)")
        print(said.format(path=result["status"]["path"]))
    return 0


def project_settings(args: argparse.Namespace, mem: Any) -> dict[str, Any]:
    """The ``settings --project DIR --shared-queue/--storage`` part of ``settings``."""
    shared = None if args.shared_queue is None else args.shared_queue == "on"
    return dict(mem.hooks.project_settings(args.project, shared_queue=shared, storage=args.storage))


def _driver_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("base", help=tr("%%O: the common ancestor's version"))
    p.add_argument("ours", help=tr("%%A: this clone's version; the result is written here"))
    p.add_argument("theirs", help=tr("%%B: the other side's version"))
    p.add_argument("path", nargs="?", help=tr("%%P: the file's path in the repository"))


def run_driver(argv: list[str]) -> int:
    """``jupyter-memory merge-knowledge|merge-proposal %O %A %B %P`` without the full CLI."""
    name, rest = argv[0], argv[1:]
    p = ArgumentParser(prog=f"jupyter-memory {name}")
    _driver_arguments(p)
    return _merge_driver(p.parse_args(rest), name)


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("project", parents=[common], help=tr("team projects on git"))
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    init = actions.add_parser(
        "init",
        parents=[common],
        help=tr("make a folder a team project: .jupyter-memory/, .gitattributes, merge drivers"),
    )
    init.add_argument("dir", nargs="?", help=tr("the project folder (default: here)"))
    init.set_defaults(func=_project_init)

    p = sub.add_parser(
        "log", parents=[common], help=tr("a project's knowledge history (git + audit)")
    )
    p.set_defaults(func=_log)

    for name, func in (("merge-knowledge", _merge_knowledge), ("merge-proposal", _merge_proposal)):
        p = sub.add_parser(
            name,
            help=tr("git merge driver ({name}); git calls it, see docs/teams.md").format(name=name),
        )
        _driver_arguments(p)
        p.set_defaults(func=func)
