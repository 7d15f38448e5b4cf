"""AGENTS.md auto-sync after Apply: opt-in, never creates files, never hides the Apply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.cli.main import main
from jupyter_memory.exceptions import ValidationError
from jupyter_memory.service.knowledge.agents_md import sync_agents_md

OLD_RULE = "Revenue excludes refunds (口径：收入不含退款)."
NEW_RULE = "Dates are in Asia/Shanghai time (日期按北京时间)."
USER_RULE = "Always state the currency of an amount."


@pytest.fixture
def pmem(memory_home: Path, project_dir: Path):
    m = Memory(home=memory_home, project=project_dir)
    m.save_knowledge("project", f"## Rules\n- {OLD_RULE}\n\n## Info\n")
    yield m
    m.close()


def _propose(mem: Memory, text: str = NEW_RULE) -> str:
    return mem.propose(text, "rule", text, layer="project")["id"]


def _agents(project: Path) -> str:
    return (project / "AGENTS.md").read_text(encoding="utf-8")


def test_off_by_default_and_a_validated_switch(pmem: Memory, project_dir: Path) -> None:
    assert pmem.settings["agents_md_autosync"] is False
    sync_agents_md(pmem.hooks.knowledge_services.files, project_dir, create=True)
    before = (project_dir / "AGENTS.md").read_bytes()
    result = pmem.apply(_propose(pmem), "project")
    assert result["status"] == "applied" and "agents_md" not in result
    assert (project_dir / "AGENTS.md").read_bytes() == before
    with pytest.raises(ValidationError) as err:
        pmem.update_settings(agents_md_autosync="yes")  # type: ignore[arg-type]
    assert err.value.field == "agents_md_autosync"
    assert pmem.update_settings(agents_md_autosync=True)["agents_md_autosync"] is True
    with Memory(home=pmem.home) as other:  # persisted, seen by another process
        assert other.settings["agents_md_autosync"] is True


def test_apply_to_project_resyncs_the_block_only(
    pmem: Memory, project_dir: Path, tmp_path: Path
) -> None:
    sync_agents_md(pmem.hooks.knowledge_services.files, project_dir, create=True)
    claude = (project_dir / "CLAUDE.md").read_bytes()
    agents_path = project_dir / "AGENTS.md"
    agents_path.write_text("# Team notes\n\n" + _agents(project_dir), encoding="utf-8")
    pmem.update_settings(agents_md_autosync=True)
    other = tmp_path / "elsewhere"
    other.mkdir()
    pmem.focus(project_dir)

    result = pmem.apply(_propose(pmem), "project")
    report = result["agents_md"]
    assert report["ok"] is True and report["project"] == pmem.project_id
    assert [f["action"] for f in report["files"]] == ["updated"]
    text = _agents(project_dir)
    assert text.startswith("# Team notes\n\n") and NEW_RULE in text and OLD_RULE in text
    assert (project_dir / "CLAUDE.md").read_bytes() == claude  # left to the explicit command
    assert pmem.hooks.project_dir == project_dir.resolve()  # the sync moved no focus

    user = pmem.propose(USER_RULE, "rule", USER_RULE, layer="user")["id"]
    assert "agents_md" not in pmem.apply(user, "user")
    assert USER_RULE not in _agents(project_dir)


def test_never_creates_a_file_or_adds_a_block(pmem: Memory, project_dir: Path) -> None:
    pmem.update_settings(agents_md_autosync=True)
    result = pmem.apply(_propose(pmem), "project")
    assert result["agents_md"]["files"][0]["action"] == "absent"
    assert not (project_dir / "AGENTS.md").exists()
    assert not (project_dir / "CLAUDE.md").exists()

    own = b"# Only the team's own notes\n"
    (project_dir / "AGENTS.md").write_bytes(own)
    result = pmem.apply(_propose(pmem, "Amounts are in CNY."), "project")
    assert result["agents_md"]["files"][0]["action"] == "skipped"
    assert (project_dir / "AGENTS.md").read_bytes() == own


def test_a_hand_edited_block_is_reported_not_overwritten(pmem: Memory, project_dir: Path) -> None:
    sync_agents_md(pmem.hooks.knowledge_services.files, project_dir, create=True)
    path = project_dir / "AGENTS.md"
    path.write_text(_agents(project_dir).replace("excludes refunds", "includes refunds"), "utf-8")
    edited = path.read_bytes()
    pmem.update_settings(agents_md_autosync=True)

    pid = _propose(pmem)
    result = pmem.apply(pid, "project")
    assert result["status"] == "applied"  # the Apply stands
    report = result["agents_md"]
    assert report["ok"] is False
    (outcome,) = report["files"]
    assert outcome["action"] == "refused" and "edited by hand" in outcome["message"]
    assert "+" in outcome["diff"] and NEW_RULE in outcome["diff"]
    assert path.read_bytes() == edited
    assert NEW_RULE in pmem.knowledge("project")
    assert pmem.proposal(pid).status == "applied"


def test_a_failed_sync_is_returned_and_the_apply_is_durable(
    pmem: Memory, project_dir: Path
) -> None:
    sync_agents_md(pmem.hooks.knowledge_services.files, project_dir, create=True)
    path = project_dir / "AGENTS.md"
    broken = _agents(project_dir) + "\n<!-- BEGIN jupyter-memory v:1 -->\n"
    path.write_text(broken, encoding="utf-8")  # two BEGIN markers: unreadable block
    pmem.update_settings(agents_md_autosync=True)

    pid = _propose(pmem)
    result = pmem.apply(pid, "project")
    assert result["status"] == "applied"
    assert result["agents_md"]["ok"] is False
    assert "more than one BEGIN" in result["agents_md"]["error"]
    assert "AGENTS.md" in result["agents_md"]["error"]
    assert path.read_text(encoding="utf-8") == broken
    with Memory(home=pmem.home, project=project_dir) as fresh:
        assert NEW_RULE in fresh.knowledge("project")
        assert fresh.proposal(pid).status == "applied"


def test_process_all_syncs_each_project_once(pmem: Memory, project_dir: Path) -> None:
    pmem.save_knowledge("user", f"## Rules\n- {USER_RULE}\n\n## Info\n")
    sync_agents_md(pmem.hooks.knowledge_services.files, project_dir, create=True, include_user=True)
    pmem.update_settings(agents_md_autosync=True)
    _propose(pmem)
    _propose(pmem, "Amounts are in CNY (金额单位为人民币).")

    result = pmem.process_all()
    assert len(result["applied"]) == 2 and "agents_md" not in result["applied"][0]
    (report,) = result["agents_md"]
    assert report["ok"] and report["files"][0]["action"] == "updated"
    text = _agents(project_dir)
    assert NEW_RULE in text and "金额单位为人民币" in text
    assert USER_RULE in text  # the last sync included the User layer, so this one keeps it


def test_cli_switch_and_apply_output(
    memory_home: Path, project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Memory(home=memory_home, project=project_dir) as mem:
        mem.save_knowledge("project", f"## Rules\n- {OLD_RULE}\n\n## Info\n")
        sync_agents_md(mem.hooks.knowledge_services.files, project_dir, create=True)
        pid = _propose(mem)
    assert main(["settings", "--agents-md-autosync", "on"]) == 0
    assert "AGENTS.md auto-sync after Apply: on" in capsys.readouterr().out
    assert main(["settings", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["agents_md_autosync"] is True

    assert main(["apply", pid, "--to", "project", "--project", str(project_dir)]) == 0
    out = capsys.readouterr().out
    assert "AGENTS.md auto-sync:" in out and "updated" in out
    assert NEW_RULE in _agents(project_dir)
    assert main(["settings", "--agents-md-autosync", "off"]) == 0
    assert "AGENTS.md auto-sync after Apply: off" in capsys.readouterr().out
