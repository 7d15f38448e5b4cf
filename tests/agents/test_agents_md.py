"""``jupyter-memory agents-md sync``: real files on disk, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.cli.main import main
from jupyter_memory.core.knowledge.agents_block import AGENTS_MD_MAX_BYTES, find_block

PROJECT_RULE = "Revenue excludes refunds (口径：收入不含退款)."
USER_RULE = "Always state the currency of an amount."


@pytest.fixture
def seeded(memory_home: Path, project_dir: Path) -> Path:
    with Memory(memory_home, project=project_dir) as mem:
        mem.save_knowledge("user", f"## Rules\n- {USER_RULE}\n\n## Info\n")
        mem.save_knowledge(
            "project", f"## Rules\n- {PROJECT_RULE}\n\n## Info\n", project=project_dir
        )
        mem.propose("Pending idea never synced.", "info", "Pending idea never synced.")
    return project_dir


def sync(project: Path, *flags: str) -> int:
    return main(["agents-md", "sync", "--project", str(project), *flags])


def test_missing_files_are_created_only_with_create(
    seeded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert sync(seeded) == 1
    assert "pass --create" in capsys.readouterr().err
    assert not (seeded / "AGENTS.md").exists() and not (seeded / "CLAUDE.md").exists()

    assert sync(seeded, "--create") == 0
    agents = (seeded / "AGENTS.md").read_text(encoding="utf-8")
    assert PROJECT_RULE in agents
    assert USER_RULE not in agents  # the person's User layer stays theirs
    assert "Pending idea" not in agents  # queue items never reach an agent
    assert "<!-- BEGIN jupyter-memory" in agents and "hash:" in agents
    claude = (seeded / "CLAUDE.md").read_text(encoding="utf-8")
    assert "@AGENTS.md" in claude.splitlines()

    before = {p: (seeded / p).read_bytes() for p in ("AGENTS.md", "CLAUDE.md")}
    assert sync(seeded) == 0
    assert "up to date" in capsys.readouterr().out
    assert {p: (seeded / p).read_bytes() for p in before} == before


def test_include_user_adds_the_user_layer(seeded: Path) -> None:
    assert sync(seeded, "--create", "--include-user") == 0
    agents = (seeded / "AGENTS.md").read_text(encoding="utf-8")
    assert USER_RULE in agents and PROJECT_RULE in agents


def test_the_persons_text_is_kept_and_remove_restores_it(seeded: Path) -> None:
    original = b"# Team notes\r\n\r\nUse ruff.\r\nNo trailing newline"
    (seeded / "AGENTS.md").write_bytes(original)
    (seeded / "CLAUDE.md").write_bytes(b"See @AGENTS.md too\n@AGENTS.md\n")
    assert sync(seeded) == 0
    synced = (seeded / "AGENTS.md").read_bytes()
    assert synced.startswith(original) and PROJECT_RULE.encode() in synced
    assert b"\r\n<!-- END jupyter-memory -->\r\n" in synced  # the file's own line endings
    assert (seeded / "CLAUDE.md").read_bytes() == b"See @AGENTS.md too\n@AGENTS.md\n"

    assert sync(seeded, "--remove") == 0
    assert (seeded / "AGENTS.md").read_bytes() == original


def test_a_hand_edited_block_is_not_overwritten(
    seeded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert sync(seeded, "--create") == 0
    path = seeded / "AGENTS.md"
    edited = path.read_text(encoding="utf-8").replace("excludes refunds", "includes refunds")
    path.write_text(edited, encoding="utf-8")
    capsys.readouterr()

    assert sync(seeded) == 1
    out = capsys.readouterr().out
    assert "edited by hand" in out and "--force" in out
    assert "includes refunds" in out and "excludes refunds" in out  # the diff
    assert path.read_text(encoding="utf-8") == edited
    assert sync(seeded, "--remove") == 1 and path.read_text(encoding="utf-8") == edited

    assert sync(seeded, "--force") == 0
    assert "excludes refunds" in path.read_text(encoding="utf-8")
    found = find_block(path.read_text(encoding="utf-8"))
    assert found is not None and not found.edited


def test_catalog_mode_keeps_agents_md_under_32_kib(
    memory_home: Path, project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = "\n".join(
        f"- 口径{i:03d}：本项目收入按含税金额统计，退款不计入。" for i in range(190)
    )
    with Memory(memory_home, project=project_dir) as mem:
        mem.save_knowledge("project", f"## Rules\n{entries}\n\n## Info\n", project=project_dir)
    (project_dir / "AGENTS.md").write_text("# Notes\n\n" + "团队约定。" * 1_500 + "\n", "utf-8")
    assert sync(project_dir, "--json") == 0
    report = json.loads(capsys.readouterr().out)
    agents = report["files"][0]
    assert agents["mode"] == "catalog"
    data = (project_dir / "AGENTS.md").read_bytes()
    assert len(data) <= AGENTS_MD_MAX_BYTES and agents["bytes"] == len(data)
    assert "expand" in data.decode("utf-8") and "口径000" in data.decode("utf-8")


def test_memory_disabled_shares_nothing(seeded: Path, memory_home: Path) -> None:
    with Memory(memory_home) as mem:
        mem.update_settings(enabled=False)
    assert sync(seeded, "--create") == 0
    agents = (seeded / "AGENTS.md").read_text(encoding="utf-8")
    assert PROJECT_RULE not in agents and "switched off" in agents


def test_a_missing_project_folder_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert sync(tmp_path / "nope", "--create") == 1
    assert "does not exist" in capsys.readouterr().err
