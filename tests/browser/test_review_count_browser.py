"""The panel's counts in a real JupyterLab and Chromium (issue 32): the memories waiting for
review on the Memories tab, following a review; today's LLM spend in Settings."""

from __future__ import annotations

import json
from datetime import datetime

from browser_helpers import (
    PANEL,
    open_panel,
    refreshes,
    show_tab,
    wait_refreshed_after,
    wait_reorganized,
)

from jupyter_memory.store.llm_spend import LLMSpendFile


def _unreviewed(mem, text: str) -> str:
    evidence = [{"quote": text, "source": "cell"}]
    entry = mem.remember(text, source="session-digest", reviewed=False, evidence=evidence)
    return str(entry.id)


def test_the_memories_tab_counts_what_waits_for_review(page, lab, lab_mem):
    for memory in lab_mem.unreviewed():
        lab_mem.review_memory(memory.id, "discard")  # another test's leftovers
    first = _unreviewed(lab_mem, "Refunds arrive two days late")
    _unreviewed(lab_mem, "退款晚到两天才入账")
    open_panel(page, lab)
    badge = page.locator(f"{PANEL} .jm-tab-memories .jm-review-badge")
    page.wait_for_selector(f"{PANEL}[data-unreviewed='2']", state="attached")
    assert badge.get_attribute("hidden") is None and badge.text_content() == "2"
    if not page.locator(f"{PANEL} .jm-tab-memories").is_visible():
        # At 250 px the tab waits in the More menu: More carries the count.
        assert page.locator(f"{PANEL} .jm-tab-more .jm-more-badge").inner_text() == "2"
    tab = page.locator(f"{PANEL} .jm-tab-memories")
    assert tab.get_attribute("title") == "2 memories wait for review: %memories --review"

    before = refreshes(page)
    lab_mem.review_memory(first, "keep")  # reviewed elsewhere (a notebook's review card)
    wait_refreshed_after(page, before)  # the server's file watcher announced the change
    page.wait_for_selector(f"{PANEL}[data-unreviewed='1']", state="attached")
    assert badge.text_content() == "1"
    assert tab.get_attribute("title") == "1 memory waits for review: %memories --review"
    assert not page.js_errors  # type: ignore[attr-defined]


def test_settings_shows_todays_llm_spend_against_the_budget(page, lab, lab_mem):
    lab_mem.update_settings(llm_budget={"calls_per_day": 3, "tokens_per_day": 5_000})
    day = datetime.now().astimezone().date().isoformat()
    spend = LLMSpendFile(lab.home)
    spend.path.unlink(missing_ok=True)
    spend.add(day, "extraction", 1_200)
    spend.add(day, "digest", 300)
    open_panel(page, lab)
    show_tab(page, "settings")
    line = page.locator(f"{PANEL} .jm-llm-spend")
    assert line.inner_text() == (
        "LLM today: 2 of 3 calls, 1,500 of 5,000 tokens"
        " (background extraction, digests and reorganize stop when spent)"
    )
    assert line.get_attribute("data-spent") == "false"

    before = refreshes(page)
    spend.add(day, "reorganize", 100)  # the third call: the budget is spent
    lab_mem.update_settings(llm_budget={"calls_per_day": 3, "tokens_per_day": 5_000})
    wait_refreshed_after(page, before)
    page.wait_for_selector(f"{PANEL} .jm-llm-spend[data-spent='true']")
    assert line.inner_text().startswith("LLM today: 3 of 3 calls, 1,600 of 5,000 tokens")
    lab_mem.update_settings(llm_budget={"calls_per_day": 40, "tokens_per_day": 200_000})
    assert not page.js_errors  # type: ignore[attr-defined]


def test_a_reorganize_past_the_spent_budget_asks_first_and_says_it_went_over(page, lab, lab_mem):
    from openai_test_server import Scripted, llm_server

    lab_mem.save_knowledge(
        "user", "## Rules\n\n- Use UTC everywhere\n- use utc everywhere.\n\n## Info\n"
    )
    spend = LLMSpendFile(lab.home)
    spend.path.unlink(missing_ok=True)
    reorganized = "## Rules\n\n- Use UTC everywhere\n\n## Info\n"
    with llm_server([Scripted(reorganized)] * 2, stream=False) as llm:
        lab_mem.update_settings(
            llm={"base_url": llm.url, "model": "m"}, llm_budget={"calls_per_day": 0}
        )
        try:
            open_panel(page, lab)
            show_tab(page, "user")
            view = page.locator("#jm-knowledge-user")
            view.locator(".jm-reorganize").click()
            dialog = page.locator(".jp-Dialog")
            assert "Today's LLM budget is spent (0 of 0 calls" in dialog.inner_text()
            dialog.locator(".jp-Dialog-button.jp-mod-reject").click()  # Cancel: nothing runs
            dialog.wait_for(state="detached")
            assert llm.requests == []
            view.locator(".jm-reorganize").click()
            page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept").click()
            wait_reorganized(page, "jm-knowledge-user")
            note = view.locator(".jm-preview-note")
            note.wait_for()
            assert "went over today's LLM budget" in note.inner_text()
            assert len(llm.requests) == 1
        finally:  # the lab's other tests run without an LLM
            settings = lab.home / "settings.json"
            data = json.loads(settings.read_text(encoding="utf-8"))
            data.update(llm=None, llm_budget={"calls_per_day": 40, "tokens_per_day": 200_000})
            settings.write_text(json.dumps(data), encoding="utf-8")
    assert not page.js_errors  # type: ignore[attr-defined]
