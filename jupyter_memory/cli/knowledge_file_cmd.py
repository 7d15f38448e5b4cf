"""``jupyter-memory knowledge show|status|save|resolve`` and ``reorganize``: a knowledge file itself.

Split from ``knowledge_cmd`` (the queue and the decisions), which registers these commands.
"""

from __future__ import annotations

import argparse
import sys

from .._i18n import localized, tr
from ..exceptions import KnowledgeConflictError, ValidationError
from . import team_cmd
from .output import emit_json, fail, open_memory
from .stdin import read_stdin


def knowledge(args: argparse.Namespace) -> int:
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
    title = (
        tr("{layer} knowledge ({project}): {path}")
        if status["project"]
        else tr("{layer} knowledge: {path}")
    )
    print(title.format(layer=status["layer"], project=status["project"], path=status["path"]))
    said = tr(
        "Rules {rules} · Info {info} · {chars} / {budget} characters · mode {mode}"
        " · last updated {updated}"
    )
    print(
        "  "
        + said.format(
            rules=status["rules"],
            info=status["info"],
            chars=f"{status['chars']:,}",
            budget=f"{status['budget']:,}",
            mode=status["mode"],
            updated=status["last_updated"] or tr("never"),
        )
    )
    print("  " + tr("version {version}").format(version=status["version"]))
    if status["legacy_layout"]:
        print("  " + tr("older layout: rewritten as ## Rules / ## Info on the next save"))
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
                tr(
                    "knowledge save needs --base VERSION, the version of the text you edited "
                    "(`jupyter-memory knowledge show --json` prints it), or --force to "
                    "replace whatever the file holds now"
                ),
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
        print(
            tr("saved {path} (version {version})").format(
                path=read["path"], version=read["version"]
            )
        )
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
            tr("jupyter-memory: error: {message}").format(message=localized(exc))
            + "\n  "
            + tr("current version: {version}").format(version=exc.current_version)
            + "\n  "
            + tr(
                "see it with `jupyter-memory knowledge show`, merge your edit into it, then "
                "save with --base {version}"
            ).format(version=exc.current_version)
            + "\n"
        )
    return 1


def reorganize(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        spend = mem.hooks.llm_spend() if mem.llm is not None else None
        if spend is not None and spend.spent:  # said before the call; it still runs
            from ..service.llm_budget import going_over_note

            print(localized(going_over_note(spend)), file=sys.stderr)
        result = mem.reorganize(args.layer, project=args.project)
    if args.json:
        emit_json(result.to_dict())
    else:
        print(localized(result.summary()))
        for merge in result.outcome.merged:
            print(f"  - {merge.removed}  →  {merge.kept}  ({localized(merge.reason)})")
    return 0
