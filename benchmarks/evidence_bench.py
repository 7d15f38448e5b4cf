"""What checking an agent's quote against the project's notebooks costs (issue 13 figure).

A project with ``--notebooks`` saved notebooks (``--cells`` cells each, half
of them code cells with a 2 KB output) and a full ``recent/person-text.json``.
Each proposal runs ``AgentAccess.propose`` (its own conversation, so the
allowance never decides):

* ``recent``: the quote is a recent chat message (no notebook is read);
* ``oldest_cold``: the quote is in the oldest notebook, nothing cached (the
  walk, then every notebook parsed);
* ``oldest_warm``: the same with the parsed cells cached (a second proposal);
* ``refused_warm``: a quote found nowhere (every source read, then refused).

Prints one JSON object of milliseconds.

Usage: ``python benchmarks/evidence_bench.py [--notebooks 200] [--cells 30] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import nbformat

from jupyter_memory import Memory
from jupyter_memory.exceptions import ValidationError
from jupyter_memory.service.agent_access import AgentAccess
from jupyter_memory.store.knowledge import notebook_cells


def build(base: Path, notebooks: int, cells: int) -> Path:
    project = base / "proj"
    for n in range(notebooks):
        nb = nbformat.v4.new_notebook()
        for c in range(cells):
            if c % 2:
                cell = nbformat.v4.new_code_cell(f"# step {n}-{c}\ndf_{c} = load({n}, {c})")
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * 2048)]
            else:
                cell = nbformat.v4.new_markdown_cell(f"Notebook {n} cell {c}: why this step")
            nb.cells.append(cell)
        path = project / f"part-{n // 50}" / f"nb-{n:04d}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(path))
        os.utime(path, (1_700_000_000 + n, 1_700_000_000 + n))  # nb-0000 is the oldest
    return project


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notebooks", type=int, default=200)
    parser.add_argument("--cells", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    out: dict[str, object] = {"notebooks": args.notebooks, "cells": args.cells}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project = build(base, args.notebooks, args.cells)
        with Memory(base / "home", project=project) as mem:
            person = AgentAccess(mem)
            for i in range(64):
                person.record_person_text(f"Recent message {i}: orders are counted once {i}")
            calls = 0

            def propose(quote: str) -> float:
                nonlocal calls
                calls += 1
                access = AgentAccess(mem, project="proj", conversation=f"bench-{calls}")
                t0 = time.perf_counter()
                with contextlib.suppress(ValidationError):
                    access.propose(f"Bench rule {calls} for the report.", "rule", quote)
                return (time.perf_counter() - t0) * 1000

            def runs(quote: str, cold: bool) -> float:
                times = []
                for _ in range(args.repeat):
                    if cold:
                        notebook_cells._CACHE.clear()
                    times.append(propose(quote))
                return round(statistics.median(times), 1)

            out["recent_ms"] = runs("orders are counted once 63", cold=False)
            out["oldest_cold_ms"] = runs("Notebook 0 cell 2: why this step", cold=True)
            out["oldest_warm_ms"] = runs("Notebook 0 cell 2: why this step", cold=False)
            out["refused_warm_ms"] = runs("a sentence nobody wrote anywhere", cold=False)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
