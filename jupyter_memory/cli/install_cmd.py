"""``jupyter-memory install TARGET``: our MCP server in Claude Code, Codex, Cursor, VS Code,
Claude Desktop or Jupyter AI (docs/agents.md, "Installing the MCP server")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .._i18n import M_, tr
from ..exceptions import ValidationError
from .output import emit_json


def _install(args: argparse.Namespace) -> int:
    from ..service import agent_install as svc

    target = svc.target_named(args.target)
    project = getattr(args, "project", None)
    folder = Path(project).expanduser().resolve() if project else None
    if folder is not None and not folder.is_dir():
        # The tool's project file goes in a folder: an id or a typo would make one elsewhere.
        raise ValidationError(
            M_("{path} is not a folder: give the project's folder", path=folder), field="--project"
        )
    path = svc.config_file(target, project=folder, **svc.default_paths())
    if args.uninstall:
        result = svc.uninstall(target, path, dry_run=args.dry_run)
    else:
        token = None
        if args.url:
            from ..service.http_credential import HttpCredential

            token = HttpCredential(getattr(args, "home", None)).token()
        entry = svc.entry_for(
            target,
            project=folder,
            memory_home=getattr(args, "home", None),
            url=args.url,
            token=token,
            command=svc.server_command(),
        )
        result = svc.install(target, path, entry, dry_run=args.dry_run)
    if getattr(args, "json", False):
        emit_json(result.to_dict())
        return 0
    if result.diff:
        sys.stdout.write(result.diff)
    said = {
        "installed": tr("{target}: added the jupyter-memory server to {path}"),
        "updated": tr("{target}: updated the jupyter-memory server in {path}"),
        "unchanged": tr("{target}: {path} already has this jupyter-memory server"),
        "removed": tr("{target}: took the jupyter-memory server out of {path}"),
        "restored": tr("{target}: {path} is back to what it was before the install"),
        "absent": tr("{target}: {path} has no jupyter-memory server"),
    }[result.action]
    if args.dry_run and result.action not in ("unchanged", "absent"):
        said = tr("(dry run, nothing written) ") + said
    print(said.format(target=result.target, path=result.path))
    if result.backup is not None:
        print(tr("backup of the file before: {path}").format(path=result.backup))
    if not args.uninstall and result.action != "unchanged" and not args.dry_run:
        print(tr("check: {how}").format(how=result.check))
    return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "install",
        parents=[common],
        help=tr("put the jupyter-memory MCP server in an agent's own configuration file"),
        description=tr(
            "Targets: claude-code, codex, cursor, vscode, claude-desktop, jupyter-ai. "
            "Merged with what the file holds (other servers and settings are kept), a backup "
            "beside it, --uninstall takes out exactly what was added. --project DIR: that "
            "project's file (.mcp.json, .codex/config.toml, .cursor/mcp.json, .vscode/mcp.json, "
            ".jupyter/mcp_settings.json) instead of your user's."
        ),
    )
    p.add_argument("target", metavar="TARGET", help=tr("the tool to configure"))
    p.add_argument(
        "--dry-run", action="store_true", help=tr("print the change (a diff), write nothing")
    )
    p.add_argument(
        "--uninstall", action="store_true", help=tr("take the jupyter-memory server out again")
    )
    p.add_argument(
        "--url",
        default=None,
        help=tr(
            "an HTTP server's URL (jupyter-memory mcp --http) instead of stdio; "
            "the token goes in the Authorization header"
        ),
    )
    p.set_defaults(func=_install)
