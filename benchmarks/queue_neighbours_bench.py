"""CPU cost of a queue page's neighbours among 5,000 pending proposals (issue 32 listing).

Seeds 5,000 pending proposals (tests/server/queue_seed.py), then times
``decision_context`` for pages of 100: the first page (cold: every pending text
analysed), a second page, and a refresh of the same page, with the neighbour
cache off (the baseline: the index built for every request, as before) and on.
Process CPU time; prints one JSON object with the load (``uptime``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_memory import Memory  # noqa: E402
from tests.server.queue_seed import seed_pending  # noqa: E402

N = 5_000
PAGE = 100


def _cpu(fn: object) -> float:
    t = time.process_time()
    fn()  # type: ignore[operator]
    return round(time.process_time() - t, 4)


def run(cached: bool, home: Path) -> dict[str, float]:
    mem = Memory(home=str(home))
    mem.hooks.knowledge_services.queue.neighbours.enabled = cached
    queue = mem.queue()
    ctx = mem.hooks.decision_context
    out = {
        "first_page_s": _cpu(lambda: ctx(queue[:PAGE])),
        "second_page_s": _cpu(lambda: ctx(queue[PAGE : 2 * PAGE])),
        "same_page_again_s": _cpu(lambda: ctx(queue[PAGE : 2 * PAGE])),
    }
    mem.close()
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        seed_pending(home, N)
        # The analyser's cache is process-wide: the first run pays the cold analysis.
        cold = run(False, home)
        baseline = run(False, home)
        cached = run(True, home)
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    ratio = {k: round(baseline[k] / max(cached[k], 1e-4), 1) for k in baseline}
    print(json.dumps({"pending": N, "page": PAGE, "cold_process": cold, "baseline": baseline,
                      "cached": cached, "baseline_over_cached": ratio, "load": load,
                      "cpus": os.cpu_count()}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
