"""``jupyter-memory digest validate``: verdicts on stdout, exit 0; unreadable inputs exit 1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_memory.cli.main import main

BATCH = {
    "session_key": "kernel-1",
    "messages": [
        {
            "id": "m1",
            "role": "user",
            "text": "We decided to add refunds to the weekly export because audit asks.",
            "timestamp": 1767225600000,
            "recorded_at": "2026-01-01T00:00:10Z",
        },
        {
            "id": "m2",
            "role": "user",
            "text": "我们决定按下单日统计收入，因为财务按下单日结账。",
            "timestamp": None,
            "recorded_at": "2026-01-01T00:00:20Z",
        },
    ],
}
POOL = [{"id": "sc0001", "label": "sales-q3｜weekly export"}]
OUTPUT = [
    {
        "scene_id": "sc0001",
        "message_ids": ["m1", "m2"],
        "memories": [
            {
                "content": "Add refunds to the sales-q3 weekly export.",
                "type": "work_task",
                "priority": 80,
                "source_message_ids": ["m1"],
                "metadata": {},
            },
            {
                "content": "sales-q3 按下单日统计收入。",
                "type": "work_fact",
                "priority": 65,
                "source_message_ids": ["m2"],
                "metadata": {},
            },
        ],
    },
    {
        "scene_id": "sc0404",
        "message_ids": ["m2"],
        "memories": [
            {
                "content": "收入口径以财务月报为准。",
                "type": "work_fact",
                "priority": 90,
                "source_message_ids": ["m2"],
                "metadata": {},
            }
        ],
    },
]


def write(path: Path, value) -> str:
    path.write_text(
        value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), encoding="utf-8"
    )
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    return {
        "batch": write(tmp_path / "batch.json", BATCH),
        "pool": write(tmp_path / "pool.json", POOL),
        "output": write(tmp_path / "output.json", OUTPUT),
    }


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_json_reports_accepted_and_rejected_with_rules(capsys, files):
    code, out, _ = run(
        capsys,
        "digest",
        "validate",
        "--batch",
        files["batch"],
        "--output",
        files["output"],
        "--pool",
        files["pool"],
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"accepted", "rejected"}
    assert [m["content"] for m in data["accepted"]] == [
        "Add refunds to the sales-q3 weekly export."
    ]
    assert data["accepted"][0]["event_start"] == "2026-01-01T00:00:00.000Z"
    assert [(r["rule"], r["record"]["priority"]) for r in data["rejected"]] == [
        ("priority_below_70", 65),
        ("invented_scene_id", 90),
    ]
    assert all(r["message"] for r in data["rejected"])


def test_validate_text_output(capsys, files):
    code, out, _ = run(
        capsys,
        "digest",
        "validate",
        "--batch",
        files["batch"],
        "--output",
        files["output"],
        "--pool",
        files["pool"],
    )
    assert code == 0
    assert "accepted 1, rejected 2" in out and "invented_scene_id" in out


def test_without_pool_every_reuse_is_invented(capsys, files):
    code, out, _ = run(
        capsys,
        "digest",
        "validate",
        "--batch",
        files["batch"],
        "--output",
        files["output"],
        "--json",
    )
    assert code == 0
    assert {r["rule"] for r in json.loads(out)["rejected"]} == {"invented_scene_id"}


def test_output_that_is_not_json_is_a_rejection_not_an_error(capsys, files, tmp_path):
    fenced = write(tmp_path / "fenced.json", "```json\n[]\n```")
    code, out, _ = run(
        capsys, "digest", "validate", "--batch", files["batch"], "--output", fenced, "--json"
    )
    assert code == 0 and json.loads(out)["rejected"][0]["rule"] == "not_json"


@pytest.mark.parametrize("which", ["batch", "output", "pool"])
def test_missing_input_file_is_named(capsys, files, tmp_path, which):
    files[which] = str(tmp_path / f"missing-{which}.json")
    code, out, err = run(
        capsys,
        "digest",
        "validate",
        "--batch",
        files["batch"],
        "--output",
        files["output"],
        "--pool",
        files["pool"],
    )
    assert code != 0 and f"missing-{which}.json" in err and "no such file" in err
    assert out == ""


def test_unparseable_batch_names_file_and_line(capsys, files, tmp_path):
    bad = write(tmp_path / "bad-batch.json", '{"session_key": "k",\n "messages": [}')
    code, _, err = run(capsys, "digest", "validate", "--batch", bad, "--output", files["output"])
    assert code != 0 and "bad-batch.json:2" in err and "invalid JSON" in err


def test_batch_with_bad_field_names_file_and_field(capsys, files, tmp_path):
    bad = dict(BATCH, messages=[dict(BATCH["messages"][0], role="robot")])
    path = write(tmp_path / "role-batch.json", bad)
    code, out, _ = run(
        capsys, "digest", "validate", "--batch", path, "--output", files["output"], "--json"
    )
    assert code != 0
    error = json.loads(out)
    assert "role-batch.json" in error["message"] and "messages[0].role" in error["message"]


def test_console_script_runs(files):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter_memory.cli.main",
            "digest",
            "validate",
            "--batch",
            files["batch"],
            "--output",
            files["output"],
            "--pool",
            files["pool"],
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["accepted"]) == 1


def test_digest_run_stores_unreviewed_memories_and_reports(capsys, memory_home):
    from jupyter_memory import Memory

    with Memory(home=memory_home) as mem:
        mem.hooks.digest_record("kernel-1", BATCH["messages"])
    code, out, _ = run(capsys, "digest", "--json")
    assert code == 0
    report = json.loads(out)
    assert [b["stored"] for b in report["batches"]] == [2]
    assert {s["type"] for s in report["stored"]} == {"work_fact"}
    code, out, _ = run(capsys, "digest")
    assert code == 0 and "nothing new to digest" in out
    code, out, _ = run(capsys, "list", "--json")
    rows = json.loads(out)
    assert all(r["source"] == "session-digest" and r["reviewed"] is False for r in rows)
