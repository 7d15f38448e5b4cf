"""What a start costs: ``from jupyter_memory import Memory``, ``jupyter-memory --version``
and ``jupyter-memory recall`` end to end, against a bare ``python -c pass`` in the same run.

Every CLI call and every MCP stdio server pays these; the MCP rows set our server's
import beside the SDK's own. The machine is shared, so
each figure is the median of ``--runs`` runs interleaved with the baseline's, and
is given as well as a ratio to it (``x_pass``), which drifts less with the load;
``cpu_ms`` (user + system of the child) drifts less than the wall time.
``importtime_*`` is ``python -X importtime``'s breakdown of the Memory import and of
a lexical recall in Python on the small home: the heaviest modules by cumulative
time, and the total per top-level package (self time). The import opens nothing
(the store and the domain services load with ``Memory()`` and its verbs), so
``Memory(), small home`` shows what opening a home costs.

Homes: ``empty`` (a new home), ``small`` (``--notes`` memories, lexical recall:
``JUPYTER_MEMORY_SEMANTIC=0``, and once more with the semantic extra on and none of
them embedded) and ``small_hybrid`` (the same memories embedded:
the query loads the embedder, which a lexical recall never does).

Usage: python benchmarks/startup_bench.py [--runs 9] [--notes 20] [--no-hybrid]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PY = sys.executable
CLI = [PY, "-m", "jupyter_memory.cli.main"]
# A user's machine writes bytecode once; a fresh interpreter then reads it.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, child CPU ms) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def _measure(cases: dict[str, tuple[list[str], dict[str, str]]], runs: int) -> dict[str, Any]:
    for cmd, env in cases.values():  # warm: bytecode written, files in the page cache
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    walls: dict[str, list[float]] = collections.defaultdict(list)
    cpus: dict[str, list[float]] = collections.defaultdict(list)
    for _ in range(runs):
        for name, (cmd, env) in cases.items():  # interleaved: the same load for each
            wall, cpu = _run(cmd, env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    base = statistics.median(walls["python -c pass"])
    return {
        name: {
            "wall_ms": round(statistics.median(walls[name]), 1),
            "cpu_ms": round(statistics.median(cpus[name]), 1),
            "x_pass": round(statistics.median(walls[name]) / base, 1),
        }
        for name in cases
    }


def _importtime(code: str) -> dict[str, Any]:
    done = subprocess.run(
        [PY, "-X", "importtime", "-c", code], env=ENV, capture_output=True, text=True, check=True
    )
    rows = []
    for line in done.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), m.group(4)))
    by_package: collections.Counter[str] = collections.Counter()
    for self_us, _, name in rows:
        by_package[name.split(".")[0]] += self_us
    heaviest = sorted(rows, key=lambda r: -r[1])[:15]
    return {
        "modules": len(rows),
        "ours": sum(1 for r in rows if r[2].startswith("jupyter_memory")),
        "total_self_ms": round(sum(r[0] for r in rows) / 1000, 1),
        "cumulative_ms": {name: round(cum / 1000, 1) for _, cum, name in heaviest},
        "self_ms_by_package": {k: round(v / 1000, 1) for k, v in by_package.most_common(12)},
    }


def _small_home(home: Path, notes: int, *, embedded: bool) -> None:
    env = dict(ENV, JUPYTER_MEMORY_HOME=str(home), JUPYTER_MEMORY_SEMANTIC="0")
    code = (
        "import sys\nfrom jupyter_memory import Memory\n"
        "with Memory(semantic=False) as m:\n"
        f"    for i in range({notes}):\n"
        "        m.remember(f'revenue note {i}: refunds are excluded in region {i}', "
        "title=f'note {i}')\n"
    )
    subprocess.run([PY, "-c", code], env=env, check=True)
    if embedded:
        code = (
            "from jupyter_memory import Memory\n"
            "with Memory(semantic=True) as m:\n"
            "    m.recall('revenue')\n"
            "    assert m.hooks.semantic.wait(timeout=600)\n"
        )
        subprocess.run([PY, "-c", code], env=dict(ENV, JUPYTER_MEMORY_HOME=str(home)), check=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--notes", type=int, default=20)
    ap.add_argument("--no-hybrid", action="store_true", help="skip the embedded home")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        empty, small, hybrid = Path(tmp) / "empty", Path(tmp) / "small", Path(tmp) / "hybrid"
        _small_home(small, args.notes, embedded=False)
        lexical = dict(ENV, JUPYTER_MEMORY_SEMANTIC="0")
        cases: dict[str, tuple[list[str], dict[str, str]]] = {
            "python -c pass": ([PY, "-c", "pass"], ENV),
            "import jupyter_memory": ([PY, "-c", "import jupyter_memory"], ENV),
            "from jupyter_memory import Memory": (
                [PY, "-c", "from jupyter_memory import Memory"],
                ENV,
            ),
            # The import opens nothing; the store and its models load here.
            "Memory(), small home": (
                [PY, "-c", f"from jupyter_memory import Memory\nMemory({str(small)!r}).close()"],
                lexical,
            ),
            "jupyter-memory --version": ([*CLI, "--version"], ENV),
            "recall, empty home": ([*CLI, "--home", str(empty), "recall", "x"], ENV),
            "recall, small home (lexical)": (
                [*CLI, "--home", str(small), "recall", "revenue"],
                lexical,
            ),
            # The extra on and nothing embedded yet (memories written where nothing
            # embeds): a command must not start the background embedder on its way out.
            "recall, small home (extra on, none embedded)": (
                [*CLI, "--home", str(small), "recall", "revenue"],
                ENV,
            ),
        }
        # An MCP server's start: our server module against the SDK's own import, which
        # pays jsonschema's RFC 3987 parser (agents/mcp_compat.py keeps it out of ours).
        cases["import the MCP SDK (mcp.server)"] = ([PY, "-c", "import mcp.server"], ENV)
        cases["import our MCP server"] = (
            [PY, "-c", "from jupyter_memory.agents.mcp_server import build_server"],
            ENV,
        )
        if not args.no_hybrid:
            _small_home(hybrid, args.notes, embedded=True)
            cases["recall, small home (hybrid)"] = (
                [*CLI, "--home", str(hybrid), "recall", "revenue"],
                ENV,
            )
        report = {
            "python": sys.version.split()[0],
            "load_before": os.getloadavg(),
            "runs": args.runs,
            "figures": _measure(cases, args.runs),
            "importtime_memory": _importtime("from jupyter_memory import Memory"),
            "importtime_recall": _importtime(
                "from jupyter_memory import Memory\n"
                f"with Memory({str(small)!r}, semantic=False) as m:\n    m.recall('revenue')"
            ),
            "load_after": os.getloadavg(),
        }
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
