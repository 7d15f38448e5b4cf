"""``jupyter-memory import-from SOURCE PATH``: bring notes and rules from other tools."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..service.imports.importer import SOURCES
from .output import emit_json, open_memory


class _Bar:
    """A tqdm bar per stage, on stderr; nothing when stderr is not a terminal."""

    def __init__(self) -> None:
        self._bar: Any = None

    def stage(self, name: str, total: int | None) -> None:
        from tqdm import tqdm

        self.close()
        self._bar = tqdm(total=total, desc=name, unit="item", file=sys.stderr, leave=False)

    def advance(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _import_from(args: argparse.Namespace) -> int:
    bar = _Bar() if not args.json and sys.stderr.isatty() else None
    # A dry run must not register --project (open_memory would focus it).
    opened = argparse.Namespace(**{**vars(args), "project": None}) if args.dry_run else args
    with open_memory(opened) as mem:
        report = mem.import_from(
            args.source, args.path, args.project, dry_run=args.dry_run, progress=bar
        )
    if args.json:
        emit_json(report.to_dict())
    else:
        print(report.summary())
    return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "import-from",
        parents=[common],
        help="import notes, rules or memories from another tool (docs/import.md)",
    )
    p.add_argument("source", choices=SOURCES, help="the tool the files come from")
    p.add_argument("path", help="its folder or file")
    p.add_argument("--dry-run", action="store_true", help="show what would happen, write nothing")
    p.set_defaults(func=_import_from)
