"""``jupyter-memory import-from SOURCE PATH``: bring notes and rules from other tools."""

from __future__ import annotations

import argparse
from typing import Any

from .._i18n import tr
from ..core.imports.drafts import SOURCES
from .output import emit_json, open_memory, shows_progress


def _import_from(args: argparse.Namespace) -> int:
    # The importer and the bars load only for an import, not for every command's parser.
    from ..widgets.progress import TqdmProgress

    bar = TqdmProgress() if shows_progress(args) else None
    # A dry run must not register --project (open_memory would focus it).
    opened = argparse.Namespace(**{**vars(args), "project": None}) if args.dry_run else args
    with open_memory(opened) as mem:
        report = mem.import_from(
            args.source, args.path, args.project, dry_run=args.dry_run, progress=bar
        )
    if args.json:
        emit_json(report.to_dict())
    else:
        print(report.localized_summary())
    return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "import-from",
        parents=[common],
        help=tr("import notes, rules or memories from another tool (docs/import.md)"),
    )
    p.add_argument("source", choices=SOURCES, help=tr("the tool the files come from"))
    p.add_argument("path", help=tr("its folder or file"))
    p.add_argument(
        "--dry-run", action="store_true", help=tr("show what would happen, write nothing")
    )
    p.set_defaults(func=_import_from)
