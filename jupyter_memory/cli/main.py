"""``jupyter-memory`` command line: a thin shell over the service.

Each command group lives in its own module exposing ``register(subparsers)``;
a parsed command carries ``func(args) -> int`` (the exit code).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import inspect
import os
import sys
from collections.abc import Sequence
from typing import Any

from .._i18n import tr
from .._i18n.argparse_words import ArgumentParser
from ..exceptions import JupyterMemoryError
from .output import fail, say_read_only, shown_stdout

# Command modules, in help order, and the commands each adds (a test checks the two
# agree): a command builds the parser of its own module only, so `recall` does not
# import the modules of two dozen other commands (a fifth of its start-up). Help,
# an unknown command or none builds them all.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "jupyter_memory.cli.memory_cmds": (
        "remember", "recall", "get", "forget", "list", "stats",
        "import", "export", "rebuild-index", "embed", "doctor",
    ),
    "jupyter_memory.cli.import_cmd": ("import-from",),
    "jupyter_memory.cli.knowledge_cmd": (
        "queue", "propose", "apply", "dismiss", "process-all", "revert",
        "knowledge", "context", "expand", "reorganize", "settings",
    ),
    "jupyter_memory.cli.team_cmd": ("project", "log", "merge-knowledge", "merge-proposal"),
    "jupyter_memory.cli.demo_cmd": ("demo",),
    "jupyter_memory.cli.agents_cmd": ("mcp", "agents-md"),
    "jupyter_memory.cli.install_cmd": ("install",),
    "jupyter_memory.cli.digest_cmd": ("digest",),
    "jupyter_memory.cli.learning_cmd": ("learning",),
    "jupyter_memory.cli.archive_cmd": ("archive",),
    "jupyter_memory.cli.case_cmd": ("case",),
    "jupyter_memory.cli.notebook_demo": ("notebook-demo",),
    "jupyter_memory.cli.notebooks_cmd": ("notebooks",),
}  # fmt: skip
_MODULE_OF = {command: module for module, cs in COMMAND_MODULES.items() for command in cs}
# The global options that take a value (``--home X``): what follows is not the command.
_VALUED = ("--home", "--project")


def command_module(argv: Sequence[str]) -> str | None:
    """The module of the command ``argv`` names, or ``None`` (help, none, an unknown one)."""
    args = iter(argv)
    for arg in args:
        if arg in _VALUED:
            next(args, None)
        elif arg.startswith("-"):
            if arg in ("-h", "--help"):
                return None
        else:
            return _MODULE_OF.get(arg)
    return None


def _options(*, suppress: bool) -> argparse.ArgumentParser:
    # Sub-commands repeat the global options with SUPPRESS defaults, so
    # `jupyter-memory --home X recall` and `jupyter-memory recall --home X` agree.
    default: object = argparse.SUPPRESS if suppress else None
    p = ArgumentParser(add_help=False)
    p.add_argument(
        "--home",
        default=default,
        help=tr("memory home (default: $JUPYTER_MEMORY_HOME or <jupyter data dir>/memory)"),
    )
    p.add_argument("--project", default=default, help=tr("project folder (or a known project id)"))
    p.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help=tr("print machine-readable JSON"),
    )
    return p


def _version_line() -> str:
    from .._version import __version__  # importlib.metadata: only for --version

    return f"jupyter-memory {__version__}"


class _VersionAction(argparse.Action):
    """argparse's ``version`` action, reading the installed version only when asked
    (every other command builds the same parser and never needs it)."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        parser._print_message(_version_line() + "\n", sys.stdout)
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only`` (a module of :data:`COMMAND_MODULES`)
    just that module's commands."""
    # Ours: argparse's own words (usage, options, its errors) in the person's language.
    parser = ArgumentParser(
        prog="jupyter-memory",
        description=tr("Governed memory for AI agents in Jupyter."),
        parents=[_options(suppress=False)],
    )
    parser.add_argument(
        "--version",
        action=_VersionAction,
        help=tr("show program's version number and exit"),
    )
    common = _options(suppress=True)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in [only] if only else COMMAND_MODULES:
        register = importlib.import_module(name).register
        # A module may take the shared options parser (--home/--project/--json) or not.
        if len(inspect.signature(register).parameters) >= 2:
            register(subparsers, common)
        else:
            register(subparsers)
    return parser


def _reader_gone() -> int:
    """The output's reader went away (``jupyter-memory recall x | head -1``): end quietly,
    with the status of a process SIGPIPE ended, as the shell tools do. Standard output
    goes to /dev/null first, or the interpreter's last flush would say it failed."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's StringIO)
        return 141
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
    return 141


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] and args_list[0] in ("merge-knowledge", "merge-proposal"):
        # Git runs a merge driver once per conflicting file during a pull: skip
        # building every command's parser (and its imports) for it.
        from .team_cmd import run_driver

        return run_driver(args_list)
    if args_list == ["--version"]:
        # What argparse's version action does (print, exit 0) without importing every command.
        print(_version_line())
        raise SystemExit(0)
    parser = build_parser(command_module(args_list))
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        with shown_stdout():  # one rule for stored text on the terminal (core/visible.py)
            return int(args.func(args) or 0)
    except JupyterMemoryError as exc:
        return fail(args, exc)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_gone()
    finally:
        say_read_only()


def run() -> int:
    """The ``jupyter-memory`` program (its console script, ``python -m``): :func:`main`,
    then what the command leaves in memory is kept out of the exit's collection."""
    try:
        return main()
    finally:
        # The interpreter's exit runs a garbage collection over every object the
        # command's imports made (pydantic's schemas, the models, the parsers): ~35 ms
        # of CPU of a 0.33 s recall on a small home, measured. By then the memories are
        # closed and the output is written; frozen objects are still freed as their
        # references go, only cycles among them are left to the process's end.
        gc.freeze()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
