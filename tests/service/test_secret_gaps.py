"""A memory's new text and a case note pass the same secret check as remember (issue 29)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory.exceptions import SecretError
from jupyter_memory.service.cases.memory import CaseMemory
from tests.service.case_helpers import CASE, Clock, copy_sample

AWS_ID = "AKIAQX3VLDRKZ7Q4WN2M"


def test_update_refuses_a_secret_like_remember(mem, memory_home):
    entry = mem.remember("The warehouse is read-only on Sundays.")
    with pytest.raises(SecretError, match="aws-access-key") as caught:
        mem.update(entry.id, text=f"The warehouse key is {AWS_ID}")
    assert caught.value.field == "text"
    with pytest.raises(SecretError, match="aws-access-key"):
        mem.update(entry.id, title=f"key {AWS_ID}")
    assert not any(AWS_ID in p.read_text("utf-8", "replace")
                   for p in memory_home.rglob("*") if p.is_file())  # fmt: skip
    kept = mem.update(entry.id, text=f"The warehouse key is {AWS_ID}", allow_secret=True)
    assert kept.text.endswith(AWS_ID)  # the person's explicit choice, in the user layer
    assert mem.update(entry.id, tags=["ops"]).meta.tags == ["ops"]


def test_a_case_note_holding_a_secret_is_refused_and_nothing_written(tmp_path: Path):
    ws = copy_sample(tmp_path)
    before = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    cm = CaseMemory(ws, CASE, clock=Clock())
    with pytest.raises(SecretError, match="aws-access-key"):
        cm.note("observe", "境外付款账户", f"付款系统的访问密钥是 {AWS_ID}，见邮件。")
    with pytest.raises(SecretError, match="aws-access-key"):
        cm.note("observe", "境外付款账户", "见邮件。", hypotheses=[f"key {AWS_ID}"])
    after = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    assert after == before
