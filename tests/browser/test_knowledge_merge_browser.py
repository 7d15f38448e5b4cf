"""The editor's merge is the server's merge by item (issue 28), in a real lab and Chromium.

Another tab saves the file while the person edits it; their Save is refused
(409) and **Merge both into the editor** asks the server (POST
knowledge/user/merge) for git's merge by item: the rule both added is there
once (a line merge kept both spellings), the rule both reworded is there in
both versions for the person to choose, and the Save that follows keeps it all.
"""

from __future__ import annotations

import json
import urllib.request

from browser_helpers import open_panel, screenshot, show_tab

BASE = "## Rules\n\n- Revenue excludes refunds\n- Dates are stored in UTC\n\n## Info\n"


def _rest(lab, method: str, path: str, body: dict | None = None) -> dict:
    """Another tab's request to the lab's REST API."""
    request = urllib.request.Request(
        f"{lab.url}/jupyter-memory/{path}",
        data=json.dumps(body).encode("utf-8") if body is not None else None,
        method=method,
        headers={"Authorization": f"token {lab.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def _rules(text: str) -> list[str]:
    return [line[2:] for line in text.splitlines() if line.startswith("- ")]


def test_a_concurrent_edit_is_merged_by_item_on_the_server(page, lab, lab_mem):
    lab_mem.save_knowledge("user", BASE)
    open_panel(page, lab)
    show_tab(page, "user")
    view = page.locator("#jm-knowledge-user")
    editor = view.locator("textarea")
    page.wait_for_function(
        "t => document.querySelector('#jm-knowledge-user textarea').value === t", arg=BASE
    )
    page.wait_for_selector("#jm-knowledge-user[data-state='clean']")
    mine = BASE.replace(
        "- Dates are stored in UTC\n",
        "- Dates are stored in UTC, never local time\n- always label chart axes.\n- 金额以欧元计\n",
    )
    editor.fill(mine)
    page.wait_for_selector("#jm-knowledge-user[data-state='dirty']")
    opened = _rest(lab, "GET", "knowledge/user")
    theirs = BASE.replace(
        "- Dates are stored in UTC\n", "- Dates are UTC (ISO 8601)\n- Always label chart axes\n"
    )
    _rest(lab, "PUT", "knowledge/user", {"text": theirs, "base": opened["version"]})

    with page.expect_response(
        lambda r: "/jupyter-memory/knowledge/user" in r.url and r.request.method == "PUT"
    ) as answer:
        view.locator(".jm-save").click()
    assert answer.value.status == 409
    page.wait_for_selector("#jm-knowledge-user[data-state='conflict-stale']")
    with page.expect_response(
        lambda r: "/jupyter-memory/knowledge/user/merge" in r.url and r.request.method == "POST"
    ) as merged:
        view.locator(".jm-conflict-merge").click()
    assert merged.value.status == 200
    assert merged.value.request.post_data_json == {"base": BASE, "ours": mine, "theirs": theirs}
    page.wait_for_selector("#jm-knowledge-user[data-conflict='false']")
    assert _rules(editor.input_value()) == [
        "Revenue excludes refunds",
        "Dates are stored in UTC, never local time",
        "Dates are UTC (ISO 8601)",
        "always label chart axes.",
        "金额以欧元计",
    ]
    assert "Both versions of each changed item" in view.locator(".jm-status").inner_text()
    screenshot(page, "knowledge-merged-by-item")

    # The person keeps one version of the reworded rule and saves over the newer file.
    editor.fill(editor.input_value().replace("- Dates are UTC (ISO 8601)\n", ""))
    with page.expect_response(
        lambda r: "/jupyter-memory/knowledge/user" in r.url and r.request.method == "PUT"
    ) as answer:
        view.locator(".jm-save").click()
    assert answer.value.status == 200
    page.wait_for_selector("#jm-knowledge-user[data-state='clean']")
    saved = (lab.home / "knowledge.md").read_text(encoding="utf-8")
    assert _rules(saved) == [
        "Revenue excludes refunds",
        "Dates are stored in UTC, never local time",
        "always label chart axes.",
        "金额以欧元计",
    ]
    assert page.js_errors == []
