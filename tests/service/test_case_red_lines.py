"""Spec 000's three red lines and DESIGN invariant 3, as tests.

1. case memory never enters evidence_registry.json (nor working papers);
2. it never asks the person anything;
3. it never changes stage gates or plans;
and it is never injected into an agent's context.
"""

from __future__ import annotations

import ast
import builtins
import io
import sys
from pathlib import Path

import pytest

import jupyter_memory
from jupyter_memory.exceptions import UnsafeNameError
from jupyter_memory.service.cases.memory import CaseMemory
from tests.service.case_helpers import CASE, Clock, copy_sample, outside_case_memory, tree

PACKAGE = Path(jupyter_memory.__file__).parent
CASE_MODULES = (
    "case_memory",
    "case_store",
    "case_format",
    "case_policy",
    "case_search",
    "case_archive",
    "frames_case",
)


def _full_lifecycle(cm: CaseMemory) -> list[list[str]]:
    notices = []
    for r in (
        cm.note(
            "hesitate",
            "H 公司董事同名",
            "H 公司的董事与经销商 D 的法人同名，感觉不是巧合。",
            evidence=["E-009"],
            hypotheses=["H-2"],
            files=["../working_papers/wp-01-rebate-analysis.md"],
        ),
        cm.note(
            "hesitate",
            "H 公司董事同名",
            "H 公司的董事与经销商 D 的法人同名，感觉不是巧合。",
            evidence=["E-009", "E-015"],
        ),
        cm.note("insight", "证据", "供应商甲与供应商乙使用同一对公银行账户收款"),
        cm.note("think", "结论", "Q2 返利比例升至 7% 系系统参数配置错误所致"),
        cm.set_status("2026-06-04_insight_south-china-pattern.md", "已排除"),
    ):
        notices.append(r.notice())
    cm.store.index_path.unlink()
    cm.repair()
    cm.rebuild_index()
    cm.archive(
        final_states={"2026-06-12_observe_finance-manager-withdrawal.md": "已纳入"},
        delete=["2026-06-18_hesitate_warehouse-stock-count.md"],
    )
    return notices


def test_red_lines_1_and_3_nothing_outside_case_memory_changes(tmp_path: Path):
    ws = copy_sample(tmp_path)
    cm = CaseMemory(ws, CASE, clock=Clock())
    before = tree(ws)
    _full_lifecycle(cm)
    after = tree(ws)
    assert outside_case_memory(after) == outside_case_memory(before)
    for protected in (
        "cases/CASE-2026-001/evidence_registry.json",
        "cases/CASE-2026-001/stage_gates.json",
        "cases/CASE-2026-001/investigation_plan.md",
        "cases/CASE-2026-001/working_papers/wp-01-rebate-analysis.md",
        "team-profile.md",
    ):
        assert after[protected] == before[protected]
    assert after != before  # the lifecycle did write (inside case_memory/)
    written = {rec["path"] for rec in cm.store.audit.records()}
    assert written and all(p.startswith("cases/CASE-2026-001/case_memory/") for p in written)


@pytest.mark.parametrize(
    "target", ["../evidence_registry.json", "../stage_gates.json", "../working_papers/x.md"]
)
def test_store_refuses_any_target_outside_case_memory(tmp_path: Path, target: str):
    ws = copy_sample(tmp_path)
    cm = CaseMemory(ws, CASE, clock=Clock())
    before = tree(ws)
    with pytest.raises(UnsafeNameError):
        cm.store.write(target, "{}", action="case.create", actor="t", at=Clock()())
    with pytest.raises(UnsafeNameError, match="only inside"):
        cm.store._inside_memory_dir(cm.store.registry_path)
    assert tree(ws) == before


def test_red_line_2_never_asks_the_person(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def refuse(*_a: object, **_k: object) -> str:
        raise AssertionError("case memory asked the person something")

    monkeypatch.setattr(builtins, "input", refuse)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    ws = copy_sample(tmp_path)
    notices = _full_lifecycle(CaseMemory(ws, CASE, clock=Clock()))
    for lines in notices:
        assert len(lines) <= 3  # message, optional cleanup suggestion, optional policy hint
        for line in lines:
            assert "\n" not in line and "?" not in line and "？" not in line


def _imports(path: Path) -> set[str]:
    tree_ = ast.parse(path.read_text("utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree_):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def _agent_facing_modules() -> list[Path]:
    mods = list((PACKAGE / "agents").rglob("*.py"))
    mods += [
        p
        for p in PACKAGE.rglob("*.py")
        if any(w in p.stem for w in ("context", "mcp", "agents_block", "prompt", "llm"))
    ]
    mods.append(PACKAGE / "service" / "memory.py")
    return sorted(set(mods))


def test_never_injected_agent_facing_code_does_not_import_case_memory():
    modules = _agent_facing_modules()
    assert len(modules) >= 3
    for path in modules:
        bad = [n for n in _imports(path) if set(n.split(".")) & set(CASE_MODULES)]
        assert not bad, f"{path} imports case memory: {bad}"


def test_never_injected_project_memory_does_not_see_case_text(tmp_path: Path, memory_home: Path):
    ws = copy_sample(tmp_path)
    CaseMemory(ws, CASE, clock=Clock()).note(
        "insight", "Zebra ledger", "Quokka invoices recur every zebra Tuesday."
    )
    from jupyter_memory import Memory

    with Memory(home=memory_home, project=ws) as mem:
        assert mem.recall("quokka zebra") == []
        assert mem.recall("境外付款") == []
