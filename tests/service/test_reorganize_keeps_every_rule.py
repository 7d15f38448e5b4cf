"""Reorganize never loses a rule, with or without an LLM (issue 32, item 6).

The LLM is the allowed double, a real HTTP server (tests/openai_test_server.py);
its reorganized text is held to the same rules as the deterministic one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from openai_test_server import Scripted, llm_server

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.keys import dedup_key
from jupyter_memory.core.knowledge.reorganize_check import ReorganizeError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
from reorganize_rules import knowledge_text, region_table_chart_rules  # noqa: E402

RULES = region_table_chart_rules(filler=True)[:30]


def leaf_keys(mem: Memory) -> list[str]:
    return sorted(dedup_key(leaf) for _, leaf in mem.hooks.knowledge_doc("user").leaves())


def condensed(rules: list[str]) -> list[str]:
    return [r.removeprefix("Note that ")[:1].upper() + r.removeprefix("Note that ")[1:]
            if r.startswith("Note that ") else r for r in rules]  # fmt: skip


def test_thirty_distinct_rules_in_thirty_out_without_an_llm(mem: Memory) -> None:
    mem.save_knowledge("user", knowledge_text(RULES, []))
    res = mem.reorganize("user")
    assert res["leaves_before"] == res["leaves_after"] == 30 and res["merged"] == []
    assert leaf_keys(mem) == sorted(dedup_key(r) for r in condensed(RULES))
    assert res["chars_after"] <= res["chars_before"]
    assert res["other_share"] <= 0.2
    line = list(mem.hooks.audit.records())[-1]
    assert line["action"] == "knowledge.reorganize" and line["merged"] == 0
    assert line["trigger"] == "person" and line["chars_after"] == res["chars_after"]


def test_an_llm_that_keeps_every_rule_is_accepted(mem: Memory) -> None:
    mem.save_knowledge("user", knowledge_text(RULES, []))
    reply = knowledge_text(condensed(RULES), [])
    with llm_server([Scripted(reply)]) as llm:
        mem.update_settings(llm={"base_url": llm.url, "model": "m"})
        res = mem.reorganize("user")
    assert res["used_llm"] and res["leaves_after"] == 30 and len(res["condensed"]) == 8
    assert leaf_keys(mem) == sorted(dedup_key(r) for r in condensed(RULES))


def test_an_llm_that_drops_one_rule_is_refused_with_the_reason(mem: Memory) -> None:
    mem.save_knowledge("user", knowledge_text(RULES, []))
    path = Path(mem.hooks.library_status("user")["path"])
    before = path.read_bytes()
    dropped = condensed(RULES)
    gone = dropped.pop(13)
    with llm_server([Scripted(knowledge_text(dropped, []))]) as llm:
        mem.update_settings(llm={"base_url": llm.url, "model": "m"})
        with pytest.raises(ReorganizeError, match="refused.*dropped the entry") as info:
            mem.reorganize("user")
    assert gone[:40] in str(info.value)
    assert path.read_bytes() == before and not Path(f"{path}.bak").exists()
    assert len(mem.hooks.knowledge_doc("user").leaves()) == 30


def test_an_llm_that_grows_the_file_is_refused(mem: Memory) -> None:
    mem.save_knowledge("user", knowledge_text(RULES, []))
    grown = "## Rules\n\n- All rules\n" + "".join(f"  - {r}\n" for r in RULES)
    with llm_server([Scripted(grown)]) as llm:
        mem.update_settings(llm={"base_url": llm.url, "model": "m"})
        with pytest.raises(ReorganizeError, match="longer than the file"):
            mem.reorganize("user")


def test_preinject_follows_the_rules_and_says_what_changed(mem: Memory) -> None:
    rules = region_table_chart_rules(filler=True)
    mem.save_knowledge("user", knowledge_text(rules))
    said: list[str] = []
    report = mem.hooks.prepare_injection(conversation="c1", notify=said.append)
    assert report.reorganized and len(mem.hooks.knowledge_doc("user").leaves()) == 40
    assert "0 duplicate(s) merged, 8 entr(y/ies) condensed" in said[-1]
    assert "all 40 other entries kept" in said[-1]
    line = list(mem.hooks.audit.records())[-1]
    assert line["trigger"] == "preinject" and line["condensed"] == 8 and line["groups"] >= 1


def test_preinject_on_a_file_with_nothing_to_change_writes_nothing_and_says_so(
    mem: Memory,
) -> None:
    mem.save_knowledge("user", knowledge_text(region_table_chart_rules()))
    path = Path(mem.hooks.library_status("user")["path"])
    before = path.read_bytes()
    said: list[str] = []
    mem.hooks.prepare_injection(conversation="c1", notify=said.append)
    assert "Nothing to reorganize" in said[-1]
    assert path.read_bytes() == before and not Path(f"{path}.bak").exists()


def test_an_unsaved_over_cap_text_is_reorganized_without_writing(mem: Memory) -> None:
    mem.save_knowledge("user", knowledge_text(RULES[:2], []))
    version = mem.hooks.knowledge_version("user")
    # Over the 8,000 save cap: the editor's text, never saved.
    text = knowledge_text(RULES * 3 + [f"Note that the t{i} table is audited" for i in range(60)])
    assert len(text) > 8000
    res = mem.hooks.reorganize_text("user", text)
    assert not res["written"] and res["merged"] and res["chars_after"] < len(text)
    assert res["leaves_after"] == 30 + 60 + 8
    assert mem.hooks.knowledge_version("user") == version
