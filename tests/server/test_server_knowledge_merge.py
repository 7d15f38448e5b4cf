"""POST knowledge/{layer}/merge (issue 28): the editor's merge is the server's merge by item."""

from __future__ import annotations

OPENED = "## Rules\n\n- Revenue excludes refunds\n- Dates are stored in UTC\n\n## Info\n"


async def test_a_stale_save_is_merged_by_item_then_saved(api, server_memory, memory_home):
    code, first = await api("GET", "knowledge", "user")
    code, _ = await api("PUT", "knowledge", "user", body={"text": OPENED, "base": first["version"]})
    assert code == 200
    code, opened = await api("GET", "knowledge", "user")  # the panel editor opens
    pid = server_memory.propose(
        "Always label chart axes", "rule", "Always label chart axes", source="manual"
    )["proposal"]["id"]
    code, _ = await api("POST", "queue", pid, "apply", body={"to": "user"})
    assert code == 200
    # The person reworded one rule and added another, both where the Apply also wrote.
    mine = opened["text"].replace(
        "- Dates are stored in UTC\n",
        "- Dates are stored in UTC, never local time\n- 金额以欧元计\n",
    )
    code, stale = await api(
        "PUT", "knowledge", "user", body={"text": mine, "base": opened["version"]}
    )
    assert code == 409, stale
    before = (memory_home / "knowledge.md").read_bytes()
    code, merged = await api(
        "POST",
        "knowledge",
        "user",
        "merge",
        body={"base": opened["text"], "ours": mine, "theirs": stale["current"]["text"]},
    )
    assert code == 200, merged
    assert (memory_home / "knowledge.md").read_bytes() == before  # a merge writes nothing
    assert merged["clean"] and not merged["over_cap"] and merged["both_kept"] == []
    rules = [
        line[2:] for line in merged["text"].splitlines() if line.startswith("- ")
    ]  # the reworded rule replaced its old text: an item, not two lines
    assert rules == [
        "Revenue excludes refunds",
        "Dates are stored in UTC, never local time",
        "金额以欧元计",
        "Always label chart axes",
    ]
    code, done = await api(
        "PUT",
        "knowledge",
        "user",
        body={"text": merged["text"], "base": stale["current"]["version"]},
    )
    assert code == 200, done
    assert server_memory.proposal(pid).status == "applied"


async def test_an_item_changed_on_both_sides_comes_back_in_both_versions(api):
    theirs = OPENED.replace("refunds", "refunds and chargebacks")
    ours = OPENED.replace("refunds", "refunds and taxes")
    code, merged = await api(
        "POST",
        "knowledge",
        "project",
        "merge",
        body={"base": OPENED, "ours": ours, "theirs": theirs},
    )
    assert code == 200, merged
    assert not merged["clean"] and "<<<<<<<" not in merged["text"]
    assert merged["both_kept"] == [
        {
            "section": "rules",
            "ours": ["Revenue excludes refunds and taxes"],
            "theirs": ["Revenue excludes refunds and chargebacks"],
        }
    ]
    assert merged["chars"] == len(merged["text"])


async def test_a_side_that_does_not_parse_is_422_naming_it_and_its_line(api):
    bad = "## Rules\n\n- ok\n      - - ?\n"
    code, data = await api(
        "POST", "knowledge", "user", "merge", body={"base": OPENED, "ours": bad, "theirs": OPENED}
    )
    assert code == 422, data
    assert data["field"] == "ours" and data["message"].startswith("ours:4: ")
    code, data = await api(
        "POST", "knowledge", "nope", "merge", body={"base": "", "ours": "", "theirs": ""}
    )
    assert code == 404 and data["field"] == "layer"
