"""A decision is one of closed types (``Applied | Dismissed | AlreadyDecided``), matched
by type; each ``to_dict()`` is exactly the JSON a decision answered with before."""

from __future__ import annotations

from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.service.knowledge.results import (
    AlreadyDecided,
    Applied,
    DecisionResult,
    Dismissed,
)

CHAT = [{"role": "user", "text": "Revenue must always exclude refunds", "id": "m1"}]


def _proposed(mem: Memory, text: str = "Revenue excludes refunds") -> str:
    return str(
        mem.propose(text, "rule", "Revenue must always exclude refunds", messages=CHAT)["id"]
    )


def test_apply_then_again_is_applied_then_already_saved(mem: Memory) -> None:
    pid = _proposed(mem)
    done = mem.apply(pid, to="user")
    assert isinstance(done, Applied)
    assert done.to_dict() == {
        "id": pid,
        "status": "applied",
        "layer": "user",
        "project": None,
        "section": "rules",
        "path": str(Path(mem.home) / "knowledge.md"),
        "version": done.version,
    }
    again = mem.apply(pid, to="user")
    assert isinstance(again, AlreadyDecided) and again.state == "saved"
    assert again.to_dict() == {
        "id": pid,
        "status": "already_saved",
        "layer": "user",
        "project": None,
    }
    assert dict(again) == again.to_dict()  # still reads like the dict it was


def test_dismiss_then_again_is_dismissed_then_already_dismissed(mem: Memory) -> None:
    pid = _proposed(mem)
    done = mem.dismiss(pid)
    assert isinstance(done, Dismissed) and done.to_dict() == {"id": pid, "status": "dismissed"}
    for again in (mem.dismiss(pid), mem.apply(pid, to="user")):
        assert isinstance(again, AlreadyDecided) and again.state == "dismissed"
        assert again.to_dict() == {"id": pid, "status": "already_dismissed"}


def test_a_superseded_proposal_names_what_took_its_place(mem: Memory) -> None:
    first = _proposed(mem)
    second = _proposed(mem, "Revenue excludes refunds and chargebacks")
    late = mem.apply(first, to="user")
    assert isinstance(late, AlreadyDecided) and late.state == "superseded"
    assert late.to_dict() == {"id": first, "status": "already_superseded", "superseded_by": second}


def test_the_three_types_are_the_whole_decision_and_match_by_type(mem: Memory) -> None:
    def said(result: DecisionResult) -> str:
        match result:
            case Applied(layer=layer):
                return f"saved to {layer}"
            case Dismissed():
                return "dismissed"
            case AlreadyDecided(state=state):
                return f"already {state}"

    pid = _proposed(mem)
    assert [said(mem.apply(pid, to="user")), said(mem.dismiss(pid))] == [
        "saved to user",
        "already saved",
    ]
    assert set(DecisionResult.__args__) == {Applied, Dismissed, AlreadyDecided}
