"""What a review card reads and does (issue 15): ``Memory.hooks.review_states`` and
``Memory.review_memory`` — the live state of each memory, one decision per memory
(a second is a ConflictError naming the first), a project-layer memory found in its
project from a process that focuses none."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.exceptions import ConflictError, NotFoundError, ValidationError


def unreviewed(mem, text: str, quote: str | None = "the person's own words") -> str:
    evidence = [{"quote": quote, "source": "cell"}] if quote else []
    return str(mem.remember(text, source="session-digest", reviewed=False, evidence=evidence).id)


def test_states_in_asked_order_and_the_missing(mem):
    a = unreviewed(mem, "Refunds arrive two days late")
    b = unreviewed(mem, "From agent replies only", quote=None)
    written = mem.remember("Revenue excludes refunds").id  # the person's: needs no review
    found = mem.hooks.review_states([b, "m-gone", a, written])
    assert [s.id for s in found.states] == [b, a, written]
    assert [s.state for s in found.states] == ["unreviewed", "unreviewed", "kept"]
    assert found.missing == ["m-gone"]
    assert found.states[0].promotable is False and found.states[1].promotable is True
    assert found.to_dict()["items"][1]["quotes"] == [
        {"quote": "the person's own words", "source": "cell"}
    ]
    with pytest.raises(ValidationError):
        mem.hooks.review_states(["a/b"])


def test_one_decision_per_memory(mem):
    kept = unreviewed(mem, "Weekends are excluded from lead time")
    promoted = unreviewed(mem, "口径：毛利按含税收入计算")
    assert mem.review_memory(kept, "keep").status == "kept"
    decision = mem.review_memory(promoted, "promote", kind="info")
    pid = decision.to_dict()["proposal"]["id"]
    (state,) = mem.hooks.review_states([promoted]).states
    assert state.state == "promoted" and state.promoted_to == pid
    for memory_id, already in ((kept, "already_kept"), (promoted, "already_promoted")):
        for verb in ("keep", "discard", "promote"):
            with pytest.raises(ConflictError) as err:
                mem.review_memory(memory_id, verb)
            assert err.value.state == already
    assert mem.get(kept).meta.reviewed is True  # nothing was forgotten
    with pytest.raises(NotFoundError):
        mem.review_memory("m-gone", "keep")
    with pytest.raises(ValidationError):
        mem.review_memory(kept, "approve")


def test_a_project_memory_is_found_in_its_project(tmp_path: Path):
    home, folder = tmp_path / "home", tmp_path / "sales-q3"
    folder.mkdir()
    with Memory(home=home, project=folder) as kernel:
        mid = unreviewed(kernel, "Q3 is July to September")
        assert kernel.hooks.review_states([mid]).states[0].layer == "project"
    with Memory(home=home) as server:  # focuses no project, like the Jupyter server
        # Found without naming the project too: every registered project is looked in.
        (found,) = server.hooks.review_states([mid]).states
        assert (found.layer, found.project) == ("project", "sales-q3")
        assert server.hooks.review_states(["m-01zzzzzzzzzzzzzzzzzzzz"]).missing == [
            "m-01zzzzzzzzzzzzzzzzzzzz"
        ]
        (state,) = server.hooks.review_states([mid], project="sales-q3").states
        assert (state.layer, state.project) == ("project", "sales-q3")
        decision = server.review_memory(mid, "promote", project="sales-q3")
        assert server.proposal(decision.to_dict()["proposal"]["id"]).project == "sales-q3"


def _decide_in_child(home: str, memory_id: str, verb: str, start, out) -> None:
    with Memory(home=home) as mem:
        start.wait()  # every child has its Memory open: all decide at the same moment
        try:
            out.put((verb, mem.review_memory(memory_id, verb).status))
        except (ConflictError, NotFoundError) as exc:
            out.put((verb, type(exc).__name__))


@pytest.mark.slow  # processes racing: make test, not make test-fast
def test_racing_keeps_and_discards_decide_once(tmp_path: Path):
    """Cards in several kernels, the panel and the CLI decide one memory at once:
    exactly one decision takes effect; the others are told it was already made."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    home = tmp_path / "home"
    for _round in range(6):
        with Memory(home=home) as mem:
            memory_id = unreviewed(mem, f"Orders dedupe on order_id (round {_round})")
        out = ctx.Queue()
        verbs = ["keep", "discard", "keep", "discard"]
        # Released together once the last child is ready (a fixed start time had to
        # allow 1.5 s for a loaded machine to fork them, in each of the 6 rounds).
        start = ctx.Barrier(len(verbs), timeout=60)
        procs = [
            ctx.Process(target=_decide_in_child, args=(str(home), memory_id, v, start, out))
            for v in verbs
        ]
        for p in procs:
            p.start()
        results = [out.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        won = [r for r in results if r[1] in ("kept", "discarded")]
        assert len(won) == 1, results
        audit = (home / "audit.jsonl").read_text(encoding="utf-8")
        decisions = [
            line
            for line in audit.splitlines()
            if memory_id in line and '"action": "create"' not in line
        ]
        assert len(decisions) == 1, decisions
