"""Governed-knowledge commands: queue, propose, apply, dismiss, process-all, context,
expand, settings; ``knowledge`` and ``reorganize`` live in ``knowledge_file_cmd``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._i18n import M_, N_, localized, tr
from ..exceptions import ValidationError
from . import knowledge_file_cmd, team_cmd
from .output import emit_json, open_memory


def _switch(value: str | None) -> bool | None:
    return None if value is None else value == "on"


def _print_proposal(p: Any) -> None:
    where = p.suggested_layer + (f":{p.project}" if p.project else "")
    print(f"{p.id}  [{p.kind}, {p.source}, → {where}]  {p.text}")
    print("    " + tr("quote: “{quote}”").format(quote=p.evidence_quote))


def _where(layer: str | None, project: str | None) -> str:
    return tr("User") if layer == "user" else tr("Project {project}").format(project=project)


_STATUS_WORDS = {
    "applied": N_("applied"),
    "dismissed": N_("dismissed"),
    "already_saved": N_("already saved"),
    "already_dismissed": N_("already dismissed"),
    "already_superseded": N_("already superseded"),
}


def _status_words(status: str) -> str:
    """A decision's status as words (``already_saved`` → ``already saved``)."""
    words = _STATUS_WORDS.get(status)
    return tr(words) if words else status.replace("_", " ")


def _queue(args: argparse.Namespace) -> int:
    if args.action == "purge":
        if not args.id:
            raise ValidationError(
                M_("queue purge needs the id of a dismissed proposal"), field="id"
            )
        return _purge(args, args.id)
    with open_memory(args) as mem:
        items = mem.queue(include_decided=args.all)
        problems = mem.hooks.queue_problems()
    if args.json:
        emit_json({"items": [p.to_dict() for p in items], "problems": problems})
        return 0
    if not items:
        print(tr("the queue is empty"))
    for p in items:
        _print_proposal(p)
        if args.all:
            print("    " + tr("status: {status}").format(status=p.status))
    for prob in problems:
        said = tr("contested: {message}") if prob["kind"] == "contested" else None
        said = said or tr("unreadable: {message}")
        print(said.format(message=prob["message"]), file=sys.stderr)
    return 0


def _propose(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.propose(
            args.text, args.kind, args.quote or args.text, layer=args.layer, source="manual"
        )
    if args.json:
        emit_json(result.to_dict())
    elif result["status"] == "queued":
        said = tr("queued {id} (supersedes {old})") if result["supersedes"] else tr("queued {id}")
        print(said.format(id=result["id"], old=result["supersedes"]))
    else:
        print(tr("skipped: {reason}").format(reason=localized(result["reason"])))
    return 0


def _print_agents_md(report: dict[str, Any]) -> None:
    """What the AGENTS.md auto-sync did (a refused block shows its diff)."""
    if report.get("error"):
        print(
            tr("AGENTS.md auto-sync failed (the Apply stands): {error}").format(
                error=report["error"]
            ),
            file=sys.stderr,
        )
    for outcome in report["files"]:
        print(tr("AGENTS.md auto-sync: {message}").format(message=localized(outcome["message"])))
        if outcome["diff"]:
            print(outcome["diff"], end="" if outcome["diff"].endswith("\n") else "\n")


def _apply(args: argparse.Namespace) -> int:
    # The result types load with the verb, not with every command's parser.
    from ..service.knowledge.results import Applied

    with open_memory(args) as mem:
        result = mem.apply(args.id, to=args.to, project=args.project)
    if args.json:
        emit_json(result.to_dict())
    elif isinstance(result, Applied):
        where = _where(result.layer, result.project)
        print(
            tr("saved to {where} knowledge ({section}): {path}").format(
                where=where, section=result.section, path=result.path
            )
        )
        if result.agents_md is not None:
            _print_agents_md(result.agents_md.to_dict())
    else:
        print(tr("{status}: nothing changed").format(status=_status_words(result.status)))
    return 0


def _dismiss(args: argparse.Namespace) -> int:
    # The result types load with the verb, not with every command's parser.
    from ..service.knowledge.results import AlreadyDecided, Dismissed

    with open_memory(args) as mem:
        result = mem.dismiss(args.id, args.reason)
    match result:
        case Dismissed() | AlreadyDecided(state="dismissed") if args.purge:
            return _purge(args, args.id)
    if args.json:
        emit_json(result.to_dict())
    else:
        print(_status_words(result.status))
    return 0


def _plan_lines(plan: Any) -> list[str]:
    lines = [tr("Process all would apply {n} proposal(s):").format(n=plan.total)]
    for t in plan.targets:
        lines.append(f"  {_where(t.layer, t.project)}: {t.count}")
    if plan.pick_a_project:
        said = tr("  and leave {n} in the queue that still need a project picked")
        lines.append(said.format(n=plan.pick_a_project))
    return lines


def _confirmed(args: argparse.Namespace, plan: Any) -> bool:
    """Process all says what it will do and asks (issue 32); ``--yes`` answers for a script."""
    if args.yes or plan.total == 0:
        return True
    if not sys.stdin.isatty():
        return False
    print("\n".join(_plan_lines(plan)))
    answer = input(tr("Apply them? [y/N] "))
    return answer.strip().lower() in ("y", "yes", "是", "好")


def _purge(args: argparse.Namespace, proposal_id: str) -> int:
    with open_memory(args) as mem:
        result = mem.hooks.purge(proposal_id)
    if args.json:
        emit_json(result.to_dict())
    elif result.status == "purged":
        print(
            tr(
                "purged: its text is gone from every file; its hash is kept so it is not suggested again"
            )
        )
    else:
        print(tr("already purged: nothing changed"))
    return 0


def _process_all(args: argparse.Namespace) -> int:
    # The result types load with the verb, not with every command's parser.
    from ..service.knowledge.results import PICK_A_PROJECT

    with open_memory(args) as mem:
        plan = mem.hooks.process_all_plan()
        if not _confirmed(args, plan):
            if args.json:
                emit_json({"plan": plan.to_dict(), "applied": False})
            else:
                print("\n".join(_plan_lines(plan)))
                print(tr("nothing applied: confirm at a terminal, or pass --yes"), file=sys.stderr)
            return 1
        texts = {p.id: p.text for p in mem.queue()}  # an applied result names only its id
        result = mem.process_all(expect=plan.total)  # what was shown is what runs
    if args.json:
        emit_json(result.to_dict())
        return 0 if result.ok else 1
    print(
        tr("applied {applied}, skipped {skipped}").format(
            applied=len(result.applied), skipped=len(result.skipped)
        )
    )
    for done in result.applied:
        where = _where(done.layer, done.project)
        print(f"  → {where}: {done.id}  {texts.get(done.id, '')}")
    for item in result.skipped:
        if item.reason == PICK_A_PROJECT:
            said = tr("skipped {id} ({reason}): {text}")
            print("  " + said.format(id=item.id, reason=localized(item.reason), text=item.text))
    # Each failure once, with how many items it stopped (not one line per item).
    for failure in result.failures:
        said = tr("failed for {n} proposal(s): {reason}")
        print("  " + said.format(n=failure.count, reason=localized(failure.reason)))
    for report in result.agents_md or []:
        _print_agents_md(report.to_dict())
    return 0 if result.ok else 1


def _revert(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.revert(args.id, then=args.then)
    if args.json:
        emit_json(result.to_dict())
        return 0
    said = (
        tr("reverted: removed from {where} knowledge ({path}); back in the queue")
        if result.status == "pending"
        else tr("reverted: removed from {where} knowledge ({path}); dismissed")
    )
    print(said.format(where=_where(result.layer, result.project), path=result.path))
    if result.agents_md is not None:
        _print_agents_md(result.agents_md.to_dict())
    return 0


def _context(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        block = mem.context(project=args.project, agent=args.agent, query=args.query or "")
    if args.json:
        emit_json({"context": block, "chars": len(block)})
    else:
        print(
            block
            or tr("(nothing is injected: no approved knowledge and no memory, or memory is off)")
        )
    return 0


def _expand(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.hooks.expand_knowledge_catalog(args.labels, project=args.project)
    if args.json:
        emit_json(result.to_dict())
        return 0
    for entry in result["entries"]:
        print(f"[{entry['layer']} · {entry['section']}]\n{entry['text']}")
    for label in result["unknown"]:
        print(tr("unknown label: {label}").format(label=label), file=sys.stderr)
    return 1 if result["unknown"] and not result["entries"] else 0


def _settings(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        enabled = _switch(args.enabled)
        suggestions = _switch(args.auto_suggestions)
        autosync = _switch(args.agents_md_autosync)
        if (enabled, suggestions, autosync) == (None, None, None):
            settings = mem.settings
        else:  # None leaves a switch as it is
            settings = mem.update_settings(
                enabled=enabled, auto_suggestions=suggestions, agents_md_autosync=autosync
            )
        if args.shared_queue is not None or args.storage is not None:
            settings = {**settings, "project": team_cmd.project_settings(args, mem)}
    if args.json:
        emit_json(settings)
    else:
        on = {True: tr("on"), False: tr("off")}
        print(tr("enabled: {state}").format(state=on[settings["enabled"]]))
        print(tr("automatic suggestions: {state}").format(state=on[settings["auto_suggestions"]]))
        print(
            tr("AGENTS.md auto-sync after Apply: {state}").format(
                state=on[settings["agents_md_autosync"]]
            )
        )
        if "project" in settings:
            proj = settings["project"]
            print(
                tr("project {project}: shared review queue {state}").format(
                    project=proj["project"], state=on[proj["shared_queue"]]
                )
            )
            used = proj["storage_in_use"]
            print(
                "  "
                + tr("storage {storage}: {kind} ({reason})").format(
                    storage=proj["storage"], kind=used["kind"], reason=used["reason"]
                )
            )
    return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("queue", parents=[common], help=tr("pending knowledge proposals"))
    p.add_argument("--all", action="store_true", help=tr("include applied, dismissed, superseded"))
    p.add_argument(
        "action",
        nargs="?",
        choices=["purge"],
        help=tr("purge ID: remove a dismissed proposal's text, keep its hash"),
    )
    p.add_argument("id", nargs="?", help=tr("the proposal (with purge)"))
    p.set_defaults(func=_queue)

    p = sub.add_parser("propose", parents=[common], help=tr("queue a knowledge proposal yourself"))
    p.add_argument("text")
    p.add_argument("--kind", choices=["rule", "info"], required=True)
    p.add_argument("--quote", help=tr("evidence quote (default: the text itself)"))
    p.add_argument("--layer", choices=["user", "project"])
    p.set_defaults(func=_propose)

    p = sub.add_parser(
        "apply", parents=[common], help=tr("approve a proposal into a knowledge file")
    )
    p.add_argument("id")
    p.add_argument("--to", choices=["user", "project"], required=True)
    p.set_defaults(func=_apply)

    p = sub.add_parser("dismiss", parents=[common], help=tr("dismiss a proposal for good"))
    p.add_argument("id")
    p.add_argument("--reason", help=tr("why (a learned rule's candidate records it)"))
    p.add_argument(
        "--purge",
        action="store_true",
        help=tr("also remove its text from every file (its hash is kept)"),
    )
    p.set_defaults(func=_dismiss)

    p = sub.add_parser(
        "process-all",
        parents=[common],
        help=tr(
            "apply every pending proposal to the layer it was suggested for; "
            "those still needing a project are skipped and listed"
        ),
    )
    p.add_argument(
        "--yes", action="store_true", help=tr("apply without asking (the counts are not shown)")
    )
    p.set_defaults(func=_process_all)

    p = sub.add_parser(
        "revert", parents=[common], help=tr("undo an Apply: take the entry out of its file again")
    )
    p.add_argument("id")
    p.add_argument(
        "--then",
        choices=["pending", "dismissed"],
        default="pending",
        help=tr("what becomes of the proposal: back in the queue (default) or dismissed"),
    )
    p.set_defaults(func=_revert)

    p = sub.add_parser(
        "knowledge", parents=[common], help=tr("show, check or save (from stdin) a knowledge file")
    )
    p.add_argument("action", choices=["show", "status", "save", "resolve"])
    p.add_argument("--layer", choices=["user", "project"], default="user")
    p.add_argument(
        "--take",
        choices=["ours", "theirs"],
        help=tr("resolve: keep one side of a git merge conflict (default: your merge from stdin)"),
    )
    how = p.add_mutually_exclusive_group()
    how.add_argument(
        "--base",
        metavar="VERSION",
        help=tr(
            "save: the version you edited (from `knowledge show --json`); "
            "refused if the file changed since"
        ),
    )
    how.add_argument(
        "--force", action="store_true", help=tr("save: replace the file whatever it holds now")
    )
    p.set_defaults(func=knowledge_file_cmd.knowledge)

    p = sub.add_parser("context", parents=[common], help=tr("the block an agent receives"))
    p.add_argument("--query", help=tr("the conversation text that picks the WARM memories"))
    p.add_argument("--agent", help=tr("include this agent's own reviewed memories (e.g. mcp)"))
    p.set_defaults(func=_context)

    p = sub.add_parser("expand", parents=[common], help=tr("full entries under catalog labels"))
    p.add_argument("labels", nargs="+")
    p.set_defaults(func=_expand)

    p = sub.add_parser("reorganize", parents=[common], help=tr("back up, dedupe, regroup a file"))
    p.add_argument("--layer", choices=["user", "project"], default="user")
    p.set_defaults(func=knowledge_file_cmd.reorganize)

    p = sub.add_parser("settings", parents=[common], help=tr("show or change the switches"))
    p.add_argument("--enabled", choices=["on", "off"])
    p.add_argument("--auto-suggestions", choices=["on", "off"])
    p.add_argument(
        "--agents-md-autosync",
        choices=["on", "off"],
        help=tr("after each Apply to a project, re-sync its existing AGENTS.md block"),
    )
    p.add_argument(
        "--shared-queue",
        choices=["on", "off"],
        help=tr("with --project: the project's proposals live in its folder, for the team"),
    )
    p.add_argument(
        "--storage",
        choices=["auto", "local", "network"],
        help=tr("with --project: where its index and locks go (auto: detect a network mount)"),
    )
    p.set_defaults(func=_settings)
