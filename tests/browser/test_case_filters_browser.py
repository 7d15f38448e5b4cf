"""The Cases view's filters and damaged entries in a real JupyterLab and Chromium
(spec 000 via issue 14): entries filtered by type, evidence id and hypothesis id;
an unreadable entry reported under its case; a legacy entry's unknown state shown."""

from __future__ import annotations

from browser_helpers import open_panel, screenshot, show_tab

CASE = "CASE-2026-001"
LEGACY = "2026-05-31_hesitate_related-party-doubt.md"
BROKEN = "2026-06-03_hesitate_overseas-payment.md"


def _entries(page):
    return page.locator(f"#jm-cases .jm-case[data-case='{CASE}'] .jm-case-entries")


def test_case_entries_filter_by_type_evidence_and_hypothesis(page, lab, lab_mem):
    open_panel(page, lab)
    show_tab(page, "cases")
    page.locator(f"#jm-cases .jm-case[data-case='{CASE}']").wait_for()
    page.locator("#jm-cases .jm-case-evidence").fill("E-018")
    page.locator("#jm-cases .jm-case-filter").click()
    entries = _entries(page)
    page.wait_for_selector(
        f"#jm-cases .jm-case[data-case='{CASE}'] .jm-case-entries[data-count='2']"
    )
    titles = entries.locator(".jm-entry-open").all_inner_texts()
    assert len(titles) == 2 and all("2026-06-1" in t for t in titles)
    assert "match E-018" in entries.locator(".jm-case-count").inner_text()
    page.locator("#jm-cases .jm-case-type").select_option("think")
    page.locator("#jm-cases .jm-case-hypothesis").fill("H-2")
    page.locator("#jm-cases .jm-case-hypothesis").press("Enter")
    page.wait_for_selector(
        f"#jm-cases .jm-case[data-case='{CASE}'] .jm-case-entries[data-count='1']"
    )
    (only,) = entries.locator(".jm-entry-open").all_inner_texts()
    assert "think" in only
    page.locator("#jm-cases .jm-case-type").select_option("")
    page.locator("#jm-cases .jm-case-evidence").fill("")
    page.locator("#jm-cases .jm-case-hypothesis").fill("")
    page.locator("#jm-cases .jm-case-filter").click()
    page.wait_for_selector(
        f"#jm-cases .jm-case[data-case='{CASE}'] .jm-case-entries[data-count='15']"
    )
    screenshot(page, "20-case-filters")
    assert page.js_errors == []


def test_a_bad_filter_says_why(page, lab, lab_mem):
    open_panel(page, lab)
    show_tab(page, "cases")
    page.locator(f"#jm-cases .jm-case[data-case='{CASE}']").wait_for()
    page.locator("#jm-cases .jm-case-evidence").fill("E7")
    page.locator("#jm-cases .jm-case-filter").click()
    status = page.locator("#jm-cases .jm-status[data-tone='error']")
    status.wait_for()
    assert "E7" in status.inner_text() and "evidence" in status.inner_text()


def test_damaged_entries_are_reported_and_legacy_state_shown(page, lab, lab_mem):
    folder = lab.root / "cases" / CASE / "case_memory"
    legacy, broken = folder / LEGACY, folder / BROKEN
    saved = legacy.read_bytes(), broken.read_bytes()
    text = saved[0].decode("utf-8")
    legacy.write_text(text[: text.index("## 后续状态")], "utf-8")
    broken.write_bytes(b"\xff")
    try:
        open_panel(page, lab)
        show_tab(page, "cases")
        case = page.locator(f"#jm-cases .jm-case[data-case='{CASE}']")
        case.wait_for()
        case.locator("summary").click()
        problem = case.locator(".jm-case-problem")
        assert problem.count() == 1 and BROKEN in problem.inner_text()
        row = case.locator("tbody tr", has_text="关联方交易的最初疑虑")
        assert "unknown" in row.inner_text()
        assert case.locator("tbody tr", has_text="境外付款路线证据不足").count() == 1  # kept
        case.locator(".jm-case-entries-button").click()
        page.wait_for_selector(
            f"#jm-cases .jm-case[data-case='{CASE}'] .jm-case-entries[data-count='14']"
        )
        item = case.locator(".jm-entry-open", has_text="关联方交易的最初疑虑")
        assert "unknown" in item.inner_text()
        screenshot(page, "21-case-damaged")
        assert page.js_errors == []
    finally:
        legacy.write_bytes(saved[0])
        broken.write_bytes(saved[1])
