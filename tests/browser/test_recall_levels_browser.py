"""The panel's memory search shows which memory supersedes which, and each hit's
evidence and provenance (issue 33, spec 003's snippet level)."""

from __future__ import annotations

from browser_helpers import open_panel, screenshot, show_tab


def test_search_hits_show_supersede_evidence_and_provenance(page, lab, lab_mem):
    old = lab_mem.remember(
        "The nightly export runs at 6am.",
        evidence=[{"quote": "ops said the export starts at six", "source": "ops.ipynb"}],
    )
    new = lab_mem.remember("The nightly export runs at 7am.")
    assert new.meta.supersedes == [old.id]
    open_panel(page, lab)
    show_tab(page, "memories")
    page.locator("#jm-memories .jm-search").fill("nightly export 6am")
    page.locator("#jm-memories .jm-search").press("Enter")
    older = page.locator(f"#jm-memories .jm-hit[data-id='{old.id}']")
    older.wait_for()
    hits = page.locator("#jm-memories .jm-hit")
    assert hits.nth(0).get_attribute("data-id") == new.id  # the newer value first
    assert older.locator(".jm-hit-superseded").inner_text() == f"superseded by {new.id}"
    assert older.locator(".jm-hit-evidence").inner_text() == (
        "> ops said the export starts at six — ops.ipynb"
    )
    assert older.locator(".jm-hit-provenance").inner_text().startswith("manual · ")
    assert hits.nth(0).locator(".jm-hit-superseded").count() == 0
    screenshot(page, "recall-levels-supersede")
