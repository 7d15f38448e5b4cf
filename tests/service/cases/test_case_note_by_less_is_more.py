"""Case memory by 宁可少记 on real files: readable Chinese file names (memories, queue,
case entries; names of the old form still read), 关联文件 defaulting to the notebook or
chat a note came from, and 关联证据 checked against evidence_registry.json."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest

from jupyter_memory.agents.chat_focus import access_for_chat
from jupyter_memory.cli.main import main
from jupyter_memory.core.cases.entry_format import FileLink
from jupyter_memory.exceptions import ValidationError
from jupyter_memory.service.agent_access import AgentAccess
from jupyter_memory.service.cases.memory import CaseMemory
from tests.service.case_helpers import CASE, Clock, copy_sample

BODY = "退款高峰与返利发放同周，可能是同一批经销商，但尚无交易明细可证实。"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return copy_sample(tmp_path)


@pytest.fixture
def cm(ws: Path) -> CaseMemory:
    return CaseMemory(ws, CASE, clock=Clock())


# -- readable names -----------------------------------------------------------------------------


def test_a_chinese_memory_and_proposal_get_readable_file_names(mem) -> None:
    entry = mem.remember("退款按订单净额计入，不计入收入。", title="退款不计入收入")
    assert Path(entry.path).name == "2026-11-30_procedural_退款不计入收入.md"
    assert mem.get(entry.id).title == "退款不计入收入"
    result = mem.propose("毛利按净收入计算", "rule", "毛利按净收入计算")
    queued = [p.name for p in (mem.home / "queue").iterdir()]
    assert queued == [f"2026-11-30_rule_毛利按净收入计算-{result.proposal.id}.md"]
    mem.dismiss(result.proposal.id)  # found again by its id
    assert "status: dismissed" in (mem.home / "queue" / queued[0]).read_text("utf-8")


def test_a_chinese_case_entry_gets_a_readable_name_and_is_read_back(cm: CaseMemory) -> None:
    r = cm.note("hesitate", "退款不计入收入", BODY)
    assert r.action == "created" and r.entry == "2026-06-20_hesitate_退款不计入收入.md"
    assert cm.get(r.entry).title == "退款不计入收入"
    again = cm.note("hesitate", "退款不计入收入", "另一个判断：退款集中在月末三天。")
    assert again.entry == "2026-06-20_hesitate_退款不计入收入-2.md"  # same day, same slug
    assert again.related == r.entry
    assert cm.doctor().ok and r.entry in {x.name for x in cm.entries()}


def test_entries_named_the_old_way_still_read_index_and_link(ws: Path, cm: CaseMemory) -> None:
    made = cm.note("discuss", "供应商重叠路径", BODY)
    old = "2026-06-20_discuss_zh-94ba0cadf2.md"  # what an earlier version named it
    made.path.rename(cm.memory_dir / old)
    cm.store.index_path.unlink()
    assert old in {r.name for r in cm.entries()} and cm.doctor().ok is False  # row missing
    assert cm.repair().repaired and cm.doctor().ok
    linked = cm.note(
        "discuss", "供应商重叠的新判断", "新的判断：两家供应商的法人是亲属。", related=old
    )
    assert linked.related == old
    assert cm.get(old).entry.title == "供应商重叠路径"
    assert cm.set_status(old, "已纳入").action == "updated"


def test_the_cli_names_chinese_entries_and_memories_readably(
    ws: Path, memory_home: Path, capsys
) -> None:
    args = ["case", "--workspace", str(ws), "--case", CASE, "note", "insight", "返利与退款同周"]
    assert main([*args, "--body", BODY, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["entry"].endswith("_insight_返利与退款同周.md")
    assert main(["remember", "毛利不含运费", "--title", "毛利口径", "--json"]) == 0
    saved = json.loads(capsys.readouterr().out)
    assert saved["path"].endswith("_毛利口径.md")


# -- 关联证据 checked against evidence_registry.json ------------------------------------------------


def test_an_unknown_evidence_id_is_named_and_not_linked(cm: CaseMemory, monkeypatch) -> None:
    r = cm.note("hesitate", "境外付款时间点可疑", BODY, evidence=["E-009", "E-404"])
    assert r.action == "created" and r.unknown_evidence == ("E-404",)
    assert cm.get(r.entry).entry.evidence == ("E-009",)
    d = r.to_dict()
    assert d["unknown_evidence"] == ["E-404"]
    assert any("E-404" in line and "evidence_registry.json" in line for line in d["notice"])
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    said = "\n".join(r.localized_notice())
    assert "E-404" in said and "未关联" in said


def test_an_unknown_evidence_id_is_reported_even_under_silent(ws: Path, cm: CaseMemory) -> None:
    (ws / "team-profile.md").write_text("Memory Write Policy: silent\n", "utf-8")
    r = cm.note("insight", "华南大区也可能有同样模式", BODY, evidence=["E-777"])
    assert r.action == "created" and r.message is None
    assert len(r.notice()) == 1 and "E-777" in r.notice()[0]


def test_without_a_registry_every_evidence_id_is_unknown(tmp_path: Path) -> None:
    cm = CaseMemory(tmp_path, "CASE-2026-007", clock=Clock())
    r = cm.note("hesitate", "付款路径", BODY, evidence=["E-007"])
    assert r.unknown_evidence == ("E-007",) and cm.get(r.entry).entry.evidence == ()
    assert "evidence_registry.json" in r.notice()[-1]


def test_known_evidence_on_the_update_path_links_and_unknown_is_named(cm: CaseMemory) -> None:
    first = cm.note("observe", "仓管员回避盘点问题", BODY)
    upd = cm.note("observe", "仓管员回避盘点问题", BODY, evidence=["E-012", "E-900"])
    assert upd.action == "updated" and upd.unknown_evidence == ("E-900",)
    assert cm.get(first.entry).entry.evidence == ("E-012",)


# -- 关联文件 defaults to where the note came from ------------------------------------------------


def test_the_source_notebook_becomes_the_related_file(ws: Path, cm: CaseMemory) -> None:
    nb = ws / "analysis" / "退款 分析 (v2).ipynb"
    nb.parent.mkdir()
    nb.write_text("{}", "utf-8")
    r = cm.note("insight", "月末返利集中", BODY, source=nb)
    (link,) = cm.get(r.entry).entry.files
    assert link.name == "退款 分析 (v2).ipynb" and link.note == "记录时所在的笔记本"
    # a Markdown link relative to the entry file, which opens from the entry
    assert link.path == "../../../analysis/退款%20分析%20%28v2%29.ipynb"
    # another insight (its own body: the identity decision calls one body one note)
    other = "月中返利金额平稳，与退款无明显关联，需对照发票明细再看。"
    given = cm.note("insight", "月中返利平稳", other, files=["working_papers/a.md"], source=nb)
    assert [f.path for f in cm.get(given.entry).entry.files] == ["working_papers/a.md"]


def test_a_repeat_from_another_notebook_is_still_a_skip(ws: Path, cm: CaseMemory) -> None:
    first = cm.note("insight", "月末返利集中", BODY, source=ws / "a.ipynb")
    again = cm.note("insight", "月末返利集中", BODY, source=ws / "b.ipynb")
    assert again.action == "skipped" and again.entry == first.entry
    assert [f.path for f in cm.get(first.entry).entry.files] == ["../../../a.ipynb"]


def test_the_chat_of_a_jupyter_ai_tool_call_becomes_the_related_file(
    ws: Path, memory_home: Path
) -> None:
    from jupyter_memory import Memory

    mem = Memory(memory_home)
    try:
        base = AgentAccess(mem, agent="jupyter-ai", workspace=ws)
        chat = ws / "chats" / "返利讨论.chat"
        chat.parent.mkdir()
        chat.write_text("{}", "utf-8")
        access = access_for_chat(base, str(chat.parent), chat_path=str(chat))
        made = access.case_note(CASE, "discuss", "经销商 F 可能是壳公司", BODY)
        entry = access.case_entry(CASE, made["entry"])
        assert entry["files"] == [
            {
                "name": "返利讨论.chat",
                "path": "../../../chats/返利讨论.chat",
                "note": "记录时所在的对话",
            }
        ]
        # MCP clients name no file: nothing is assumed
        plain = base.case_note(
            CASE,
            "discuss",
            "经销商 G 可能是壳公司",
            "经销商 G 的注册地址与另一家公司相同，尚待工商信息核实。",
        )
        assert base.case_entry(CASE, plain["entry"])["files"] == []
    finally:
        mem.close()


def test_a_source_that_cannot_be_a_link_is_left_out_not_fatal(ws: Path, cm: CaseMemory) -> None:
    r = cm.note("insight", "长路径", BODY, source=ws / ("很长" * 200 + ".ipynb"))
    assert r.action == "created" and cm.get(r.entry).entry.files == ()
    assert FileLink("a.ipynb", "a.ipynb")  # the link type itself is unchanged


def test_the_workspace_copy_is_untouched_outside_case_memory(ws: Path, tmp_path: Path) -> None:
    shutil.rmtree(ws / "cases" / CASE / "case_memory")
    cm = CaseMemory(ws, CASE, clock=Clock())
    before = (ws / "cases" / CASE / "evidence_registry.json").read_bytes()
    cm.note("hesitate", "登记表外的证据", BODY, evidence=["E-555"])
    assert (ws / "cases" / CASE / "evidence_registry.json").read_bytes() == before


def test_a_malformed_evidence_id_is_still_refused_naming_the_field(cm: CaseMemory) -> None:
    before = sorted(p.name for p in cm.memory_dir.iterdir())
    with pytest.raises(ValidationError, match="evidence"):
        cm.note("insight", "新线索", BODY, evidence=["the bank statement"])
    assert sorted(p.name for p in cm.memory_dir.iterdir()) == before


def test_a_link_path_escapes_what_markdown_would_misread(ws: Path, cm: CaseMemory) -> None:
    r = cm.note("insight", "井号", BODY, source=ws / "a#1?.ipynb")
    (link,) = cm.get(r.entry).entry.files
    assert link.path == "../../../a%231%3F.ipynb" and link.name == "a#1?.ipynb"


def test_a_name_listed_decomposed_is_found_by_its_composed_form(cm: CaseMemory) -> None:
    """HFS+ lists names in NFD, a person types NFC (Korean, kana with dakuten)."""
    made = cm.note("observe", "매출 담당자가 답을 피함", BODY)
    nfd = unicodedata.normalize("NFD", made.entry)
    assert nfd != made.entry
    made.path.rename(cm.memory_dir / nfd)
    cm.repair()
    assert cm.set_status(made.entry, "已纳入").path.name == nfd
    linked = cm.note(
        "observe", "매출 담당자 재면담", "두 번째 면담에서도 같은 반응.", related=made.entry
    )
    assert linked.related == nfd
