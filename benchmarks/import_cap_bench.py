"""Peak memory of a mem0 import at the item cap, and of one refused over it (issue 29).

Writes a mem0 export of N items (about 127 bytes each, like the 199 MB export of
1.57 million items that took 2.9 GB to plan before the cap), runs
``Memory.import_from("mem0", file, dry_run=True)`` in a fresh child process and
prints its peak resident memory (``ru_maxrss``), its time and what the import
said. Run once at the cap and once over it:

    python benchmarks/import_cap_bench.py --items 100000
    python benchmarks/import_cap_bench.py --items 1570000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import json, resource, sys, time
from jupyter_memory import Memory
mem = Memory(home=sys.argv[2])
t0 = time.perf_counter()
try:
    report = mem.import_from("mem0", sys.argv[1], dry_run=True)
    said = report.summary().splitlines()[0]
except Exception as exc:  # the cap's ValidationError is the figure here
    said = f"{type(exc).__name__}: {exc}"
took = time.perf_counter() - t0
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": round(took, 2), "peak_rss_mb": round(peak_mb), "said": said[:160]}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "export.json"
        with export.open("w", encoding="utf-8") as fh:
            fh.write("[")
            for n in range(args.items):
                item = {"id": f"m-{n}", "memory": f"Fact {n}: revenue excludes refunds",
                        "user_id": "ana", "created_at": "2025-03-02T12:00:00Z"}  # fmt: skip
                fh.write(("," if n else "") + json.dumps(item))
            fh.write("]")
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(export), str(Path(tmp) / "home")],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        result = json.loads(out.stdout.strip().splitlines()[-1])
        result |= {"items": args.items, "file_mb": round(export.stat().st_size / 1e6, 1)}
        print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
