"""Text read from stdin that is not UTF-8 is an error in that text, named, and nothing is stored (issue 16).

Before: ``remember -`` blamed the *title* (derived from the text) or ended in a
pydantic traceback; ``case note --body -`` and ``knowledge save`` failed in
other ways. Each command now says which field's text is not UTF-8 and where.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.exceptions import ValidationError
from tests.service.case_helpers import CASE, copy_sample

BAD = b"Revenue excludes refunds " + b"\xff\xfe" + " 收入".encode()


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".index" not in p.parts and not p.name.endswith(".lock")
    }


def _run(args: list[str], home: Path, cwd: Path, *, env: dict[str, str] | None = None):
    exe = shutil.which("jupyter-memory", path=str(Path(sys.executable).parent))
    assert exe, "the jupyter-memory command is not installed in this venv"
    return subprocess.run(
        [exe, *args],
        input=BAD,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, "JUPYTER_MEMORY_HOME": str(home), **(env or {})},
        timeout=120,
    )


@pytest.mark.parametrize("locale", ["C.UTF-8", "C"])
@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["remember", "-"], "text"),
        (["remember", "-", "--title", "a title"], "text"),
        (["knowledge", "save", "--layer", "user", "--force"], "text"),
        (
            ["case", "--workspace", "WS", "--case", CASE, "note", "observe", "T", "--body", "-"],
            "body",
        ),
    ],
)
def test_invalid_utf8_on_stdin_names_the_text_field(
    args: list[str], field: str, locale: str, memory_home: Path, tmp_path: Path
):
    ws = copy_sample(tmp_path)
    Memory(home=memory_home).remember("already stored")
    before = {**_tree(memory_home), **{f"ws/{k}": v for k, v in _tree(ws).items()}}
    args = [str(ws) if a == "WS" else a for a in args]
    proc = _run(args, memory_home, tmp_path, env={"LC_ALL": locale, "LANG": locale})
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 1, (proc.returncode, err)
    assert "Traceback" not in err, err
    assert f"{field}: " in err and "UTF-8" in err and "byte 25" in err, err
    assert "title" not in err, err
    after = {**_tree(memory_home), **{f"ws/{k}": v for k, v in _tree(ws).items()}}
    assert after == before


def test_the_service_refuses_text_that_cannot_be_utf8(mem):
    # What Python makes of undecodable bytes (surrogateescape) never reaches a file.
    with pytest.raises(ValidationError) as info:
        mem.remember("Revenue \udcff excludes refunds")
    assert info.value.field == "text" and "UTF-8" in str(info.value)
    with pytest.raises(ValidationError) as info:
        mem.remember("Revenue excludes refunds", title="bad \udcfe title")
    assert info.value.field == "title"
    assert mem.stats()["total"] == 0
