"""``jupyter-memory archive``: move cold, stale memories to ``.old/`` (spec 003), reversibly."""

from __future__ import annotations

import argparse
from typing import Any

from .._i18n import tr
from .output import emit_json, open_memory


def _archive(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        if args.restore:
            result: Any = mem.restore(args.restore).to_dict()
        elif args.list:
            result = [item.to_dict() for item in mem.hooks.archived()]
        else:
            result = mem.archive(dry_run=args.dry_run).to_dict()
    if args.json:
        emit_json(result)
    elif args.restore:
        print(tr("restored {id}").format(id=result["id"]) + f"\n  {result['path']}")
    elif args.list:
        for item in result:
            print(f"{item['id']}  [{item['layer']}]  {item['name']}")
        if not result:
            print(tr("no archived memories"))
    else:
        said = (
            tr("would archive {n} memories (attention < 0.1, untouched for 90+ days)")
            if result["dry_run"]
            else tr("archived {n} memories (attention < 0.1, untouched for 90+ days)")
        )
        print(said.format(n=result["count"]))
        for item in result["archived"]:
            print(f"  {item['id']}  {item['attention']:.3f}  {item['title']}")
    return 0


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "archive",
        parents=[common],
        help=tr("move memories with attention < 0.1 untouched for 90+ days to .old/ (reversible)"),
    )
    p.add_argument("--dry-run", action="store_true", help=tr("only list what would move"))
    p.add_argument("--list", action="store_true", help=tr("list archived memories"))
    p.add_argument("--restore", metavar="ID", help=tr("bring an archived memory back"))
    p.set_defaults(func=_archive)
