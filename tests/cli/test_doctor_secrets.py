"""``jupyter-memory doctor`` names stored secrets; ``--fix`` redacts the derived files (issue 29)."""

from __future__ import annotations

import json
from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.store.knowledge.person_text import PersonTextLog
from jupyter_memory.store.learning.digest_store import DigestStore
from tests.support.cli import run_main

PASSWORD = "Sup3rS3cretPw"
CELL = f'dsn = "postgresql://analyst:{PASSWORD}@db.internal:5432/sales"'


def _doctor(home: Path, *flags: str) -> tuple[int, dict]:
    proc = run_main(["doctor", "--home", str(home), *flags, "--json"])  # in this process
    assert PASSWORD not in proc.stdout + proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_doctor_names_files_with_secrets_and_fix_redacts_the_derived_ones(
    memory_home: Path,
) -> None:
    # What an earlier version left: the cell verbatim in the recorded texts and the inbox.
    PersonTextLog(memory_home).append([{"role": "code", "text": CELL}])
    DigestStore(memory_home).append("kernel-1", [{"id": "1", "role": "user", "text": CELL}])
    with Memory(memory_home) as mem:
        kept = mem.remember(f"warehouse: {CELL}", allow_secret=True)
        mem.remember("Revenue excludes refunds")

    code, report = _doctor(memory_home)
    assert code == 1
    secrets = {p["path"]: p["message"] for p in report["problems"] if p["kind"] == "secret"}
    recent = str(memory_home / "recent" / "person-text.json")
    assert recent in secrets and kept.path in secrets
    assert any("/digest/inbox/" in p for p in secrets)
    assert all("dsn-password" in m for m in secrets.values())

    code, report = _doctor(memory_home, "--fix")
    assert recent in report["redacted"]
    left = [p["path"] for p in report["problems"] if p["kind"] == "secret"]
    assert left == [kept.path]  # the person's own memory: reported, never rewritten
    assert PASSWORD not in (memory_home / "recent" / "person-text.json").read_text("utf-8")
    assert PASSWORD in Path(kept.path).read_text("utf-8")
