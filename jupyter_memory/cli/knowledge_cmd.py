"""Governed-knowledge commands: queue, propose, apply, dismiss, process-all, knowledge,
context, expand, reorganize, settings."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..exceptions import KnowledgeConflictError, ValidationError
from . import team_cmd
from .output import emit_json, fail, open_memory
from .stdin import read_stdin


def _switch(value: str | None) -> bool | None:
    return None if value is None else value == "on"


def _print_proposal(p: Any) -> None:
    where = p.suggested_layer + (f":{p.project}" if p.project else "")
    print(f"{p.id}  [{p.kind}, {p.source}, → {where}]  {p.text}")
    print(f"    quote: “{p.evidence_quote}”")


def _queue(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        items = mem.queue(include_decided=args.all)
        problems = mem.queue_problems()
    if args.json:
        emit_json({"items": [p.to_dict() for p in items], "problems": problems})
        return 0
    if not items:
        print("the queue is empty")
    for p in items:
        _print_proposal(p)
        if args.all:
            print(f"    status: {p.status}")
    for prob in problems:
        print(f"unreadable: {prob['message']}", file=sys.stderr)
    return 0


def _propose(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.propose(
            args.text, args.kind, args.quote or args.text, layer=args.layer, source="manual"
        )
    if args.json:
        emit_json(result.to_dict())
    elif result["status"] == "queued":
        extra = f" (supersedes {result['supersedes']})" if result["supersedes"] else ""
        print(f"queued {result['id']}{extra}")
    else:
        print(f"skipped: {result['reason']}")
    return 0


def _print_agents_md(report: dict[str, Any]) -> None:
    """What the AGENTS.md auto-sync did (a refused block shows its diff)."""
    if report.get("error"):
        print(f"AGENTS.md auto-sync failed (the Apply stands): {report['error']}", file=sys.stderr)
    for outcome in report["files"]:
        print(f"AGENTS.md auto-sync: {outcome['message']}")
        if outcome["diff"]:
            print(outcome["diff"], end="" if outcome["diff"].endswith("\n") else "\n")


def _apply(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.apply(args.id, to=args.to, project=args.project)
    if args.json:
        emit_json(result.to_dict())
    elif result["status"] == "applied":
        where = "User" if result["layer"] == "user" else f"Project {result['project']}"
        print(f"saved to {where} knowledge ({result['section']}): {result['path']}")
        if "agents_md" in result:
            _print_agents_md(result["agents_md"])
    else:
        print(f"{result['status'].replace('_', ' ')}: nothing changed")
    return 0


def _dismiss(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.dismiss(args.id, args.reason)
    if args.json:
        emit_json(result.to_dict())
    else:
        print(result["status"].replace("_", " "))
    return 0


def _process_all(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        texts = {p.id: p.text for p in mem.queue()}  # an applied result names only its id
        result = mem.process_all()
    if args.json:
        emit_json(result.to_dict())
        return 0
    print(f"applied {len(result.applied)}, skipped {len(result.skipped)}")
    for done in result.applied:
        where = "User" if done.layer == "user" else f"Project {done.project}"
        print(f"  → {where}: {done.id}  {texts.get(done.id, '')}")
    for item in result.skipped:
        print(f"  skipped {item.id} ({item.reason}): {item.text}")
    for report in result.agents_md or []:
        _print_agents_md(report.to_dict())
    return 0


def _knowledge(args: argparse.Namespace) -> int:
    if args.action == "save":
        return _save_knowledge(args)
    if args.action == "resolve":
        return team_cmd.resolve(args)
    with open_memory(args) as mem:
        read = mem.read_knowledge(args.layer, project=args.project)
    status = read.status.to_dict()
    if args.json:
        shown = {"text": read.text, "version": read.version, "status": status}
        emit_json(shown if args.action == "show" else status)
        return 0
    if args.action == "show":
        sys.stdout.write(read["text"])
        return 0
    print(
        f"{status['layer']} knowledge{' (' + status['project'] + ')' if status['project'] else ''}: "
        f"{status['path']}\n  Rules {status['rules']} · Info {status['info']} · "
        f"{status['chars']:,} / {status['budget']:,} characters · mode {status['mode']} · "
        f"last updated {status['last_updated'] or 'never'}\n  version {status['version']}"
    )
    if status["legacy_layout"]:
        print("  older layout: rewritten as ## Rules / ## Info on the next save")
    return 0


def _save_knowledge(args: argparse.Namespace) -> int:
    """Save stdin as the file, compare-and-swap on ``--base`` (or ``--force`` to overwrite).

    The CLI's save is always a read, an edit elsewhere and a save: without the
    version it was read at, it cannot tell whether an Apply landed meanwhile.
    """
    if args.base is None and not args.force:
        return fail(
            args,
            ValidationError(
                "knowledge save needs --base VERSION, the version of the text you edited "
                "(`jupyter-memory knowledge show --json` prints it), or --force to "
                "replace whatever the file holds now",
                field="base",
            ),
        )
    text = read_stdin("text")
    with open_memory(args) as mem:
        try:
            mem.save_knowledge(args.layer, text, project=args.project, base=args.base)
        except KnowledgeConflictError as exc:
            return _conflict(args, exc)
        read = mem.read_knowledge(args.layer, project=args.project)
    if args.json:
        emit_json({"text": read.text, "version": read.version, "status": read.status.to_dict()})
    else:
        print(f"saved {read['path']} (version {read['version']})")
    return 0


def _conflict(args: argparse.Namespace, exc: KnowledgeConflictError) -> int:
    """A stale save: name the file and give what a retry needs (the current version)."""
    if args.json:
        emit_json(
            {
                "error": type(exc).__name__,
                "message": str(exc),
                "path": str(exc.path),
                "current": {"text": exc.current_text, "version": exc.current_version},
                "yours": {"text": exc.text, "base": exc.base},
            }
        )
    else:
        sys.stderr.write(
            f"jupyter-memory: error: {exc}\n"
            f"  current version: {exc.current_version}\n"
            "  see it with `jupyter-memory knowledge show`, merge your edit into it, then "
            f"save with --base {exc.current_version}\n"
        )
    return 1


def _context(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        block = mem.context(project=args.project, agent=args.agent, query=args.query or "")
    if args.json:
        emit_json({"context": block, "chars": len(block)})
    else:
        print(
            block or "(nothing is injected: no approved knowledge and no memory, or memory is off)"
        )
    return 0


def _expand(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.expand_knowledge_catalog(args.labels, project=args.project)
    if args.json:
        emit_json(result.to_dict())
        return 0
    for entry in result["entries"]:
        print(f"[{entry['layer']} · {entry['section']}]\n{entry['text']}")
    for label in result["unknown"]:
        print(f"unknown label: {label}", file=sys.stderr)
    return 1 if result["unknown"] and not result["entries"] else 0


def _reorganize(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.reorganize(args.layer, project=args.project)
    if args.json:
        emit_json(result.to_dict())
    else:
        print(
            f"reorganized {result['path']} ({result['chars_before']:,} → {result['chars_after']:,} "
            f"characters, {result['duplicates_removed']} duplicates removed"
            f"{', grouped under labels' if result['grouped'] else ''}); backup: {result['backup']}"
        )
    return 0


def _settings(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        changes = {
            k: v
            for k, v in (
                ("enabled", _switch(args.enabled)),
                ("auto_suggestions", _switch(args.auto_suggestions)),
                ("agents_md_autosync", _switch(args.agents_md_autosync)),
            )
            if v is not None
        }
        settings = mem.update_settings(**changes) if changes else mem.settings
        if args.shared_queue is not None or args.storage is not None:
            settings = {**settings, "project": team_cmd.project_settings(args, mem)}
    if args.json:
        emit_json(settings)
    else:
        on = {True: "on", False: "off"}
        print(f"enabled: {on[settings['enabled']]}")
        print(f"automatic suggestions: {on[settings['auto_suggestions']]}")
        print(f"AGENTS.md auto-sync after Apply: {on[settings['agents_md_autosync']]}")
        if "project" in settings:
            proj = settings["project"]
            print(f"project {proj['project']}: shared review queue {on[proj['shared_queue']]}")
            used = proj["storage_in_use"]
            print(f"  storage {proj['storage']}: {used['kind']} ({used['reason']})")
    return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("queue", parents=[common], help="pending knowledge proposals")
    p.add_argument("--all", action="store_true", help="include applied, dismissed, superseded")
    p.set_defaults(func=_queue)

    p = sub.add_parser("propose", parents=[common], help="queue a knowledge proposal yourself")
    p.add_argument("text")
    p.add_argument("--kind", choices=["rule", "info"], required=True)
    p.add_argument("--quote", help="evidence quote (default: the text itself)")
    p.add_argument("--layer", choices=["user", "project"])
    p.set_defaults(func=_propose)

    p = sub.add_parser("apply", parents=[common], help="approve a proposal into a knowledge file")
    p.add_argument("id")
    p.add_argument("--to", choices=["user", "project"], required=True)
    p.set_defaults(func=_apply)

    p = sub.add_parser("dismiss", parents=[common], help="dismiss a proposal for good")
    p.add_argument("id")
    p.add_argument("--reason", help="why (a learned rule's candidate records it)")
    p.set_defaults(func=_dismiss)

    p = sub.add_parser(
        "process-all",
        parents=[common],
        help="apply every pending proposal to the layer it was suggested for; "
        "those still needing a project are skipped and listed",
    )
    p.set_defaults(func=_process_all)

    p = sub.add_parser(
        "knowledge", parents=[common], help="show, check or save (from stdin) a knowledge file"
    )
    p.add_argument("action", choices=["show", "status", "save", "resolve"])
    p.add_argument("--layer", choices=["user", "project"], default="user")
    p.add_argument(
        "--take",
        choices=["ours", "theirs"],
        help="resolve: keep one side of a git merge conflict (default: your merge from stdin)",
    )
    how = p.add_mutually_exclusive_group()
    how.add_argument(
        "--base",
        metavar="VERSION",
        help="save: the version you edited (from `knowledge show --json`); "
        "refused if the file changed since",
    )
    how.add_argument(
        "--force", action="store_true", help="save: replace the file whatever it holds now"
    )
    p.set_defaults(func=_knowledge)

    p = sub.add_parser("context", parents=[common], help="the block an agent receives")
    p.add_argument("--query", help="the conversation text that picks the WARM memories")
    p.add_argument("--agent", help="include this agent's own reviewed memories (e.g. mcp)")
    p.set_defaults(func=_context)

    p = sub.add_parser("expand", parents=[common], help="full entries under catalog labels")
    p.add_argument("labels", nargs="+")
    p.set_defaults(func=_expand)

    p = sub.add_parser("reorganize", parents=[common], help="back up, dedupe, regroup a file")
    p.add_argument("--layer", choices=["user", "project"], default="user")
    p.set_defaults(func=_reorganize)

    p = sub.add_parser("settings", parents=[common], help="show or change the switches")
    p.add_argument("--enabled", choices=["on", "off"])
    p.add_argument("--auto-suggestions", choices=["on", "off"])
    p.add_argument(
        "--agents-md-autosync",
        choices=["on", "off"],
        help="after each Apply to a project, re-sync its existing AGENTS.md block",
    )
    p.add_argument(
        "--shared-queue",
        choices=["on", "off"],
        help="with --project: the project's proposals live in its folder, for the team",
    )
    p.add_argument(
        "--storage",
        choices=["auto", "local", "network"],
        help="with --project: where its index and locks go (auto: detect a network mount)",
    )
    p.set_defaults(func=_settings)
