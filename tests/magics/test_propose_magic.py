"""``%memory propose``: a person's explicit request makes exactly one proposal (issue 32 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.error import UsageError

from jupyter_memory import Memory
from jupyter_memory.widgets import ProposalCards
from jupyter_memory.widgets.cards import PROPOSAL_MIME
from tests.support.kernels import execute, kernel_env, new_notebook


def test_propose_makes_one_card_with_the_text_as_evidence(ip, magics):
    cards = ip.run_line_magic("memory", "propose Revenue excludes refunds, always")
    assert isinstance(cards, ProposalCards) and len(cards) == 1
    (p,) = magics.service.queue()
    assert p.id == cards.ids[0]
    assert p.text == "Revenue excludes refunds, always"
    assert p.evidence_quote == "Revenue excludes refunds, always"
    assert p.source == "manual" and p.kind == "rule"  # "excludes": a rule's wording


def test_propose_quote_kind_layer_and_marker(ip, magics, project_dir):
    ip.run_line_magic("memory", f"focus {project_dir}")
    ip.run_line_magic(
        "memory",
        "propose Refunds older than 90 days are write-offs --quote 'older than 90 days'"
        " --kind info --to user",
    )
    ip.run_line_magic("memory", "propose 口径：GMV 含运费")
    first, second = magics.service.queue()
    assert (first.kind, first.suggested_layer, first.evidence_quote) == (
        "info",
        "user",
        "older than 90 days",
    )
    # the marker picks the kind and leaves the text, as a marked line in a cell does
    assert (second.text, second.kind, second.suggested_layer) == ("GMV 含运费", "info", "project")


def test_propose_refuses_a_quote_not_in_the_cell(ip, magics):
    with pytest.raises(UsageError, match="evidence_quote"):
        ip.run_line_magic("memory", "propose Revenue excludes refunds --quote 'never typed'")
    assert magics.service.queue() == []


def test_propose_goes_through_the_secret_guard_and_hidden_text(ip, magics):
    with pytest.raises(UsageError, match="secret"):
        ip.run_line_magic("memory", "propose connect with password=Tr0ub4dorX3y to the warehouse")
    with pytest.raises(UsageError, match="U\\+202E"):
        ip.run_line_magic("memory", "propose Revenue \u202eexcludes refunds")
    assert magics.service.queue() == []


def test_propose_twice_is_one_proposal_and_needs_text(ip, magics):
    ip.run_line_magic("memory", "propose Revenue excludes refunds")
    said = str(ip.run_line_magic("memory", "propose Revenue excludes refunds"))
    assert said.startswith("No proposal:")
    assert len(magics.service.queue()) == 1
    with pytest.raises(UsageError, match="needs text"):
        ip.run_line_magic("memory", "propose")


@pytest.mark.slow
def test_a_kernel_cell_shows_the_card_of_its_one_proposal(tmp_path: Path, memory_home: Path):
    nb = new_notebook(
        [
            "%load_ext jupyter_memory",
            "%memory propose Refunds older than 90 days are write-offs",
            "%memory status",
        ]
    )
    execute(nb, tmp_path, kernel_env(JUPYTER_MEMORY_HOME=str(memory_home)))
    outputs = nb.cells[1]["outputs"]
    cards = [o["data"][PROPOSAL_MIME] for o in outputs if PROPOSAL_MIME in o.get("data", {})]
    assert len(cards) == 1 and len(cards[0]["cards"]) == 1
    with Memory(memory_home) as mem:
        (p,) = mem.queue()
    assert cards[0]["cards"][0]["id"] == p.id
    assert p.text == "Refunds older than 90 days are write-offs"
    assert p.quote_origin.cell_id  # the cell the person typed it in
    status = nb.cells[2]["outputs"][0]["data"]["text/plain"]
    assert "queue:        1 pending" in status
