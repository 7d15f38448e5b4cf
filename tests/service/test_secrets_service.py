"""Secrets never stored (issue 29): every service door for the person's text, on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory.exceptions import SecretError

AWS_ID = "AKIAQX3VLDRKZ7Q4WN2M"
PASSWORD = "Sup3rS3cretPw"
DSN_CELL = f'engine = create_engine("postgresql://analyst:{PASSWORD}@db.internal:5432/sales")'
KEY_CELL = f'aws_access_key_id = "{AWS_ID}"'


def everything_under(*roots: Path) -> str:
    """Every byte of every file under the roots, names included, as text."""
    parts = []
    for root in roots:
        for path in root.rglob("*"):
            parts.append(str(path))
            if path.is_file():
                parts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def test_recorded_person_and_agent_texts_are_kept_redacted(mem, memory_home):
    mem.hooks.record_person_text([{"role": "code", "text": DSN_CELL, "cell_id": "c1"}])
    mem.hooks.record_agent_output(f"use key {AWS_ID} for that", "claude")
    stored = everything_under(memory_home)
    assert PASSWORD not in stored and AWS_ID not in stored
    assert "⟨redacted: dsn-password⟩" in stored and "⟨redacted: aws-access-key⟩" in stored


def test_the_digest_inbox_and_its_memories_see_only_redacted_text(mem, memory_home):
    mem.hooks.digest_record(
        "kernel-1",
        [
            {"id": "1", "role": "user", "text": DSN_CELL},
            {
                "id": "2",
                "role": "user",
                "text": f"remember: the password is {PASSWORD}; {KEY_CELL}",
            },
        ],
    )
    mem.digest()
    stored = everything_under(memory_home)
    assert PASSWORD not in stored and AWS_ID not in stored


def test_a_repeated_error_in_a_cell_with_a_secret_is_captured_redacted(mem, memory_home):
    cell = f"{KEY_CELL}\nboto3.client('s3').list_buckets()"
    for key in ("k1", "k2", "k3"):
        mem.hooks.capture_gotcha(
            key, "NoCredentialsError", "boto3.client('s3').list_buckets()", cell
        )
    assert AWS_ID not in everything_under(memory_home)


def test_a_proposal_holding_a_secret_is_refused_naming_the_kind(mem, memory_home):
    messages = [{"role": "user", "text": f"our warehouse DSN: {DSN_CELL}"}]
    with pytest.raises(SecretError) as err:
        mem.propose(f"Connect with {DSN_CELL}", "rule", DSN_CELL, messages=messages)
    assert err.value.kinds == ("dsn-password",)
    assert "dsn-password" in str(err.value) and PASSWORD not in str(err.value)
    with pytest.raises(SecretError) as err:
        mem.propose_knowledge("Use the sales warehouse", "info", DSN_CELL, messages=messages)
    assert err.value.field == "evidence_quote"
    assert mem.queue() == []
    assert PASSWORD not in everything_under(memory_home)


def test_remember_of_a_secret_is_refused_without_allow_secret(mem, memory_home):
    with pytest.raises(SecretError) as err:
        mem.remember(f"the warehouse password is {PASSWORD}", title=f"password {PASSWORD}")
    assert "--allow-secret" in str(err.value)
    assert PASSWORD not in everything_under(memory_home)


def test_allow_secret_keeps_it_in_the_user_layer_with_a_redacted_file_name(
    mem, memory_home, project_dir
):
    mem.focus(project_dir)
    entry = mem.remember(f"password = {PASSWORD}", allow_secret=True)
    assert entry.layer == "user"
    assert PASSWORD in Path(entry.path).read_text(encoding="utf-8")
    assert PASSWORD.lower() not in Path(entry.path).name.lower()
    audit = (memory_home / "audit.jsonl").read_text(encoding="utf-8")
    assert PASSWORD not in audit and PASSWORD.lower() not in audit.lower()
    assert PASSWORD not in everything_under(project_dir)
    context = mem.context(query="password")
    assert PASSWORD not in str(context)
    from jupyter_memory.service.agent_access import AgentAccess

    hits = AgentAccess(mem, agent="claude").recall("password")
    assert hits and all(PASSWORD not in str(h) for h in hits)
    with pytest.raises(SecretError) as err:
        mem.remember(f"password = {PASSWORD}", scope="project", allow_secret=True)
    assert err.value.field == "scope"
    assert PASSWORD not in everything_under(project_dir)


def test_ordinary_analysis_text_is_recorded_as_it_is(mem):
    cell = "token_count = 5\ndf['key'].value_counts()"
    mem.hooks.record_person_text([{"role": "code", "text": cell}])
    entry = mem.remember("Revenue excludes refunds; the API key lives in the vault")
    assert entry.text == "Revenue excludes refunds; the API key lives in the vault"
