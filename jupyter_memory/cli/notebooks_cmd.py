"""``jupyter-memory notebooks --out DIR``: the retrospective notebooks, copied to work in.

The quickstart, the memory retrospective and the case retrospective (with the
sample investigation workspace it reads) ship inside the package, so a person
who installed the wheel gets them without a source checkout.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .._i18n import tr
from ..store.notebook_copies import copy_notebooks, shipped_files
from .notebook_demo import notebooks_dir
from .output import emit_json

DEFAULT_OUT = "jupyter-memory-notebooks"


def _notebooks(args: argparse.Namespace) -> int:
    source = notebooks_dir()
    if args.list:
        names = [str(p) for p in shipped_files(source)]
        if args.json:
            emit_json({"source": str(source), "files": names})
        else:
            print("\n".join(names))
        return 0
    out = Path(args.out).expanduser()
    written = copy_notebooks(source, out, overwrite=args.force)
    notebooks = [p for p in written if p.suffix == ".ipynb"]
    if args.json:
        emit_json({"out": str(out.resolve()), "files": [str(p) for p in written]})
        return 0
    print(tr("copied {n} files into {out}:").format(n=len(written), out=out.resolve()))
    for path in notebooks:
        print(f"  {path.relative_to(out)}")
    extra = len(written) - len(notebooks)
    print(tr("  (+ {n} files of the sample case workspace)").format(n=extra))
    print(tr("open them with: jupyter lab {out}").format(out=out))
    print(
        tr("plots in case_retrospective.ipynb need matplotlib: pip install 'jupyter-memory[plots]'")
    )
    return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "notebooks",
        parents=[common],
        help=tr("copy the quickstart and retrospective notebooks into a folder"),
    )
    p.add_argument(
        "--out",
        default=DEFAULT_OUT,
        help=tr("folder to copy into (default: ./{folder})").format(folder=DEFAULT_OUT),
    )
    p.add_argument("--force", action="store_true", help=tr("overwrite files already there"))
    p.add_argument("--list", action="store_true", help=tr("only list the files that ship"))
    p.set_defaults(func=_notebooks)
