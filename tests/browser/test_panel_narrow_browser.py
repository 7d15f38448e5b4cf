"""The panel at the sidebar's default (and least) width, 250 px, and wide, in English
and Chinese (issue 31): each tab, a card, ``%recall`` and ``%memory context``.

Checked as the browser laid it out, not by looking: no element of the panel
sticks out of it or overflows its own box (``scrollWidth`` over ``clientWidth``;
text cut with an ellipsis must carry its whole in a tooltip), ids are whole on
one line, and a view in one language holds no word of the other except the
person's own data (what the test seeded, the sample cases' files). Screenshots
go to test-output/browser/ (``31-…``).

The keyboard test decides a queue from the keyboard alone: Tab to the queue
(one Tab stop for the whole list), the arrow keys, Enter, U and D.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from browser_helpers import (
    OUTPUT,
    PANEL,
    cards_notebook,
    open_panel,
    run_command,
    set_language,
    show_tab,
    wait_idle_after_run,
    wait_lab_settled,
    write_notebook,
)
from test_magic_outputs_browser import BROKEN_WORDS, open_notebook, output

SAMPLE_CASES = Path(__file__).resolve().parents[2] / "notebooks" / "sample_workspace" / "cases"
TABS = ["queue", "user", "project", "settings", "memories", "learning", "cases"]
WIDE = 720  # the sidebar dragged wide in a 1440 px window

# Each visible element of the panel: what sticks out of the panel, what overflows
# its own box (an element that scrolls on purpose aside), what is cut with an
# ellipsis but has no tooltip to read it whole.
LAYOUT_FAULTS = """
panel => {
  const faults = [];
  const box = panel.getBoundingClientRect();
  const name = el => el.tagName.toLowerCase() +
    (typeof el.className === 'string' && el.className.trim()
      ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  for (const el of panel.querySelectorAll('*')) {
    if (!el.getClientRects().length) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden') continue;
    const r = el.getBoundingClientRect();
    // inside a line cut with an ellipsis (checked itself below): clipped, not out
    let clipped = false;
    for (let a = el.parentElement; a && a !== panel; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.textOverflow === 'ellipsis' && s.overflowX !== 'visible') clipped = true;
    }
    if (!clipped && r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1)) {
      faults.push(`${name(el)} sticks out (${Math.round(r.left)}..${Math.round(r.right)})`);
    }
    const scrolls = cs.overflowX === 'auto' || cs.overflowX === 'scroll';
    const cut = el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1;
    if (cut && cs.textOverflow === 'ellipsis') {
      if (!el.title && !el.closest('[title]')) faults.push(`${name(el)} is cut, no tooltip`);
    } else if (cut && !scrolls) {
      faults.push(`${name(el)} overflows (${el.scrollWidth} > ${el.clientWidth})`);
    }
  }
  return faults;
}
"""

# Ids drawn on more than one line (each .jm-id must be one box).
BROKEN_IDS = """
panel => [...panel.querySelectorAll('.jm-id')]
  .filter(el => el.getClientRects().length > 1)
  .map(el => el.textContent)
"""

# Buttons and fields a screen reader would announce without a name.
UNNAMED = """
panel => [...panel.querySelectorAll('button, select, input')]
  .filter(el => el.getClientRects().length)
  .filter(el => !(el.textContent.trim() || el.getAttribute('aria-label') || el.labels?.length))
  .map(el => el.outerHTML.slice(0, 80))
"""

DATA = {
    "en": {
        "cell": "Revenue is net of refunds in every report",
        "chat": "Fiscal weeks start on Monday",
        "quote": "remember: fiscal weeks start on monday, not sunday",
        "project": "Region codes follow ISO 3166",
        "memory": "Quarterly orders are deduplicated by order id before counting",
    },
    "zh_CN": {
        "cell": "收入按订单净额计算，退款不计入",
        "chat": "财年的周从周一开始",
        "quote": "记住：财年的周从周一开始，不是周日",
        "project": "地区代码按照国家标准编写",
        "memory": "季度订单在计数前按订单号去重",
    },
}

# Words of the other script a Chinese view may hold: product names, file types,
# commands a person types and abbreviations that are not translated.
ASCII_OK = {
    "LLM",
    "ipynb",
    "md",
    "AGENTS",
    "CLAUDE",
    "memories",
    "memory",
    "review",
    "recall",
    "remember",
    "focus",
    "settings",
    "json",
    "UTC",
    "id",
    "ID",
    "MCP",
    "Jupyter",
    "JupyterLab",
    "INDEX",
}


def _case_corpus() -> str:
    """The sample cases' files: the person's data the Cases tab shows."""
    return "\n".join(
        p.read_text("utf-8", errors="replace") for p in Path(SAMPLE_CASES).rglob("*") if p.is_file()
    )


CASES = _case_corpus()


def foreign_words(text: str, lang: str, data: list[str]) -> list[str]:
    """The words of ``text`` in the other language that are not the person's data."""
    for item in sorted(data, key=len, reverse=True):
        text = text.replace(item, " ")
    corpus = "\n".join(data) + CASES
    if lang == "en":
        found = re.findall(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+", text)
    else:
        found = [w for w in re.findall(r"[A-Za-z][A-Za-z]+", text) if w not in ASCII_OK]
    return sorted({w for w in found if w not in corpus})


def set_sidebar_width(page, width: int) -> None:
    """Drag the left sidebar's edge, as a person widens it."""
    panel = page.locator(PANEL)
    box = panel.bounding_box()
    assert box is not None
    handle = page.locator("#jp-main-split-panel > .lm-SplitPanel-handle").first
    hb = handle.bounding_box()
    assert hb is not None
    x, y = hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + (width - box["width"]), y, steps=5)
    page.mouse.up()
    page.wait_for_function(
        "([sel, w]) => Math.abs(document.querySelector(sel).getBoundingClientRect().width - w) < 3",
        arg=[PANEL, width],
    )


def seed(lab, mem, lang: str) -> dict[str, str]:
    """A notebook whose second cell a proposal quotes, one from a chat, one suggested for
    a project not picked yet, a memory; the ids by name."""
    words = DATA[lang]
    nb_path = lab.root / "q3-orders.ipynb"
    write_notebook(nb_path, ["import pandas as pd", f"# {words['cell']}", "pd.__version__"])
    cell_id = nbformat.read(nb_path, as_version=4).cells[1].id
    ids = {}
    ids["cell"] = mem.propose(
        words["cell"],
        "rule",
        words["cell"],
        source="chat-extraction",
        messages=[{"role": "user", "text": f"# {words['cell']}"}],
        quote_origin={"notebook_path": "q3-orders.ipynb", "cell_id": cell_id},
    )["proposal"]["id"]
    ids["chat"] = mem.propose(
        words["chat"],
        "info",
        words["quote"],
        source="chat-extraction",
        messages=[{"role": "user", "text": words["quote"]}],
        quote_origin={"message_id": "msg-7f3a", "notebook_path": "team.chat"},
    )["proposal"]["id"]
    ids["project"] = mem.propose(
        words["project"], "rule", words["project"], layer="project", source="manual"
    )["proposal"]["id"]
    mem.remember(words["memory"])
    ids["cell_id"] = cell_id
    return ids


def check_view(page, lang: str, data: list[str], where: str) -> None:
    panel = page.locator(PANEL)
    assert panel.evaluate(LAYOUT_FAULTS) == [], where
    assert panel.evaluate(BROKEN_IDS) == [], where
    assert panel.evaluate(UNNAMED) == [], where
    placeholders = panel.evaluate(
        "p => [...p.querySelectorAll('[placeholder]')].map(e => e.placeholder).join('\\n')"
    )
    assert foreign_words(f"{panel.inner_text()}\n{placeholders}", lang, data) == [], where


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_the_panel_fits_250_px_and_wide_in_both_languages(page, lab, lab_mem, lang):
    page.set_viewport_size({"width": 1440, "height": 900})
    set_language(lab, lang)
    ids = seed(lab, lab_mem, lang)
    # the registered projects' ids (this session's other tests add some) are data too
    data = [*DATA[lang].values(), "q3-orders.ipynb", "team.chat", *lab_mem.hooks.known_projects()]
    data += [row["id"] for row in lab_mem.memories(include_cold=True)]
    open_panel(page, lab)
    page.locator(f"{PANEL} .jm-queue-item[data-id='{ids['cell']}']").wait_for()
    width = page.locator(PANEL).evaluate("p => p.getBoundingClientRect().width")
    assert abs(width - 250) < 2, width  # the sidebar's default width

    # The cell a proposal quotes, by its place in the notebook; the raw id only in the tooltip.
    origin = page.locator(f"{PANEL} .jm-queue-item[data-id='{ids['cell']}'] .jm-origin")
    expected = "cell 2 · q3-orders.ipynb" if lang == "en" else "单元格 2 · q3-orders.ipynb"
    page.wait_for_function(
        "([el, t]) => el.textContent === t", arg=[origin.element_handle(), expected]
    )
    assert ids["cell_id"] not in page.locator(PANEL).inner_text()
    # Text shown once: a quote that reads as the text is not repeated below it.
    cell_item = page.locator(f"{PANEL} .jm-queue-item[data-id='{ids['cell']}']")
    assert cell_item.locator(".jm-evidence").count() == 0
    chat_item = page.locator(f"{PANEL} .jm-queue-item[data-id='{ids['chat']}']")
    assert chat_item.locator(".jm-evidence").count() == 1
    # The tabs are one row; those without room are in the More menu.
    tops = page.locator(f"{PANEL} .jm-tab:visible").evaluate_all(
        "ts => ts.map(t => Math.round(t.getBoundingClientRect().top))"
    )
    assert len(set(tops)) == 1, tops
    hidden = page.locator(f"{PANEL} .jm-tab:not(:visible)").count()
    if hidden:
        more = page.locator(f"{PANEL} .jm-tab-more")
        assert more.is_visible()
        more.click()
        assert page.locator(f"{PANEL} .jm-tab-menu-item").count() == hidden
        page.keyboard.press("Escape")

    # Search and filters, asked of the server: the count says how many match.
    queue = page.locator("#jm-queue")
    page.locator(f"{PANEL} .jm-queue-search").fill(DATA[lang]["project"][:6])
    page.wait_for_selector("#jm-queue[data-matched='1']", state="attached")
    items = page.locator(f"{PANEL} .jm-queue-item")
    page.wait_for_function("() => document.querySelectorAll('.jm-queue-item').length === 1")
    assert items.first.get_attribute("data-id") == ids["project"]
    page.locator(f"{PANEL} .jm-queue-search").fill("")
    page.locator(f"{PANEL} .jm-queue-source").select_option("chat")
    page.locator(f"{PANEL} .jm-queue-item[data-id='{ids['chat']}']").wait_for()
    page.wait_for_function("() => document.querySelectorAll('.jm-queue-item').length === 1")
    page.locator(f"{PANEL} .jm-queue-source").select_option("")
    page.locator(f"{PANEL} .jm-queue-kind").select_option("rule")
    page.locator(f"{PANEL} .jm-queue-item[data-id='{ids['cell']}']").wait_for()
    page.wait_for_function("() => document.querySelectorAll('.jm-queue-item').length === 2")
    page.locator(f"{PANEL} .jm-queue-kind").select_option("")
    page.wait_for_selector("#jm-queue[data-matched='3']", state="attached")
    assert queue.get_attribute("data-count") == "3"

    for label, px in (("250", None), ("wide", WIDE)):
        if px:
            set_sidebar_width(page, px)
        for tab in TABS:
            show_tab(page, tab)
            if tab == "memories":
                page.locator(f"{PANEL} .jm-search-button").click()
                page.locator(f"{PANEL} .jm-hit").first.wait_for()
            if tab == "cases":
                page.locator("#jm-cases[data-loaded='true']").wait_for()
                first = page.locator("#jm-cases details.jm-case").first
                if first.get_attribute("open") is None:
                    first.locator("summary").click()  # its INDEX table, in view
                first.locator(".jm-case-index").wait_for()
            if tab == "learning":
                page.locator("#jm-learning[data-loaded='true']").wait_for(state="attached")
            check_view(page, lang, data, f"{lang} {label} {tab}")
            page.locator(PANEL).screenshot(path=str(OUTPUT / f"31-panel-{lang}-{label}-{tab}.png"))
    assert not page.js_errors, page.js_errors


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_a_card_reads_in_one_language(page, lab, lab_mem, lang):
    page.set_viewport_size({"width": 1440, "height": 900})
    set_language(lab, lang)
    words = DATA[lang]
    pending = lab_mem.propose(words["chat"], "rule", words["chat"], source="manual")
    cards_notebook(lab.root / f"card-{lang}.ipynb", lab.home, [[pending["proposal"]["id"]]])
    page.goto(lab.lab_url(f"lab/tree/card-{lang}.ipynb"))
    card = page.locator(".jp-OutputArea .jm-card[data-state='pending']")
    card.wait_for(timeout=60_000)
    data = [*words.values(), *lab_mem.hooks.known_projects()]
    assert foreign_words(card.inner_text(), lang, data) == []
    card.screenshot(path=str(OUTPUT / f"31-card-{lang}.png"))
    assert not page.js_errors, page.js_errors


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_recall_and_context_read_in_one_language(page, lab, lab_mem, lang):
    page.set_viewport_size({"width": 1440, "height": 900})
    set_language(lab, lang)
    words = DATA[lang]
    data = [*words.values()]
    write_notebook(
        lab.root / f"magics-{lang}.ipynb",
        [
            "%load_ext jupyter_memory",
            f"%remember {words['memory']}",
            f"%recall {words['memory'][:8]}",
            "%memory context",
        ],
    )
    open_notebook(page, lab, f"magics-{lang}.ipynb")
    run_command(page, "notebook:run-all-cells")
    wait_idle_after_run(page)
    ids = [row["id"] for row in lab_mem.memories(include_cold=True)]
    for index, name in ((2, "recall"), (3, "context")):
        out = output(page, index).first
        out.wait_for()
        assert out.evaluate(BROKEN_WORDS) == [], name
        assert out.locator(".jm-id").evaluate_all(
            "els => els.filter(e => e.getClientRects().length > 1).length"
        ) in (0, [])
        text = out.inner_text()
        if name == "recall":
            assert foreign_words(text, lang, [*data, *ids]) == [], (name, text)
        else:
            # The context is the block an agent is handed, the same in every
            # language (its delimiters and tier notes are for the agent to parse);
            # what a person checks there is her own words, whole.
            assert words["memory"] in text
        out.screenshot(path=str(OUTPUT / f"31-{name}-{lang}.png"))
    assert not page.js_errors, page.js_errors


def focused(page) -> dict:
    return page.evaluate(
        """() => { const a = document.activeElement;
        return { cls: a?.className ?? '', id: a?.dataset?.id ?? null,
                 tab: a?.dataset?.tab ?? null, tag: a?.tagName ?? '' }; }"""
    )


# Where the focus went, and from what code: a failing wait says it.
FOCUS_LOG = """() => { window.__jmFocus = [];
  document.addEventListener('focusin', e => window.__jmFocus.push(
    `${e.target.className || e.target.tagName} ${e.target.dataset?.id || ''} ` +
    new Error().stack.split('\\n').slice(2, 6).map(l => l.trim().split(' ')[1]).join('<')), true);
}"""


def wait_focus_on(page, proposal_id: str) -> None:
    try:
        page.wait_for_function(f"() => document.activeElement?.dataset?.id === '{proposal_id}'")
    except Exception as exc:
        log = page.evaluate("() => window.__jmFocus")
        raise AssertionError(f"focus not on {proposal_id}: {log}") from exc


def wait_gone(page, proposal_id: str) -> None:
    try:
        page.locator(f"{PANEL} .jm-queue-item[data-id='{proposal_id}']").wait_for(state="detached")
    except Exception as exc:
        status = page.locator("#jm-queue .jm-status").inner_text()
        log = page.evaluate("() => window.__jmFocus")
        raise AssertionError(f"{proposal_id} still listed; status {status!r}; {log}") from exc


def test_the_queue_is_decided_from_the_keyboard_alone(page, lab, lab_mem):
    ids = [
        lab_mem.propose(text, "rule", text, source="manual")["proposal"]["id"]
        for text in (
            "Invoices are dated in UTC",
            "Churn counts accounts, not users",
            "Fiscal weeks start on Monday",
        )
    ]
    open_panel(page, lab)
    page.evaluate(FOCUS_LOG)
    page.locator(f"{PANEL} .jm-queue-item").nth(2).wait_for()
    wait_lab_settled(page)

    # The tabs: one Tab stop (the selected tab), arrows, Home and End move and select.
    tab = page.locator(f"{PANEL} .jm-tab-queue")
    tab.focus()
    page.keyboard.press("ArrowRight")
    assert focused(page)["tab"] == "user"
    assert page.locator(PANEL).get_attribute("data-tab") == "user"
    assert page.locator(f"{PANEL} .jm-tab-user").get_attribute("aria-selected") == "true"
    page.keyboard.press("End")  # the last tab, in the More menu at 250 px: it comes into the row
    assert focused(page)["tab"] == "cases" and page.locator(f"{PANEL} .jm-tab-cases").is_visible()
    page.keyboard.press("Home")
    assert focused(page)["tab"] == "queue"
    assert page.locator(f"{PANEL} [role='tab'][tabindex='0']").count() == 1

    # Tab to the queue: the whole list is one Tab stop.
    for _ in range(12):
        page.keyboard.press("Tab")
        if "jm-queue-item" in focused(page)["cls"]:
            break
    assert focused(page)["id"] == ids[0], focused(page)
    page.keyboard.press("Tab")
    after = focused(page)
    assert "jm-queue-item" not in after["cls"] and after["id"] not in ids, after
    page.keyboard.press("Shift+Tab")
    assert focused(page)["id"] == ids[0]

    # Arrows: down to the next item; right into its buttons, left back out.
    page.keyboard.press("ArrowDown")
    assert focused(page)["id"] == ids[1]
    page.keyboard.press("ArrowRight")
    assert "jm-apply-user" in focused(page)["cls"]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert "jm-apply-user" in focused(page)["cls"]
    page.keyboard.press("ArrowLeft")
    assert focused(page)["id"] == ids[1], focused(page)

    # D dismisses; the focus goes to the item that took its place, not to the page body.
    page.keyboard.press("d")
    wait_gone(page, ids[1])
    wait_focus_on(page, ids[2])
    # Enter applies where it was suggested (User).
    page.keyboard.press("Enter")
    wait_gone(page, ids[2])
    wait_focus_on(page, ids[0])
    page.keyboard.press("u")
    page.locator(f"{PANEL} #jm-queue[data-count='0']").wait_for(state="attached")
    # The queue is empty: the focus waits in its search box.
    try:
        page.wait_for_function(
            "() => document.activeElement?.classList.contains('jm-queue-search')",
        )
    except Exception as exc:
        raise AssertionError(page.evaluate("() => window.__jmFocus")) from exc

    states = {i: lab_mem.proposal(i).status for i in ids}
    assert states == {ids[0]: "applied", ids[1]: "dismissed", ids[2]: "applied"}, states
    knowledge = (lab.home / "knowledge.md").read_text("utf-8")
    assert "Invoices are dated in UTC" in knowledge and "Fiscal weeks" in knowledge
    assert not page.js_errors, page.js_errors
