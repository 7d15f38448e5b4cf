"""A command builds the parser of its own module only; help and unknown commands get all.

``jupyter-memory recall`` imported the modules of every command to build one
parser (about a fifth of its start-up). :data:`COMMAND_MODULES` names the
commands of each module; these tests hold it to what the modules register.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import subprocess
import sys

import pytest

from jupyter_memory.cli.main import COMMAND_MODULES, _options, build_parser, command_module


def _registered(module: str) -> list[str]:
    parser = argparse.ArgumentParser(prog="x")
    sub = parser.add_subparsers(dest="command")
    register = importlib.import_module(module).register
    if len(inspect.signature(register).parameters) >= 2:
        register(sub, _options(suppress=True))
    else:
        register(sub)
    return list(sub.choices)


@pytest.mark.parametrize("module", list(COMMAND_MODULES))
def test_each_module_adds_the_commands_it_is_listed_with(module: str) -> None:
    assert _registered(module) == list(COMMAND_MODULES[module])


def _choices(parser: argparse.ArgumentParser) -> list[str]:
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_the_full_parser_has_every_command_in_help_order() -> None:
    assert _choices(build_parser()) == [c for cs in COMMAND_MODULES.values() for c in cs]


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["recall", "refunds"], "memory_cmds"),
        (["--home", "recall", "apply", "p-1"], "knowledge_cmd"),  # a home named "recall"
        (["--project", "x", "--json", "case", "list"], "case_cmd"),
        (["--home=h", "digest"], "digest_cmd"),
        (["merge-knowledge"], "team_cmd"),
        (["--help"], None),
        (["-h", "recall"], None),
        (["--json"], None),
        ([], None),
        (["recal"], None),  # unknown: the full parser says which exist
    ],
)
def test_the_command_picks_its_module(argv: list[str], module: str | None) -> None:
    found = command_module(argv)
    assert (found.rsplit(".", 1)[1] if found else None) == module


def test_a_recall_imports_no_other_commands_module(tmp_path) -> None:
    code = (
        "import sys\n"
        "from jupyter_memory.cli.main import COMMAND_MODULES, main\n"
        "main(['recall', 'refunds', '--home', sys.argv[1]])\n"
        "print(sorted(m for m in COMMAND_MODULES if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['jupyter_memory.cli.memory_cmds']"


def test_an_unknown_command_is_refused_naming_the_commands() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from jupyter_memory.cli.main import main; main()", "recal"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "invalid choice: 'recal'" in done.stderr and "'recall'" in done.stderr
    assert "'case'" in done.stderr  # every command, not one module's
