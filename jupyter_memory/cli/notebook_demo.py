"""``jupyter-memory notebook-demo``: execute notebooks/quickstart.ipynb in a real kernel.

A fresh memory home and project folder are made in a new temporary folder
(or ``--out DIR``), the quickstart runs with nbclient in an ipykernel, and the
executed notebook and the files it wrote are listed at the end. Nothing in
the person's own memory home is touched.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from .._i18n import tr
from ..exceptions import NotFoundError

REPO_NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
# The wheel carries notebooks/ as jupyter_memory/_notebooks (pyproject force-include).
PACKAGED_NOTEBOOKS = Path(__file__).resolve().parents[1] / "_notebooks"


def notebooks_dir() -> Path:
    """Where the shipped notebooks are: inside the installed package, or the checkout."""
    return PACKAGED_NOTEBOOKS if PACKAGED_NOTEBOOKS.is_dir() else REPO_NOTEBOOKS


def find_notebook(name: str = "quickstart.ipynb") -> Path:
    path = notebooks_dir() / name
    if not path.is_file():
        raise NotFoundError(f"{path} not found: `jupyter-memory notebooks` lists what ships")
    return path


def run_notebook(source: Path, out_dir: Path, *, timeout: int = 180) -> Path:
    """Execute ``source`` with its own memory home under ``out_dir``; return the executed copy."""
    import nbformat
    from nbclient import NotebookClient

    home = out_dir / "memory-home"
    work = out_dir / "work"
    work.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(str(source), as_version=4)  # type: ignore[no-untyped-call]  # nbformat is untyped
    env = dict(os.environ, JUPYTER_MEMORY_HOME=str(home), QUICKSTART_WORKDIR=str(work))
    # As jupyter_server does: the kernel learns which notebook it runs, so markdown
    # cells are read from the file on disk as evidence.
    env["JPY_SESSION_NAME"] = str(source)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(work)}},
    )
    saved = dict(os.environ)
    os.environ.update(env)  # the kernel inherits this process's environment
    try:
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    executed = out_dir / source.name.replace(".ipynb", ".executed.ipynb")
    nbformat.write(nb, str(executed))  # type: ignore[no-untyped-call]  # nbformat is untyped
    return executed


def _tree(root: Path) -> list[str]:
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and ".index" not in p.parts and not p.name.endswith(".lock")
    )


def _run(args: argparse.Namespace) -> int:
    out = (
        Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="jupyter-memory-quickstart-"))
    )
    out.mkdir(parents=True, exist_ok=True)
    source = find_notebook(args.notebook)
    print(f"executing {source} in a real ipykernel …", flush=True)
    executed = run_notebook(source, out)
    print(f"\nexecuted notebook: {executed}")
    print(f"memory home:       {out / 'memory-home'}")
    for name in _tree(out / "memory-home"):
        print(f"  {name}")
    project = out / "work" / "sales-q3"
    print(f"project folder:    {project}")
    for name in _tree(project):
        print(f"  {name}")
    knowledge = project / ".jupyter-memory" / "knowledge.md"
    if knowledge.is_file():
        print(f"\n{knowledge}:\n{knowledge.read_text('utf-8')}")
    print("open it with: jupyter lab " + str(executed))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "notebook-demo", help=tr("execute notebooks/quickstart.ipynb against a fresh memory home")
    )
    p.add_argument(
        "--out", help=tr("folder for the executed notebook and files (default: a temp dir)")
    )
    p.add_argument("--notebook", default="quickstart.ipynb", help=tr("a notebook in notebooks/"))
    p.set_defaults(func=_run)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jupyter_memory.cli.notebook_demo")
    sub = parser.add_subparsers()
    register(sub)
    args = parser.parse_args(["notebook-demo", *(argv if argv is not None else sys.argv[1:])])
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
