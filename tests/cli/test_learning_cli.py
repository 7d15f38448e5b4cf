"""``jupyter-memory learning``: candidates with evidence and thresholds; reject, promote."""

from __future__ import annotations

import json

from jupyter_memory import Memory
from jupyter_memory.cli.main import main


def _correct(home, session: str, reply: str = "no, use npm not yarn") -> None:
    with Memory(home=home) as mem:
        mem.hooks.digest_record(
            session,
            [
                {"id": "a", "role": "assistant", "text": "I'll run yarn add pandas-profiling"},
                {"id": "u", "role": "user", "text": reply},
            ],
        )
        mem.digest()


def test_learning_lists_candidates_with_evidence_and_thresholds(tmp_path, capsys):
    home = tmp_path / "home"
    _correct(home, "kernel-1")
    _correct(home, "kernel-2", "不对，应该用 npm 安装依赖")
    assert main(["--home", str(home), "learning"]) == 0
    out = capsys.readouterr().out
    assert "2 candidate rule(s)" in out and "at least 5 pieces of evidence" in out
    assert "[collecting] Use npm, not yarn." in out and "'no, use npm not yarn'" in out
    assert "应该用 npm 安装依赖。" in out and "kernel-2" in out
    assert main(["--home", str(home), "learning", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["thresholds"]["min_confidence"] == 0.9 and report["count"] == 2
    assert {c["status"] for c in report["candidates"]} == {"collecting"}


def test_reject_with_a_reason_then_promote(tmp_path, capsys):
    home = tmp_path / "home"
    _correct(home, "kernel-1")
    key = "use npm, not yarn"
    assert main(["--home", str(home), "learning", "reject", key, "--reason", "we use pnpm"]) == 0
    assert "rejected use npm, not yarn: we use pnpm" in capsys.readouterr().out
    assert main(["--home", str(home), "learning", "--json"]) == 0
    (cand,) = json.loads(capsys.readouterr().out)["candidates"]
    assert cand["status"] == "rejected" and cand["dismissals"][0]["reason"] == "we use pnpm"
    assert main(["--home", str(home), "learning", "promote", key]) == 0
    assert "proposed as " in capsys.readouterr().out
    with Memory(home=home) as mem:
        (p,) = mem.queue()
        assert p.source == "correction" and p.evidence_quote == "no, use npm not yarn"


def test_unknown_key_and_missing_reason_are_errors(tmp_path, capsys):
    home = tmp_path / "home"
    assert main(["--home", str(home), "learning", "promote", "nope"]) == 1
    assert "no candidate rule 'nope'" in capsys.readouterr().err
    _correct(home, "kernel-1")
    assert (
        main(["--home", str(home), "learning", "reject", "use npm, not yarn", "--reason", " "]) == 1
    )
    assert "reason" in capsys.readouterr().err


def test_dismiss_with_a_reason_rejects_the_learned_rule(tmp_path, capsys):
    home = tmp_path / "home"
    _correct(home, "kernel-1")
    assert main(["--home", str(home), "learning", "promote", "use npm, not yarn", "--json"]) == 0
    pid = json.loads(capsys.readouterr().out)["proposal_id"]
    assert main(["--home", str(home), "dismiss", pid, "--reason", "we use pnpm"]) == 0
    assert "dismissed" in capsys.readouterr().out
    assert main(["--home", str(home), "learning", "--json"]) == 0
    (cand,) = json.loads(capsys.readouterr().out)["candidates"]
    assert cand["status"] == "rejected" and cand["dismissals"][0]["reason"] == "we use pnpm"
