"""``%remember`` / ``%%remember`` and ``%forget``: write and delete memories.

``%remember Always run tests before push`` saves a durable, procedural memory
(spec 003 defaults). Options choose title, type, tier, tags and where it goes:
``--project [P]`` (the focused or the named project), ``--user``, or
``--agent NAME`` (that agent's private memories).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError

from .._i18n import tr
from .args import argument, joined, magic_arguments, parse, parse_with_text
from .host import MagicsHost
from .render import shown_value

_FOCUSED = "\x00focused"  # --project given without a value


@magic_arguments()
@argument("text", nargs="*", help=tr("the memory text (or the cell body with %%%%remember)"))
@argument("--title", help=tr("a short title (default: the first line of the text)"))
@argument(
    "--type",
    default="procedural",
    help=tr("episodic, semantic, procedural (default) or reflective"),
)
@argument("--tier", default="durable", help=tr("session, daily or durable (default)"))
@argument("--tags", help=tr("comma-separated tags, e.g. sales,refunds"))
@argument(
    "--project",
    nargs="?",
    const=_FOCUSED,
    help=tr("save in the project layer: the focused project, or the folder/id given"),
)
@argument("--user", action="store_true", help=tr("save in your user layer (all projects)"))
@argument("--agent", help=tr("save as a private memory of agent NAME"))
@argument(
    "--allow-secret",
    action="store_true",
    help=tr("keep text that holds a secret (user layer only; agents see it redacted)"),
)
def remember(self: MagicsHost, line: str, cell: str | None = None) -> Any:
    """Save a memory. Examples::

    %remember Always run tests before push
    %remember "Revenue excludes refunds" --type semantic --tags sales --project
    %%remember --title "Refund policy" --type semantic
    Refunds are netted out of revenue in the month they are issued.
    """
    if cell is None:
        args = parse_with_text(remember, line, "text")
        text = joined(args.text)
    else:
        args = parse(remember, line)
        if args.text:
            raise UsageError(
                tr(
                    "%%remember takes the text from the cell body; put only options on the first line"
                )
            )
        text = cell.strip("\n")
    if not text.strip():
        raise UsageError(tr("%remember needs text: %remember Always run tests before push"))
    chosen = [o for o in ("project", "user", "agent") if getattr(args, o)]
    if len(chosen) > 1:
        raise UsageError(
            tr("choose one of --project, --user, --agent (got {chosen})").format(
                chosen=", ".join(chosen)
            )
        )
    scope = "user" if args.user else ("project" if args.project == _FOCUSED else None)
    project = args.project if args.project not in (None, _FOCUSED) else None
    if project is not None:
        scope = "project"
    with self.session.lock:
        entry = self.service.remember(
            text,
            title=args.title,
            type=args.type,
            tier=args.tier,
            tags=args.tags or (),
            scope=scope,
            project=project,
            agent=args.agent,
            allow_secret=args.allow_secret,
        )
    where = (
        entry.meta.project if entry.layer == "project" else shown_value("layer", entry.meta.scope)
    )
    print(
        tr("Remembered {id} ({type}, {tier}) in {where}").format(
            id=entry.id,
            type=shown_value("type", entry.meta.type.value),
            tier=shown_value("tier", entry.meta.tier.value),
            where=where,
        )
    )
    # The file's name on a line of its own and its folder below: JupyterLab cuts
    # plain text anywhere at the output's edge, and the name is what a person looks for.
    path = Path(str(entry.path))
    print(tr("  file: {name}").format(name=path.name))
    print(tr("  in:   {folder}").format(folder=f"{path.parent}{os.sep}"))
    if args.allow_secret:
        from ..core.secrets.detector import secret_kinds  # lazy: only for this option

        kinds = secret_kinds(f"{entry.title}\n{entry.text}")
        if kinds:
            print(
                tr(
                    "  holds a secret ({kinds}): kept in your user layer only; "
                    "agents' context shows it redacted"
                ).format(kinds=", ".join(kinds))
            )
    return None


@magic_arguments()
@argument("id", help=tr("the memory id (see %%memories or %%recall)"))
def forget(self: MagicsHost, line: str) -> None:
    """Delete a memory and its index entries; the audit log keeps only id, hash and time."""
    args = parse(forget, line)
    with self.session.lock:
        result = self.service.forget(args.id)
    print(
        tr("Forgot {id} ({layer} layer)").format(
            id=result.id, layer=shown_value("layer", result.layer)
        )
    )
