"""Issue 32: a person's chat messages — notes proposed at once, the LLM at a turn's idle end.

Without Jupyter AI: the service (``chat_notes``, ``end_agent_session``) and the
persona's end-of-turn timer (agents/chat_boundary.py) over a real ``Memory``;
the persona's glue is one call each (tests/agents/test_jupyter_ai.py).
"""

from __future__ import annotations

from test_llm_budget import ScriptedLLM, reply

from jupyter_memory.agents.chat_boundary import ChatBoundary

KEY = "chat:/work/sales.chat"


def turn(mem, person: str, answer: str = "Noted.", turn_id: str | None = None) -> None:
    mem.hooks.record_agent_turn(KEY, person=person, reply=answer, turn_id=turn_id)


def test_a_note_marker_in_a_chat_message_is_one_proposal_without_an_llm(mem) -> None:
    assert (
        mem.hooks.chat_notes(KEY, "can you plot revenue by week? it should exclude refunds") == []
    )
    (made,) = mem.hooks.chat_notes(KEY, "规则：收入不含退款", message_id="m-2")
    assert (made.text, made.kind, made.quote_origin.message_id) == ("收入不含退款", "rule", "m-2")
    assert [p.id for p in mem.queue()] == [made.id]
    mem.update_settings(auto_suggestions=False)  # as a cell's round: the switch is honoured
    assert mem.hooks.chat_notes(KEY, "rule: weeks start on Monday") == []


def test_a_turns_idle_end_reads_the_persons_messages_once_within_the_budget(mem) -> None:
    llm = ScriptedLLM(reply(("Weeks start on Monday", "rule", "our weeks always start on Monday")))
    mem.llm = llm
    turn(mem, "our weeks always start on Monday, remember that", "OK", "t1")
    turn(mem, "now plot revenue by week", "Here is the chart.", "t2")
    end = mem.hooks.end_agent_session(KEY, allow_llm=True)
    assert end.called_llm and len(llm.calls) == 2  # one extraction, one digest
    prompt = llm.calls[0][1]["content"]
    assert "our weeks always start on Monday" in prompt and "Here is the chart." not in prompt
    (proposal,) = [mem.proposal(i) for i in end.proposals]
    assert proposal.text == "Weeks start on Monday" and proposal.conversation == KEY
    assert mem.hooks.llm_spend().uses["extraction"]["calls"] == 1
    # the turn is digested: its end makes no second call
    again = mem.hooks.end_agent_session(KEY, allow_llm=True)
    assert not again.called_llm and len(llm.calls) == 2


def test_a_spent_budget_stops_the_turns_extraction_and_says_so(mem) -> None:
    mem.update_settings(llm_budget={"calls_per_day": 0})
    llm = ScriptedLLM(reply())
    mem.llm = llm
    turn(mem, "our weeks always start on Monday")
    end = mem.hooks.end_agent_session(KEY, allow_llm=True)
    assert llm.calls == [] and not end.called_llm and end.proposals == ()
    assert "budget is spent" in end.budget_notice


def test_the_chat_boundary_runs_once_after_the_last_turn_and_says_it_in_the_chat(mem) -> None:
    llm = ScriptedLLM(reply(("Weeks start on Monday", "rule", "our weeks always start on Monday")))
    mem.llm = llm
    said: list[str] = []
    boundary = ChatBoundary(
        lambda key: mem.hooks.end_agent_session(key, allow_llm=True), said.append, idle_seconds=0.2
    )
    turn(mem, "our weeks always start on Monday", "OK", "t1")
    boundary.on_turn(KEY)
    turn(mem, "and revenue excludes refunds", "OK", "t2")
    boundary.on_turn(KEY)  # a new turn re-arms: the first timer never fires
    boundary.wait()
    assert boundary.last.called_llm
    assert mem.hooks.llm_spend().uses["extraction"]["calls"] == 1  # one end, one extraction call
    assert "and revenue excludes refunds" in llm.calls[0][1]["content"]
    assert said[0] == "1 suggestion(s) from this chat wait in the Agent Memory panel's queue"
    assert said[1:] == ([boundary.last.notice] if boundary.last.notice else [])
    boundary.stop()


def test_the_chat_boundary_says_a_failure_and_nothing_when_memory_is_off(mem) -> None:
    said: list[str] = []

    class Failing:
        def complete(self, messages, *, max_tokens=2000):  # noqa: ANN001, ANN201
            from jupyter_memory.exceptions import UpstreamError

            raise UpstreamError("the model is down", service="test-llm")

    mem.llm = Failing()
    boundary = ChatBoundary(
        lambda key: mem.hooks.end_agent_session(key, allow_llm=True), said.append
    )
    turn(mem, "our weeks always start on Monday")
    boundary.run(KEY)
    assert said and "failed" in said[0] and "the model is down" in said[0]
    said.clear()
    mem.update_settings(enabled=False)
    assert boundary.run(KEY) is None and said == []


def test_the_personas_ending_uses_its_own_memory_and_the_configured_llm(mem, memory_home) -> None:
    """What the persona's timer runs (its own ``Memory`` on the home), against a real HTTP LLM."""
    from openai_test_server import Scripted, llm_server

    from jupyter_memory.agents.chat_boundary import ending_in_own_memory

    said = reply(("Weeks start on Monday", "rule", "our weeks always start on Monday"))
    turn(mem, "our weeks always start on Monday", "OK", "t1")
    with llm_server([Scripted(said), Scripted("[]")], stream=False) as llm:
        mem.update_settings(llm={"base_url": llm.url, "model": "m"})
        end = ending_in_own_memory(mem)(KEY)
        assert len(llm.requests) >= 1
    assert end.called_llm and len(end.proposals) == 1
    assert [p.text for p in mem.queue()] == ["Weeks start on Monday"]
