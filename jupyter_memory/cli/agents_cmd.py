"""Agent commands: ``mcp`` (the MCP server) and ``agents-md sync``."""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from .._i18n import localized, tr
from ..exceptions import ValidationError
from .output import emit_json, open_memory

LOOPBACK = ("127.0.0.1", "localhost", "::1")
DEFAULT_PORT = 8765
AUTO = "auto"


def follow_folder_focus(mem: Any, folder: Path) -> Any:
    """``--project auto``: a callable that puts ``mem`` in the focus of ``folder``, now.

    The focus of the notebook focused last in that folder, else the registered
    project the folder is in, else none (docs/agents.md). Read before each
    tool call, so a re-focus in the notebook reaches the session; it never
    registers a project (the person's act) nor records a focus.
    """

    def follow() -> str | None:
        result: str | None = mem.hooks.adopt_focus(mem.hooks.focus_of(folder=folder))
        return result

    return follow


def _conversation(args: argparse.Namespace) -> str:
    """The key the 5-proposal allowance is counted under (docs/agents.md).

    Named by the person with --conversation; else, over stdio, the client
    process that started this server (a restarted server is the same
    conversation); over HTTP, this server process, whose tool calls count
    per client token (``mcp_server.build_server``'s ``per_client``); the
    process's key names its session digest.
    """
    if args.conversation is not None:
        if not args.conversation.strip() or len(args.conversation) > 100:
            raise ValidationError(tr("must be 1 to 100 characters"), field="--conversation")
        return f"named:{args.conversation}"
    if args.http:
        return f"mcp-http-{uuid.uuid4().hex[:12]}"
    from ..agents.conversation import stdio_conversation

    return stdio_conversation(args.agent)


def _token(args: argparse.Namespace) -> int:
    """``--print-token`` / ``--rotate-token``: the HTTP token on stdout, for a client's config."""
    from ..service.http_credential import HttpCredential

    credential = HttpCredential(args.home)
    token = credential.rotate() if args.rotate_token else credential.token()
    if args.json:
        emit_json({"token": token, "path": str(credential.path)})
    else:
        print(token)
    return 0


def _mcp(args: argparse.Namespace) -> int:
    if args.print_token or args.rotate_token:
        return _token(args)
    # jsonschema (imported by the MCP SDK) loads rfc3987_syntax when present, which
    # compiles a grammar at import: ~2 s of a server start budgeted at 1.5 s. The
    # server validates no IRI formats, so this process goes without that checker.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    # Imported here: the MCP SDK is an optional extra and slow to import.
    try:
        from ..agents.mcp_server import serve
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("mcp"):
            raise
        said = tr(
            "jupyter-memory: error: the MCP server needs the mcp package ({error});"
            " install it with: pip install 'jupyter-memory[mcp]'"
        )
        sys.stderr.write(said.format(error=exc) + "\n")
        return 1
    from ..service.agent_access import AgentAccess

    if args.http and args.host not in LOOPBACK:
        raise ValidationError(
            tr("{host}: the HTTP server only listens on this machine ({hosts})").format(
                host=repr(args.host), hosts=", ".join(LOOPBACK)
            ),
            field="--host",
        )
    auto = args.project == AUTO
    mem = open_memory(argparse.Namespace(home=args.home, project=None if auto else args.project))
    follow = None
    if auto:
        follow = follow_folder_focus(mem, Path.cwd())
        follow()
    access = AgentAccess(
        mem,
        agent=args.agent,
        project=mem.project_id,
        workspace=Path(args.workspace) if args.workspace else Path.cwd(),
        agent_writes=args.allow_agent_writes,
        conversation=_conversation(args),
    )

    def before_call() -> None:
        if follow is not None:
            access.project = mem.hooks.registered_project(pid) if (pid := follow()) else None

    credential = None
    if args.http:
        from ..service.http_credential import HttpCredential

        credential = HttpCredential(mem.home)
        credential.token()  # created on first use, so `--print-token` shows what is accepted
        said = tr(
            "jupyter-memory: MCP over HTTP at http://{host}:{port}/mcp; clients send "
            "Authorization: Bearer <token> (print it with: jupyter-memory mcp --print-token)"
        )
        sys.stderr.write(said.format(host=args.host, port=args.port) + "\n")
    try:
        serve(
            access,
            credential=credential,
            # A conversation the person named is theirs to share; else one per token.
            per_client=args.conversation is None,
            host=args.host,
            port=args.port,
            before_call=before_call,
        )
    finally:
        mem.close()
    return 0


def _agents_md_sync(args: argparse.Namespace) -> int:
    from ..service.knowledge.agents_md import sync_agents_md

    folder = args.project or os.getcwd()
    with open_memory(argparse.Namespace(home=args.home, project=None)) as mem:
        report = sync_agents_md(
            mem.hooks.knowledge_services.files,
            folder,
            create=args.create,
            remove=args.remove,
            force=args.force,
            include_user=args.include_user,
        )
    if args.json:
        emit_json(report.to_dict())
    else:
        for outcome in report.files:
            print(localized(outcome.message))
            if outcome.diff:
                print(outcome.diff, end="" if outcome.diff.endswith("\n") else "\n")
    return 1 if report.refused else 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "mcp",
        parents=[common],
        help=tr("serve the governed memory to MCP clients (stdio, or HTTP on 127.0.0.1)"),
        description=tr(
            "Tools: memory_context, expand_knowledge_catalog, propose_knowledge, "
            "recall, case_note, case_index (and remember with --allow-agent-writes). "
            "Resource: memory://context. --project auto: the project of the working folder "
            "(what you focused for the notebook there last, else the registered project the "
            "folder is in), re-read before each call; it never registers a folder."
        ),
    )
    p.add_argument(
        "--http",
        action="store_true",
        help=tr("serve streamable HTTP at /mcp (clients send the token of --print-token)"),
    )
    p.add_argument(
        "--print-token",
        action="store_true",
        help=tr("print the token HTTP clients send as Authorization: Bearer, and exit"),
    )
    p.add_argument(
        "--rotate-token",
        action="store_true",
        help=tr("replace the HTTP token (clients holding the old one are refused), print it, exit"),
    )
    p.add_argument("--host", default="127.0.0.1", help=tr("HTTP host (loopback only)"))
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=tr("HTTP port"))
    p.add_argument(
        "--agent", default="mcp", help=tr("name of the agent (its private memory scope)")
    )
    p.add_argument(
        "--allow-agent-writes",
        action="store_true",
        help=tr("offer the remember tool (memories stay unreviewed until you review them)"),
    )
    p.add_argument(
        "--workspace", help=tr("investigation workspace holding cases/ (default: current folder)")
    )
    p.add_argument(
        "--conversation",
        help=tr(
            "name the conversation this server serves (its 5 knowledge proposals are shared "
            "with every server started with the same name); default: the MCP client process "
            "(stdio) or the client's token (HTTP)"
        ),
    )
    p.set_defaults(func=_mcp)

    p = sub.add_parser("agents-md", help=tr("AGENTS.md / CLAUDE.md for coding agents"))
    p.set_defaults(func=lambda _args, _p=p: (_p.print_help(), 2)[1])
    agents_sub = p.add_subparsers(dest="agents_md_command", metavar="ACTION")
    s = agents_sub.add_parser(
        "sync",
        parents=[common],
        help=tr("write approved Project knowledge into a managed block of AGENTS.md"),
        description=tr(
            "Keeps a managed block in <project>/AGENTS.md and makes CLAUDE.md "
            "import it. A block edited by hand is not overwritten (the diff is shown)."
        ),
    )
    s.add_argument(
        "--create", action="store_true", help=tr("create AGENTS.md / CLAUDE.md if missing")
    )
    s.add_argument("--remove", action="store_true", help=tr("take the blocks out again"))
    s.add_argument(
        "--force", action="store_true", help=tr("overwrite or remove a hand-edited block")
    )
    s.add_argument(
        "--include-user",
        action="store_true",
        help=tr("also include your User knowledge (AGENTS.md is usually committed: think first)"),
    )
    s.set_defaults(func=_agents_md_sync)
