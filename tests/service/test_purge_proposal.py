"""``dismiss --purge`` / ``queue purge ID``: a dismissed proposal's text leaves the files,
its hash stays so it is not suggested again (issue 29, finding 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.exceptions import ConflictError

WORD = "vqxkzmbrelt"
TEXT = f"Always join the {WORD} table on account_id"


def _leaks(*folders: Path) -> list[str]:
    return [
        str(p)
        for folder in folders
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink() and WORD.encode() in p.read_bytes()
    ]


def test_purge_keeps_the_hash_and_no_byte_of_the_text(mem: Memory, memory_home: Path) -> None:
    pid = mem.propose(TEXT, "rule", TEXT, layer="user", messages=[TEXT])["id"]
    assert _leaks(memory_home)
    with pytest.raises(ConflictError):
        mem.hooks.purge(pid)  # pending: dismiss it first
    mem.dismiss(pid)
    assert WORD not in (memory_home / "audit.jsonl").read_text()  # ids, never slugs
    result = mem.hooks.purge(pid)
    assert result.to_dict() == {"id": pid, "status": "purged"}
    assert mem.hooks.purge(pid).to_dict() == {"id": pid, "status": "already_purged"}
    again = mem.propose(TEXT, "rule", TEXT, layer="user", messages=[TEXT])
    assert again["status"] == "skipped", again
    mem.close()
    assert _leaks(memory_home) == []
    assert json.loads((memory_home / "dismissed.json").read_text())


def test_cli_dismiss_purge_and_queue_purge(memory_home: Path) -> None:
    with Memory(memory_home) as mem:
        first = mem.propose(TEXT, "rule", TEXT, layer="user", messages=[TEXT])["id"]
        other = f"Revenue tables from {WORD} exclude refunds"
        second = mem.propose(other, "info", other, layer="user", messages=[other])["id"]
    cmd = [sys.executable, "-m", "jupyter_memory.cli.main"]
    home = ["--home", str(memory_home)]
    run = subprocess.run(
        [*cmd, "dismiss", first, "--purge", *home], capture_output=True, text=True, check=True
    )
    assert "purged" in run.stdout
    subprocess.run([*cmd, "dismiss", second, *home], capture_output=True, check=True)
    run = subprocess.run(
        [*cmd, "queue", "purge", second, *home, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(run.stdout) == {"id": second, "status": "purged"}
    bad = subprocess.run([*cmd, "queue", "purge", *home], capture_output=True, text=True)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert _leaks(memory_home) == []
