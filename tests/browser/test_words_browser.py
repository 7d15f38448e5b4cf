"""One vocabulary in the panel and the cards (issue 31), in English and Chinese.

A proposal from a notebook cell says "from a cell" (not "chat extraction"), an
Apply reads "Saved to User" in the toast as on the card, a Dismiss reads
"Dismissed" with the card's note, a past "Saved." goes with the next edit,
and "用于这个笔记本：" stays on one line at the panel's default width.
"""

from __future__ import annotations

from browser_helpers import PANEL, cards_notebook, open_panel, queue_item, screenshot, show_tab
from test_i18n_browser import set_language


def propose_from(lab_mem, text: str, origin: dict[str, str]) -> str:
    r = lab_mem.propose(
        text,
        "rule",
        text,
        source="chat-extraction",
        messages=[{"role": "user", "text": f"Note: {text}"}],
        quote_origin=origin,
    )
    assert r["status"] == "queued", r
    return str(r["id"])


def test_the_panel_says_one_word_for_each_act_in_english(page, lab, lab_mem):
    set_language(lab, "en")
    propose_from(
        lab_mem, "Revenue excludes refunds", {"notebook_path": "a.ipynb", "cell_id": "c-1"}
    )
    propose_from(lab_mem, "Refunds post on Fridays", {"message_id": "m-7"})
    open_panel(page, lab)
    cell = queue_item(page, "Revenue excludes refunds")
    chat = queue_item(page, "Refunds post on Fridays")
    assert cell.locator(".jm-source").inner_text() == "from a cell"
    assert chat.locator(".jm-source").inner_text() == "from a chat"
    cell.locator(".jm-apply-user").click()
    page.locator(".Toastify__toast", has_text="Saved to User").wait_for()
    assert page.locator(".Toastify__toast", has_text="Applied").count() == 0
    chat.locator(".jm-dismiss").click()
    page.locator(
        ".Toastify__toast", has_text="Dismissed · It will not be suggested again."
    ).wait_for()

    # A past "Saved." goes with the next edit: never green under a red counter.
    show_tab(page, "user")
    view = page.locator("#jm-knowledge-user")
    editor = view.locator("textarea")
    editor.fill("## Rules\n\n- Always use UTC\n")
    view.locator(".jm-save").click()
    view.locator(".jm-status[data-tone='ok']").wait_for()
    editor.fill("## Rules\n\n" + "- a rule with enough words to count\n" * 300)
    assert view.locator(".jm-counter").get_attribute("data-over") == "true"
    assert view.locator(".jm-status").inner_text().strip() == ""
    screenshot(page, "62-one-word-per-act")
    assert not page.js_errors, page.js_errors


def test_the_same_words_in_chinese_and_the_focus_label_on_one_line(page, lab, lab_mem):
    set_language(lab, "zh_CN")
    page.set_viewport_size({"width": 1000, "height": 800})
    propose_from(lab_mem, "收入不含退款", {"notebook_path": "b.ipynb", "cell_id": "c-2"})
    open_panel(page, lab)
    page.locator(".lm-MenuBar-itemLabel", has_text="文件").wait_for()
    item = queue_item(page, "收入不含退款")
    assert item.locator(".jm-source").inner_text() == "来自单元格"
    # the focus control's label at the panel's default width: one line
    label = page.locator(f"{PANEL} .jm-focus-set-label")
    if label.count() == 0 or not label.is_visible():
        page.locator(f"{PANEL} .jm-focus-set").wait_for()
    assert label.inner_text().strip() == "用于这个笔记本："
    lines = label.evaluate(
        "s => { const r = document.createRange(); r.selectNodeContents(s);"
        " return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; }"
    )
    assert lines == 1
    item.locator(".jm-apply-user").click()
    page.locator(".Toastify__toast", has_text="已存入用户知识").wait_for()
    screenshot(page, "63-one-word-per-act-in-chinese")
    assert not page.js_errors, page.js_errors


def test_a_card_of_a_cells_proposal_says_from_a_cell(page, lab, lab_mem):
    set_language(lab, "en")
    pid = propose_from(
        lab_mem, "Orders ship on weekdays", {"notebook_path": "c.ipynb", "cell_id": "c-3"}
    )
    cards_notebook(lab.root / "card-words.ipynb", lab.home, [[pid]])
    page.goto(lab.lab_url("lab/tree/card-words.ipynb"))
    card = page.locator(f".jp-OutputArea .jm-card[data-id='{pid}']")
    page.wait_for_selector(f".jp-OutputArea .jm-card[data-id='{pid}'][data-state='pending']")
    origin = card.locator(".jm-card-origin").inner_text()
    assert "from a cell" in origin and "chat" not in origin, origin
    card.locator(".jm-card-user").click()
    page.wait_for_selector(f".jm-card[data-id='{pid}'][data-state='applied']")
    assert card.locator(".jm-card-outcome").inner_text() == "Saved to User"
    assert not page.js_errors, page.js_errors
