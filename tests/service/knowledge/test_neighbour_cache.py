"""A queue listing's neighbours are kept while nothing changed, and follow every change.

The cache (service/knowledge/neighbours.py) must answer exactly what a fresh
index answers: the same neighbours in the same order. Every kind of change
invalidates it: a new proposal, a decision, a knowledge edit, a write by a
second ``Memory`` on the same home (another process), a file changed by hand
or by a teammate's ``git pull``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.dedup import NEIGHBOUR_CANDIDATES, NeighbourIndex
from jupyter_memory.core.knowledge.identity import Relation, relate
from jupyter_memory.core.knowledge.known import Known

REGIONS = ["North", "South", "East", "West", "Central", "EMEA", "APAC", "LATAM"]
KNOWLEDGE = "## Rules\n- Revenue excludes refunds\n- Report times in UTC\n## Info\n"


def _propose(mem: Memory, text: str) -> str:
    result = mem.propose(text, "rule", text)
    assert result["status"] == "queued", result
    return str(result["id"])


def _seed(mem: Memory) -> None:
    mem.save_knowledge("user", KNOWLEDGE)
    for region in REGIONS:
        _propose(mem, f"{region} region revenue must exclude test accounts")
    _propose(mem, "Revenue includes refunds")
    _propose(mem, "Report times in local time, not UTC")
    for i in range(12):
        _propose(mem, f"Table t{i} is refreshed at {i + 1} am")


def _context(mem: Memory) -> dict[str, list[dict[str, object]]]:
    got = mem.hooks.decision_context(mem.queue())
    return {pid: [n.to_dict() for n in found] for pid, found in got.items()}


def _fresh(mem: Memory) -> dict[str, list[dict[str, object]]]:
    """What an index built afresh answers (the cache switched off)."""
    cache = mem.hooks.knowledge_services.queue.neighbours
    cache.enabled = False
    try:
        return _context(mem)
    finally:
        cache.enabled = True


def _builds(mem: Memory) -> int:
    return int(mem.hooks.knowledge_services.queue.neighbours.builds)


def _refs(context: dict[str, list[dict[str, object]]], pid: str) -> list[object]:
    return [n["text"] for n in context[pid]]


def test_the_cache_answers_what_a_fresh_index_answers_and_a_refresh_builds_nothing(
    mem: Memory,
) -> None:
    _seed(mem)
    cached = _context(mem)
    builds = _builds(mem)
    assert _context(mem) == cached  # a refresh with no change
    first, *rest = mem.queue()
    mem.hooks.decision_context([first])  # another page
    mem.hooks.decision_context(rest)
    assert _builds(mem) == builds
    assert cached == _fresh(mem)
    assert any(cached.values())  # the seed has neighbours to compare


def test_a_new_proposal_a_dismissal_and_an_apply_each_show_at_once(mem: Memory) -> None:
    _seed(mem)
    before = _context(mem)
    added = _propose(mem, "Nordic region revenue must exclude test accounts")
    after_add = _context(mem)
    assert after_add == _fresh(mem)
    assert added in after_add and added not in before
    assert _refs(after_add, added)  # the other regions' rules
    assert all("region revenue must exclude" in str(t) for t in _refs(after_add, added))

    mem.dismiss(added)
    after_dismiss = _context(mem)
    assert after_dismiss == _fresh(mem)
    assert added not in after_dismiss
    assert all(added not in {n["ref"] for n in found} for found in after_dismiss.values())

    south = next(p for p in mem.queue() if p.text.startswith("South"))
    mem.apply(south.id, to="user")
    after_apply = _context(mem)
    assert after_apply == _fresh(mem)
    shown = [n for found in after_apply.values() for n in found if n["text"] == south.text]
    assert shown and all((n["where"], n["ref"]) == ("knowledge", "user") for n in shown)


def test_a_knowledge_edit_shows_at_once(mem: Memory) -> None:
    _seed(mem)
    flip = next(p.id for p in mem.queue() if p.text == "Revenue includes refunds")
    assert _refs(_context(mem), flip) == ["Revenue excludes refunds"]
    version = mem.hooks.knowledge_version("user")
    mem.save_knowledge("user", "## Rules\n- Report times in UTC\n## Info\n", base=version)
    assert _context(mem)[flip] == []
    assert _context(mem) == _fresh(mem)


def test_a_write_by_another_memory_on_the_same_home_shows(mem: Memory, memory_home: Path) -> None:
    _seed(mem)
    flip = next(p.id for p in mem.queue() if p.text == "Revenue includes refunds")
    before = _context(mem)
    assert _refs(before, flip) == ["Revenue excludes refunds"]
    with Memory(home=memory_home) as other:  # another process's writes, through the files
        added = _propose(other, "Nordic region revenue must exclude test accounts")
        version = other.hooks.knowledge_version("user")
        other.save_knowledge("user", "## Rules\n- Report times in UTC\n## Info\n", base=version)
    context = _context(mem)
    assert context == _fresh(mem)
    assert _refs(context, flip) == []
    assert added in context and _refs(context, added)  # listed, with the other regions
    with Memory(home=memory_home) as other:
        other.dismiss(added)
    context = _context(mem)
    assert added not in context
    assert all(added not in {n["ref"] for n in found} for found in context.values())


def test_files_changed_by_hand_or_by_a_pull_show(mem: Memory, memory_home: Path) -> None:
    _seed(mem)
    flip = next(p for p in mem.queue() if p.text == "Revenue includes refunds")
    assert _refs(_context(mem), flip.id) == ["Revenue excludes refunds"]
    # Rewritten in place, as an editor or git does: no rename, same folder.
    knowledge = memory_home / "knowledge.md"
    knowledge.write_text(knowledge.read_text("utf-8").replace("excludes", "omits"), "utf-8")
    assert _refs(_context(mem), flip.id) == ["Revenue omits refunds"]
    (path,) = [f for f in (memory_home / "queue").glob("*.md") if flip.id in f.name]
    path.write_text(
        path.read_text("utf-8").replace("includes refunds", "keeps refunds in"), "utf-8"
    )
    (item,) = [p for p in mem.queue() if p.id == flip.id]
    assert item.text == "Revenue keeps refunds in"
    assert _context(mem) == _fresh(mem)


@pytest.mark.parametrize("n", [5, NEIGHBOUR_CANDIDATES + 20])
def test_the_index_ranks_candidates_as_a_full_sort_does(n: int) -> None:
    # Many entries sharing as many words (ties): which candidates the identity
    # decision reads, and the order of the answer, stay those of the sort.
    known = [Known(f"Region r{i} revenue must exclude test accounts", "pending", f"p{i}")
             for i in range(n)]  # fmt: skip
    text = "Region r3 revenue must exclude test accounts"
    got = [(x.ref, x.relation.kind) for x in NeighbourIndex(known).nearest(text, limit=n)]
    expected = []
    for item in known[:NEIGHBOUR_CANDIDATES]:  # every entry shares the same words but one
        rel = relate(text, item.text)
        if rel.kind is Relation.UNRELATED or (rel.kind is Relation.RELATED and rel.overlap < 0.5):
            continue
        expected.append((item, rel))
    order = {Relation.CONTRADICTS: 0, Relation.UPDATE: 1, Relation.SAME: 2, Relation.RELATED: 3}
    expected.sort(key=lambda e: (order[e[1].kind], -e[1].overlap))
    assert got == [(item.ref, rel.kind) for item, rel in expected]
