"""Updated facts first (issue 33): a memory restating another with a new value supersedes it."""

from __future__ import annotations

from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.core.memories.supersede import newer_first, newest_versions
from jupyter_memory.service.agent_access import AgentAccess


def test_newest_versions_follow_chains_and_cut_cycles():
    assert newest_versions({"b": ["a"], "c": ["b"]}) == {"a": "c", "b": "c"}
    # Two hand edits naming each other: no endless walk, each points at the other.
    assert newest_versions({"a": ["b"], "b": ["a"]}) == {"b": "a", "a": "b"}
    assert newest_versions({"a": ["a"]}) == {}


def test_newer_first_moves_up_or_brings_in_the_newest():
    assert newer_first(["x", "old", "new"], {"old": "new"}) == ["x", "new", "old"]
    assert newer_first(["old", "x"], {"old": "new"}) == ["new", "old", "x"]
    assert newer_first(["new", "old"], {"old": "new"}) == ["new", "old"]


def test_an_update_supersedes_and_ranks_first(mem: Memory, clock):
    old = mem.remember("The nightly export runs at 6am.")
    mem.remember("Refunds are excluded from revenue.")
    clock.advance(days=1)
    new = mem.remember("The nightly export runs at 7am.")
    assert new.meta.supersedes == [old.id]
    assert "supersedes:" in Path(new.path).read_text("utf-8")
    assert "supersedes" not in Path(old.path).read_text("utf-8")  # only when it says something
    assert mem.get(old.id).superseded_by == new.id
    assert mem.get(new.id).superseded_by is None
    # The question's words favour the old statement ("6am"): the newer still leads.
    hits = mem.recall("nightly export 6am", record_access=False)
    assert [h.id for h in hits[:2]] == [new.id, old.id]
    assert hits[1].superseded_by == new.id and hits[0].superseded_by is None
    assert hits[0].score >= hits[1].score
    # Only the old one matches: the newest version is brought in above it.
    only = mem.recall("6am", record_access=False)
    assert [h.id for h in only] == [new.id, old.id]


def test_other_subjects_are_not_superseded(mem: Memory):
    mem.remember("The North region report runs at 6am.")
    south = mem.remember("The South region report runs at 7am.")
    unrelated = mem.remember("Always dedupe orders on order_id before joining.")
    assert south.meta.supersedes == [] and unrelated.meta.supersedes == []
    # Identity's "the same rule, wider": the older statement is still true.
    mem.remember("Maria volunteers at a homeless shelter.")
    wider = mem.remember("Maria volunteers at a homeless shelter and is driven to help.")
    assert wider.meta.supersedes == []
    assert all(h.superseded_by is None for h in mem.recall("report", record_access=False))


def test_explicit_supersedes_and_hand_edits_are_the_authority(mem: Memory):
    a = mem.remember("Standup is in room 4.")
    b = mem.remember("We meet in the big hall on Fridays.", supersedes=[a.id])
    assert b.meta.supersedes == [a.id]
    # Removing the line by hand unlinks them once the index catches up.
    path = Path(b.path)
    path.write_text(path.read_text("utf-8").replace(f'supersedes: ["{a.id}"]\n', ""), "utf-8")
    with Memory(home=mem.home) as again:
        assert again.get(a.id).superseded_by is None
    c = mem.remember("The export runs at 6am.")
    d = mem.remember("The export runs at 7am.", supersedes=())
    assert d.meta.supersedes == [] and mem.get(c.id).superseded_by is None


def test_the_agent_block_carries_only_the_newer(mem: Memory):
    mem.remember("The nightly export runs at 6am.")
    mem.remember("The nightly export runs at 7am.")
    block = AgentAccess(mem, agent="dev").context(query="nightly export")
    assert "7am" in block and "6am" not in block


def test_links_and_evidence_survive_a_rebuild(mem: Memory):
    old = mem.remember("The nightly export runs at 6am.", evidence=["ops said six"])
    new = mem.remember("The nightly export runs at 7am.")
    mem.hooks.rebuild_index()  # the bulk loader writes the rows again, from the files
    assert mem.get(old.id).superseded_by == new.id
    hits = mem.recall("nightly export 6am", record_access=False)
    assert [h.id for h in hits] == [new.id, old.id] and hits[1].evidence == ["ops said six"]


def test_an_unreviewed_restatement_never_hides_the_persons_memory(mem: Memory):
    """A session digest may restate the person's memory with a new value; until
    the person keeps it, the block still carries the person's own words."""
    mine = mem.remember("The nightly export runs at 6am.")
    digest = mem.remember(
        "The nightly export runs at 7am.", reviewed=False, source="session-digest"
    )
    assert digest.meta.supersedes == [mine.id]
    for block in (mem.context(), AgentAccess(mem, agent="dev").context(query="nightly export")):
        assert "6am" in block and "7am" not in block
    mem.hooks.keep_memory(digest.id)
    block = AgentAccess(mem, agent="dev").context(query="nightly export")
    assert "7am" in block and "6am" not in block
