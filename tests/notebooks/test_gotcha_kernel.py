"""In a real kernel run by nbclient: the same error three times in a session, the
last time from a one-token cell, leaves an unreviewed auto-gotcha memory quoting
that cell, and jupyter-memory prints nothing under the person's cells.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory import Memory
from tests.support.kernels import execute, kernel_env, new_notebook

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext jupyter_memory",
    "total = refund_q3 + 1",  # NameError: name 'refund_q3' is not defined
    "print(refund_q3)",
    "refund_q3",  # the third time, a one-token failing line
    "%memory status",
]


def test_three_failures_leave_an_auto_gotcha_memory_and_no_error_output(tmp_path: Path) -> None:
    home = tmp_path / "home"
    nb = new_notebook(CELLS)
    # allow_errors: the three failing cells are the point
    execute(nb, tmp_path, kernel_env(JUPYTER_MEMORY_HOME=str(home)), allow_errors=True)
    errors = [o for c in nb.cells for o in c.outputs if o.output_type == "error"]
    assert [e.ename for e in errors] == ["NameError"] * 3  # the person's own errors only
    streams = [o for c in nb.cells for o in c.outputs if o.output_type == "stream"]
    assert not [o for o in streams if o.name == "stderr"], streams
    assert "suggestion round failed" not in str(nb.cells)
    status = "".join(
        str(o.get("data", {}).get("text/plain", "")) + o.get("text", "")
        for o in nb.cells[-1].outputs
    )
    assert "last gotcha:  NameError: name 'refund_q3' is not defined" in status
    assert "too short to quote" not in status  # refund_q3 is long enough to be the quote
    with Memory(home=home) as mem:
        (row,) = [r for r in mem.memories() if r["source"] == "auto-gotcha"]
        assert row["reviewed"] is False
        entry = mem.get(row["id"])
        assert [e.quote for e in entry.meta.evidence] == ["refund_q3"]  # the cell, verbatim
        assert "refund_q3" in entry.text
        (cand,) = mem.learning_candidates()
        assert cand.source == "gotcha" and cand.evidence == 1 and cand.status == "collecting"
        assert mem.queue() == []  # a proposal waits for the confidence gate


def test_a_cell_too_short_to_quote_is_said_in_status_not_under_the_cell(tmp_path: Path) -> None:
    home = tmp_path / "home"
    nb = new_notebook(["%load_ext jupyter_memory", "qz", "qz", "qz", "%memory status"])
    execute(nb, tmp_path, kernel_env(JUPYTER_MEMORY_HOME=str(home)), allow_errors=True)
    streams = [o for c in nb.cells for o in c.outputs if o.output_type == "stream"]
    assert not [o for o in streams if o.name == "stderr"], streams
    status = "".join(str(o.get("data", {}).get("text/plain", "")) for o in nb.cells[-1].outputs)
    assert "too short to quote" in status
    with Memory(home=home) as mem:
        (row,) = [r for r in mem.memories() if r["source"] == "auto-gotcha"]
        assert [e.quote for e in mem.get(row["id"]).meta.evidence] == ["qz"]
