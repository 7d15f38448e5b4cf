"""``%load_ext jupyter_memory`` and a plain cell run without the identity analysis.

The identity analysis (core/knowledge/identity*.py, a few hundred compiled
patterns, ~0.2 s of CPU) decides whether two entries are one; loading the
extension and a cell that proposes nothing decide nothing, so they must not pay
that import (the first cell builds the service and its ``memory_context``). Run in a fresh
interpreter, since this process may have imported it already.
"""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, sys
from IPython.testing.globalipapp import start_ipython
ip = start_ipython()
ip.run_line_magic("load_ext", "jupyter_memory")
print(json.dumps({
    "magics": sorted(ip.magics_manager.magics["line"]),
    "loaded": sorted(m for m in sys.modules if m.startswith("jupyter_memory.core.knowledge.")),
}))
ip.run_cell("x = 1")
print(json.dumps({
    "context": "memory_context" in ip.user_ns,
    "loaded": sorted(m for m in sys.modules if m.startswith("jupyter_memory.core.knowledge.")),
}))
"""


def test_load_ext_registers_the_magics_without_the_identity_analysis() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    loaded_ext, after_cell = (json.loads(line) for line in done.stdout.strip().splitlines()[-2:])
    assert {"remember", "recall", "forget", "memories", "memory"} <= set(loaded_ext["magics"])
    assert after_cell["context"], "the first cell set no memory_context"
    for report in (loaded_ext, after_cell):
        loaded = set(report["loaded"])
        assert "jupyter_memory.core.knowledge.identity_analysis" not in loaded
        assert "jupyter_memory.core.knowledge.identity" not in loaded
        assert "jupyter_memory.core.knowledge.dedup" not in loaded
