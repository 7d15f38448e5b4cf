"""The queue's search and filters (GET queue?q=&layer=&kind=&source=), as a pure rule."""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.queue_filter import QueueFilter, source_of
from jupyter_memory.exceptions import ValidationError


def proposal(**fields):
    base = {
        "text": "Revenue is net of refunds",
        "evidence_quote": "revenue is net of refunds",
        "kind": "rule",
        "source": "chat-extraction",
        "suggested_layer": "user",
        "project": None,
        "quote_origin": {"notebook_path": "analyses/orders.ipynb", "cell_id": "c1"},
    }
    return {**base, **fields}


def test_an_extracted_proposal_is_from_a_cell_or_from_a_chat_by_its_quote():
    assert source_of(proposal()) == "cell"
    assert source_of(proposal(quote_origin={"message_id": "m1", "cell_id": None})) == "chat"
    assert source_of(proposal(quote_origin=None)) == "chat"
    assert source_of(proposal(source="import")) == "import"


def test_every_word_must_match_in_any_case_or_width():
    p = proposal(project="sales-q3", text="地区代码按照ＩＳＯ 3166")
    assert QueueFilter.parse(text="iso 3166").matches(p)  # full-width letters fold
    assert QueueFilter.parse(text="ORDERS.ipynb 地区").matches(p)  # path and text
    assert QueueFilter.parse(text="sales-q3").matches(p)
    assert not QueueFilter.parse(text="iso weekly").matches(p)


def test_layer_kind_and_source_each_narrow_the_queue():
    p = proposal(suggested_layer="project", kind="info")
    assert QueueFilter.parse(layer="project", kind="info", source="cell").matches(p)
    assert not QueueFilter.parse(layer="user").matches(p)
    assert not QueueFilter.parse(kind="rule").matches(p)
    assert not QueueFilter.parse(source="chat").matches(p)
    assert not QueueFilter().active and QueueFilter().matches(p)


@pytest.mark.parametrize("field", ["layer", "kind", "source"])
def test_a_value_outside_its_list_names_the_field(field):
    with pytest.raises(ValidationError) as caught:
        QueueFilter.parse(**{field: "everything"})
    assert caught.value.field == field and "everything" in str(caught.value)
