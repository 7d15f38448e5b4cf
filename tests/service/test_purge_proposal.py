"""``dismiss --purge`` / ``queue purge ID``: a dismissed proposal's text leaves the files,
its hash stays so it is not suggested again (issue 29, finding 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.exceptions import ConflictError
from tests.support.cli import run_main

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
    home = ["--home", str(memory_home)]
    run = run_main(["dismiss", first, "--purge", *home])  # in this process: what it says
    assert run.returncode == 0 and "purged" in run.stdout, run.stderr
    assert run_main(["dismiss", second, *home]).returncode == 0
    run = run_main(["queue", "purge", second, *home, "--json"])
    assert json.loads(run.stdout) == {"id": second, "status": "purged"}
    bad = run_main(["queue", "purge", *home])
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert _leaks(memory_home) == []
