"""``jupyter-memory get`` and ``recall`` show which memory supersedes which (issue 33)."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_main


def _cli(home: Path, *argv: str) -> str:
    """In this process: what the commands print (the process boundary has its own tests)."""
    done = run_main([*argv, "--home", str(home)])
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_cli_remember_links_the_update_and_get_and_recall_show_it(memory_home: Path) -> None:
    _cli(memory_home, "remember", "The nightly export runs at 6am.")
    _cli(memory_home, "remember", "The nightly export runs at 7am.")
    out = _cli(memory_home, "recall", "nightly export 6am").splitlines()
    lines = [line for line in out if not line.startswith("       ")]  # a hit's first line
    new_id, old_id = (line.split()[1] for line in lines[:2])
    assert "7am" in lines[0] and "superseded" not in lines[0]
    assert "6am" in lines[1] and f"(superseded by {new_id})" in lines[1]
    assert any(line.strip().startswith("manual · ") for line in out)  # provenance (L2)
    assert f"supersedes: {old_id}" in _cli(memory_home, "get", new_id)
    assert f"superseded by: {new_id}" in _cli(memory_home, "get", old_id)
