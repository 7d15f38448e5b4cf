"""``%load_ext jupyter_memory`` loads the magics without the identity analysis.

The identity analysis (core/knowledge/identity*.py, a few hundred compiled
patterns, ~0.2 s of CPU) decides whether two entries are one; loading the
extension decides nothing, so it must not pay that import. Run in a fresh
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
"""


def test_load_ext_registers_the_magics_without_the_identity_analysis() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"remember", "recall", "forget", "memories", "memory"} <= set(report["magics"])
    loaded = set(report["loaded"])
    assert "jupyter_memory.core.knowledge.identity_analysis" not in loaded
    assert "jupyter_memory.core.knowledge.identity" not in loaded
    assert "jupyter_memory.core.knowledge.dedup" not in loaded
