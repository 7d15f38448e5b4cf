"""The queue asks the identity module (issue 32): paraphrases merge, other subjects never do."""

from __future__ import annotations

from jupyter_memory import Memory


def _propose(mem: Memory, text: str) -> dict:
    return dict(mem.propose(text, "rule", text))


def test_a_paraphrase_of_approved_knowledge_is_not_queued_again(mem: Memory) -> None:
    mem.save_knowledge("user", "## Rules\n- Revenue excludes refunds\n## Info\n")
    res = _propose(mem, "Refunds are not part of revenue")
    assert res["status"] == "skipped" and "user knowledge" in res["reason"]
    assert mem.queue() == []


def test_a_dismissed_rule_in_new_words_stays_dismissed(mem: Memory) -> None:
    first = _propose(mem, "Revenue must exclude refunds")
    mem.dismiss(first["id"])
    res = _propose(mem, "Revenue must always exclude refunds")
    assert res["status"] == "skipped" and "dismissed" in res["reason"]
    assert mem.queue() == []


def test_another_region_never_supersedes_a_pending_rule(mem: Memory) -> None:
    north = _propose(mem, "North region revenue must exclude test accounts")
    south = _propose(mem, "South region revenue must exclude test accounts")
    assert south["status"] == "queued" and south["supersedes"] is None
    assert {p.id for p in mem.queue()} == {north["id"], south["id"]}


def test_eight_region_rules_proposed_together_stay_eight(mem: Memory) -> None:
    regions = ["North", "South", "East", "West", "Central", "EMEA", "APAC", "LATAM"]
    for region in regions:
        _propose(mem, f"{region} region revenue must exclude test accounts")
    assert len(mem.queue()) == 8


def test_after_south_is_dismissed_north_is_still_the_same_card(mem: Memory) -> None:
    north = _propose(mem, "North region revenue must exclude test accounts")
    south = _propose(mem, "South region revenue must exclude test accounts")
    mem.dismiss(south["id"])
    again = _propose(mem, "North region revenue must exclude test accounts.")
    assert again["status"] == "skipped" and north["id"] in again["reason"]
    assert [p.id for p in mem.queue()] == [north["id"]]


def test_an_update_supersedes_and_says_what_it_replaces_in_words(mem: Memory) -> None:
    old = _propose(mem, "The orders_daily table refreshes at 6am UTC")
    new = _propose(mem, "The orders_daily table refreshes at 7am UTC")
    assert new["supersedes"] == old["id"]
    replaced = mem.queue(include_decided=True)
    by_id = {p.id: p for p in replaced}
    assert by_id[new["id"]].supersedes_text == "The orders_daily table refreshes at 6am UTC"
    assert by_id[old["id"]].status == "superseded"
    assert by_id[old["id"]].superseded_by_text == "The orders_daily table refreshes at 7am UTC"


def test_a_rewording_of_a_pending_rule_is_skipped_not_queued_beside_it(mem: Memory) -> None:
    first = _propose(mem, "Revenue excludes refunds")
    res = _propose(mem, "Revenue should exclude refunds")
    assert res["status"] == "skipped" and first["id"] in res["reason"]
    assert [p.id for p in mem.queue()] == [first["id"]]


def test_each_pending_item_shows_what_it_may_conflict_with_or_is_similar_to(mem: Memory) -> None:
    mem.save_knowledge("user", "## Rules\n- Revenue excludes refunds\n## Info\n")
    flip = _propose(mem, "Revenue includes refunds")
    north = _propose(mem, "North region revenue must exclude test accounts")
    south = _propose(mem, "South region revenue must exclude test accounts")
    context = mem.hooks.decision_context(mem.queue())
    (conflict,) = [n.to_dict() for n in context[flip["id"]]]
    assert conflict == {
        "text": "Revenue excludes refunds",
        "where": "knowledge",
        "ref": "user",
        "relation": "contradicts",
        "reason": "says the opposite",
        "slot": "negation",
    }
    (similar,) = context[north["id"]]
    assert (similar.ref, similar.relation.kind.value, similar.relation.slot) == (
        south["id"],
        "related",
        "region",
    )


def test_a_contradiction_applied_as_a_replacement_takes_the_old_entrys_place(mem: Memory) -> None:
    mem.save_knowledge("user", "## Rules\n- Revenue excludes refunds\n- Use UTC\n## Info\n")
    flip = _propose(mem, "Revenue includes refunds")
    result = mem.apply(flip["id"], to="user", replaces="Revenue excludes refunds")
    assert result["status"] == "applied"
    leaves = [leaf for _, leaf in mem.hooks.knowledge_doc("user").leaves()]
    assert leaves == ["Use UTC", "Revenue includes refunds"]
    (record,) = [r for r in mem.hooks.audit.records() if r["action"] == "proposal.apply"]
    assert record["replaced"] and record["replaced"] != record["item"]


def test_replacing_an_entry_that_is_not_there_changes_nothing(mem: Memory) -> None:
    import pytest

    from jupyter_memory.exceptions import ValidationError

    mem.save_knowledge("user", "## Rules\n- Use UTC\n## Info\n")
    before = mem.knowledge("user")
    flip = _propose(mem, "Revenue includes refunds")
    with pytest.raises(ValidationError, match="replaces"):
        mem.apply(flip["id"], to="user", replaces="Revenue excludes refunds")
    assert mem.knowledge("user") == before and mem.proposal(flip["id"]).is_pending
