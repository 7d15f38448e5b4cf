"""%memory: focus, switches, status, context, queue, process-all, and their errors."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from jupyter_memory.widgets import ProposalCards


def comment_cell(ip, text):
    ip.run_cell(f"# note: {text}\nx = 1", store_history=True)


def test_focus_shows_and_changes_project(ip, magics, project_dir):
    assert "No project focused" in str(ip.run_line_magic("memory", "focus"))
    out = ip.run_line_magic("memory", f"focus {project_dir}")
    assert f"Focused project: sales-q3 ({project_dir})" == str(out)
    assert magics.service.project_id == "sales-q3"
    assert "sales-q3" in str(ip.run_line_magic("memory", "focus"))
    with pytest.raises(UsageError, match="unknown project"):
        ip.run_line_magic("memory", "focus never-seen")
    # docs/notebooks.md's "no project": the parser refused --none as an unknown option
    assert str(ip.run_line_magic("memory", "focus --none")).startswith("No project focused")
    assert magics.service.project_id is None


def test_config_project_focuses_on_first_use(ip, magics, project_dir):
    ip.run_line_magic("config", f"MemoryMagics.project = {str(project_dir)!r}")
    assert magics.service.project_id == "sales-q3"


def test_status_reports_switches_queue_and_capture(ip, magics):
    comment_cell(ip, "revenue excludes refunds")
    magics.worker.wait()
    status = str(ip.run_line_magic("memory", "status"))
    assert "memory:       on" in status and "suggestions:  on" in status
    assert "queue:        1 pending" in status
    assert "captured:     1 cells" in status
    assert "last round:" in status and "1 proposal(s)" in status
    ip.run_line_magic("memory", "off")
    assert "memory:       OFF" in str(ip.run_line_magic("memory", "status"))


def test_context_shows_only_approved_knowledge(ip, magics, project_dir):
    ip.run_line_magic("memory", f"focus {project_dir}")
    comment_cell(ip, "revenue excludes refunds")
    comment_cell(ip, "churn is defined as 90 days without an order")
    magics.worker.wait()
    assert "(empty" in str(ip.run_line_magic("memory", "context"))
    cards = ip.run_line_magic("memory", "queue")
    assert isinstance(cards, ProposalCards) and len(cards) == 2
    ip.run_line_magic("memory", f"apply {cards.ids[0]} --to project")  # a card's Project
    context = str(ip.run_line_magic("memory", "context"))
    assert "Revenue excludes refunds" in context
    assert "Churn is defined as 90 days" not in context  # still pending: never injected
    html = ip.run_line_magic("memory", "context")._repr_html_()
    assert "&lt;" in html  # the delimiters are escaped in the HTML view
    ip.run_line_magic("memory", "off")
    assert "(empty" in str(ip.run_line_magic("memory", "context"))


def test_queue_empty_and_process_all(ip, magics, project_dir):
    assert str(ip.run_line_magic("memory", "queue")) == "The queue is empty."
    ip.run_line_magic("memory", f"focus {project_dir}")
    comment_cell(ip, "revenue excludes refunds")  # suggested: Project · sales-q3 (the focus)
    magics.worker.wait()
    mem = magics.service
    mine = mem.propose("GMV includes tax", "info", "GMV includes tax", layer="user")["id"]
    mem.focus(None)
    pick = mem.propose("Weeks start on Monday", "rule", "Weeks start on Monday", layer="project")
    # Process all has no layer of its own (spec 002): each item goes where it was suggested.
    out = str(ip.run_line_magic("memory", "process-all"))
    lines = out.splitlines()
    assert lines[0] == "Applied 2 proposal(s):"
    assert f"  → User: {mine}  GMV includes tax" in lines
    assert any(ln.startswith("  → Project sales-q3: ") for ln in lines), out
    assert lines[-2:] == [
        "Skipped 1 that still need a project picked:",
        f"  {pick['id']}  Weeks start on Monday",
    ]
    assert [p.id for p in mem.queue()] == [pick["id"]]
    assert "Revenue excludes refunds" in mem.knowledge("project", project="sales-q3")
    assert "GMV includes tax" in mem.knowledge("user")
    assert "GMV includes tax" not in mem.knowledge("project", project="sales-q3")


def test_cards_rerendered_after_cli_decision(ip, magics):
    comment_cell(ip, "revenue excludes refunds")
    magics.worker.wait()
    cards = ip.run_line_magic("memory", "queue")
    from jupyter_memory import Memory

    with Memory(home=magics.service.home) as cli:  # another process, e.g. the CLI
        cli.dismiss(cards[0].id)
    bundle = cards._repr_mimebundle_()
    assert "Dismissed" in bundle["text/plain"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("", "arguments are required|action"),
        ("fly", "unknown action"),
        ("suggestions maybe", "suggestions on\\|off"),
        ("process-all --to project", "unrecognized arguments: --to"),
        # each action's own parser refuses what that action does not take
        ("apply p-1 --then pending", "^%memory apply: unrecognized arguments: --then pending$"),
        ("status extra", "^%memory status: unrecognized arguments: extra$"),
        ("revert p-1 --then later", "^%memory revert: argument --then: invalid choice"),
    ],
)
def test_memory_errors(ip, line, message):
    with pytest.raises(UsageError, match=message):
        ip.run_line_magic("memory", line)


def test_the_help_shows_each_actions_own_usage():
    from jupyter_memory.magics.memory_cmd import memory

    help_text = memory.__doc__ or ""
    assert "%memory apply [--to {user,project}] [--project PROJECT] [ID]" in help_text
    assert "%memory context [--query QUERY] [--agent AGENT]" in help_text
    assert "--then {pending,dismissed}" in help_text  # the shared options, each once


def test_suggest_needs_memory_on(ip):
    ip.run_line_magic("memory", "off")
    with pytest.raises(UsageError, match="memory is off"):
        ip.run_line_magic("memory", "suggest")


def test_reorganize_lists_its_merges_and_says_when_it_went_over_the_budget(ip, magics, capsys):
    mem = magics.service
    text = "## Rules\n- Always use UTC\n- always use UTC.\n## Info\n"
    mem.save_knowledge("user", text)
    said = str(ip.run_line_magic("memory", "reorganize"))  # no project focused: User
    assert "1 duplicate(s) merged" in said and "always use UTC." in said
    assert "LLM budget" not in said

    class OneRule:  # the LLM service, the one double allowed
        def complete(self, messages, *, max_tokens=2000):  # noqa: ANN001, ANN201
            return "## Rules\n- Always use UTC\n## Info\n"

    mem.save_knowledge("user", text, base=mem.reorganize("user").version)
    mem.update_settings(llm_budget={"calls_per_day": 0})
    mem.llm = OneRule()
    capsys.readouterr()
    said = str(ip.run_line_magic("memory", "reorganize user"))
    assert "went over today's LLM budget (1 of 0 calls" in said
    assert "this request runs anyway, past it" in capsys.readouterr().out  # said before
    with pytest.raises(UsageError, match="user|project"):
        ip.run_line_magic("memory", "reorganize everything")


def test_suggest_past_the_budget_runs_and_says_it_went_over(ip, magics, capsys):
    class NoProposals:  # the LLM service, the one double allowed
        calls = 0

        def complete(self, messages, *, max_tokens=2000):  # noqa: ANN001, ANN201
            NoProposals.calls += 1
            return '{"proposals": []}'

    mem = magics.service
    mem.update_settings(llm_budget={"calls_per_day": 0})
    mem.llm = NoProposals()
    ip.run_cell("# weeks start on Monday here\nx = 1", store_history=True)
    magics.worker.wait()
    capsys.readouterr()
    ip.run_line_magic("memory", "suggest")
    assert NoProposals.calls == 1  # a person's request runs past the budget
    out = capsys.readouterr().out
    before = out.index("jupyter-memory: today's LLM budget is already spent (0 of 0 calls")
    assert before < out.index("jupyter-memory: this request went over today's LLM budget (1 of 0")
