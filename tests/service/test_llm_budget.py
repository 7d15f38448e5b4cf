"""Issue 32: one daily budget for background LLM use; LLM extraction only when asked."""

from __future__ import annotations

import json

import pytest

from jupyter_memory.exceptions import LLMBudgetSpentError, ParseError, ValidationError


class ScriptedLLM:
    """The one allowed test double: an external LLM that answers from a script."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls: list[list[dict[str, str]]] = []
        self.last_usage: int | None = None

    def complete(self, messages, *, max_tokens=2000):  # noqa: ANN001, ANN201
        self.calls.append(list(messages))
        return self.reply


def reply(*items: tuple[str, str, str]) -> str:
    return json.dumps(
        {"proposals": [{"text": t, "kind": k, "evidence_quote": q} for t, k, q in items]}
    )


CELLS = [
    {"role": "code", "text": "# revenue excludes refunds here\nrev = 1", "cell_id": "c1"},
    {"role": "markdown", "text": "GMV includes tax in every report.", "cell_id": "c2"},
]


def test_the_llm_reads_at_a_boundary_and_is_told_what_is_known(mem) -> None:
    mem.save_knowledge("user", "## Rules\n- Always use UTC\n## Info\n")
    llm = ScriptedLLM(reply(("GMV includes tax", "info", "GMV includes tax in every report")))
    mem.llm = llm
    assert mem.extract(CELLS, llm=False) == []  # the per-cell round: notes only, no call
    assert llm.calls == []
    made = mem.extract(CELLS)
    assert [p.text for p in made] == ["GMV includes tax"]
    assert len(llm.calls) == 1 and mem.hooks.last_extraction_called_llm
    prompt = llm.calls[0][1]["content"]
    assert "<known-entries>" in prompt and "- Always use UTC" in prompt
    assert prompt.index("</known-entries>") < prompt.index("<person-messages>")
    mem.extract(CELLS)
    assert "- GMV includes tax" in llm.calls[1][1]["content"]  # pending entries too
    spend = mem.hooks.llm_spend()
    assert (spend.calls, spend.uses["extraction"]["calls"]) == (2, 2)
    assert spend.tokens > 0


def test_a_spent_budget_stops_background_rounds_with_a_notice(mem, clock) -> None:
    mem.update_settings(llm_budget={"calls_per_day": 1})
    llm = ScriptedLLM(reply())
    mem.llm = llm
    mem.extract(CELLS)
    assert len(llm.calls) == 1 and mem.hooks.last_extraction_notice is None
    assert mem.extract(CELLS) == [] and len(llm.calls) == 1  # spent: no call
    assert "budget is spent" in mem.hooks.last_extraction_notice
    assert not mem.hooks.last_extraction_called_llm
    # a person's request still runs, and says that it went over
    mem.extract(CELLS, background=False)
    assert len(llm.calls) == 2
    assert "went over today's LLM budget" in mem.hooks.last_extraction_notice
    clock.advance(days=1)  # a new day starts from zero
    assert mem.hooks.llm_spend().calls == 0
    mem.extract(CELLS)
    assert len(llm.calls) == 3 and mem.hooks.last_extraction_notice is None


def test_tokens_count_too_and_the_servers_usage_is_used(mem) -> None:
    mem.update_settings(llm_budget={"tokens_per_day": 1_000})
    llm = ScriptedLLM(reply())
    llm.last_usage = 1_000
    mem.llm = llm
    mem.extract(CELLS)
    assert mem.hooks.llm_spend().tokens == 1_000 and mem.hooks.llm_spend().spent
    mem.extract(CELLS)
    assert len(llm.calls) == 1


def test_the_budget_setting_is_checked_and_kept(mem) -> None:
    assert mem.settings["llm_budget"] == {"calls_per_day": 40, "tokens_per_day": 200_000}
    mem.update_settings(llm_budget={"calls_per_day": 5})
    assert mem.settings["llm_budget"] == {"calls_per_day": 5, "tokens_per_day": 200_000}
    with pytest.raises(ValidationError) as bad:
        mem.update_settings(llm_budget={"calls_per_day": -1})
    assert bad.value.field == "llm_budget.calls_per_day"
    with pytest.raises(ValidationError, match="unknown keys"):
        mem.update_settings(llm_budget={"calls": 5})
    (mem.home / "settings.json").write_text(json.dumps({"llm_budget": {"calls_per_day": "x"}}))
    with pytest.raises(ParseError, match="llm_budget"):
        mem.settings  # noqa: B018 - reading is what fails


def test_the_spend_file_is_shared_and_a_damaged_one_is_named(mem, memory_home, clock) -> None:
    from jupyter_memory import Memory

    mem.llm = ScriptedLLM(reply())
    mem.extract(CELLS)
    with Memory(home=memory_home, clock=clock) as other:  # another process's view of the same home
        assert other.hooks.llm_spend().calls == 1
    path = memory_home / "recent" / "llm-spend.json"
    day = json.loads(path.read_text())["day"]
    path.write_text(json.dumps({"day": day, "calls": "many", "tokens": 0}))
    with pytest.raises(ParseError) as bad:
        mem.hooks.llm_spend()
    assert str(path) in str(bad.value.path)


def test_a_background_reorganize_is_refused_when_spent(mem) -> None:
    mem.save_knowledge("user", "## Rules\n- Always use UTC\n## Info\n")
    mem.update_settings(llm_budget={"calls_per_day": 0})
    mem.llm = ScriptedLLM("## Rules\n- Always use UTC\n## Info\n")
    files = mem.hooks.knowledge_services.files
    with pytest.raises(LLMBudgetSpentError, match="reorganizing"):
        files.reorganize("user", trigger="preinject")
    result = mem.reorganize("user")  # the person's Reorganize runs
    assert result.used_llm


def test_a_background_digest_past_the_budget_uses_the_embedded_extractor(mem) -> None:
    mem.update_settings(llm_budget={"calls_per_day": 0})
    llm = ScriptedLLM("[]")
    mem.llm = llm
    mem.hooks.digest_record(
        "k1",
        [
            {
                "id": "x",
                "role": "user",
                "text": "We decided to split refunds by sales channel because finance asks.",
            }
        ],
    )
    report = mem.digest(session="k1", background=True)
    assert llm.calls == [] and report.extractor == "deterministic"
    assert "budget is spent" in report.notice
    assert report.review_notice() == (
        "1 memory from this session waits for review: %memories --review"
    )


def test_a_persons_reorganize_says_when_it_went_over_the_budget(mem) -> None:
    text = "## Rules\n- Always use UTC\n- always use UTC.\n## Info\n"
    mem.save_knowledge("user", text)
    mem.llm = ScriptedLLM("## Rules\n- Always use UTC\n## Info\n")
    within = mem.reorganize("user")
    assert within.over_budget is False and "over_budget" in within.to_dict()
    assert "LLM budget" not in within.summary()
    mem.save_knowledge("user", text, base=within.version)
    mem.update_settings(llm_budget={"calls_per_day": 1})  # the first call spent it
    over = mem.reorganize("user")
    assert over.used_llm and over.over_budget
    assert over.to_dict()["over_budget"] is True
    assert "went over today's LLM budget (2 of 1 calls" in over.summary()
    assert over.to_dict()["budget_note"] == over.budget_note
