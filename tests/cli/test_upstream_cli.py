"""A model that fails behind a CLI command: one clear line naming the service, exit 1."""

from __future__ import annotations

import json
from pathlib import Path

from openai_test_server import llm_server

from jupyter_memory import Memory
from jupyter_memory.cli.main import main


def test_reorganize_with_a_failing_llm_names_the_service(capsys, memory_home: Path) -> None:  # noqa: ANN001
    text = "## Rules\n- 收入不含退款\n- Revenue excludes refunds\n## Info\n"
    with llm_server([]) as llm:  # no scripted turn: the endpoint answers HTTP 500
        with Memory(home=memory_home) as m:
            m.save_knowledge("user", text)
            m.update_settings(llm={"base_url": llm.url, "model": "m"})
        before = (memory_home / "knowledge.md").read_bytes()
        code = main(["reorganize"])
        out, err = capsys.readouterr()
        assert code == 1 and out == ""
        assert err.startswith(f"jupyter-memory: error: LLM endpoint {llm.url}/chat/completions: ")
        assert "answered HTTP 500" in err and len(err.splitlines()) == 1
        code = main(["reorganize", "--json"])
        out, _ = capsys.readouterr()
    assert code == 1
    data = json.loads(out)
    assert data["error"] == "UpstreamError" and data["service"] == "LLM endpoint"
    assert "answered HTTP 500" in data["message"]
    assert (memory_home / "knowledge.md").read_bytes() == before


def test_reorganize_past_the_budget_says_so_before_and_after(capsys, memory_home: Path) -> None:  # noqa: ANN001
    from openai_test_server import Scripted

    text = "## Rules\n- Always use UTC\n- always use UTC.\n## Info\n"
    with llm_server([Scripted("## Rules\n- Always use UTC\n## Info\n")], stream=False) as llm:
        with Memory(home=memory_home) as m:
            m.save_knowledge("user", text)
            m.update_settings(
                llm={"base_url": llm.url, "model": "m"}, llm_budget={"calls_per_day": 0}
            )
        code = main(["reorganize"])
        out, err = capsys.readouterr()
    assert code == 0 and len(llm.requests) == 1  # the person's request runs
    assert "today's LLM budget is already spent (0 of 0 calls" in err
    assert "went over today's LLM budget (1 of 0 calls" in out.splitlines()[0]
