"""The hits recall builds without pydantic's checks are the hits validation builds."""

from __future__ import annotations

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.memories.hits import RecallHit


@pytest.mark.parametrize("level", ["index", "snippet", "full"])
def test_every_field_at_every_level(mem: Memory, level: str) -> None:
    mem.remember(
        "Revenue excludes refunds in the Q3 report",
        evidence=[{"quote": "finance said refunds are netted out", "source": "q3.ipynb"}],
        tags=["finance"],
    )
    mem.remember("Refunds are booked on the day the order is cancelled", type="episodic")
    hits = mem.recall("refunds", level=level, record_access=False)
    assert len(hits) == 2
    for hit in hits:
        # ``RecallHit.adopt`` checks no key: the literal in MemoryRecall.hit must name
        # every field, and validation must build the same hit from it.
        assert hit.__dict__.keys() == RecallHit.model_fields.keys()
        assert hit.model_fields_set == set(RecallHit.model_fields)
        checked = RecallHit.model_validate(hit.__dict__)
        assert hit == checked and hit.to_dict() == checked.to_dict()
    hits[0].model_fields_set.discard("id")  # each hit has a set of its own
    assert "id" in hits[1].model_fields_set
