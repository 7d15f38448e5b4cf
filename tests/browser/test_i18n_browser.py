"""The panel and a proposal card follow JupyterLab's language (Settings → Language) (issue 15).

The language is JupyterLab's own setting, ``@jupyterlab/translation-extension:plugin``
``locale``, written through the lab's settings API as the Language menu does; the
Chinese comes from jupyterlab_server serving our catalogue beside the zh_CN
language pack. The same page in English reads as it always did.
"""

from __future__ import annotations

from browser_helpers import PANEL, cards_notebook, screenshot, set_language, wait_lab_loaded

CARD = ".jp-OutputArea .jm-card"
STATUS = "#jp-main-statusbar .jm-focus-status"


def propose(mem, text: str) -> str:
    result = mem.propose(text, "rule", text, source="manual")
    assert result["status"] == "queued", result
    return str(result["proposal"]["id"])


def open_cards(page, lab, mem, name: str, texts: tuple[str, str]) -> tuple[str, str]:
    """A saved notebook with a pending and an applied card, opened beside the panel."""
    pending = propose(mem, texts[0])
    applied = propose(mem, texts[1])
    mem.apply(applied, to="user")
    cards_notebook(lab.root / f"{name}.ipynb", lab.home, [[pending, applied]])
    page.goto(lab.lab_url(f"lab/tree/{name}.ipynb"))
    wait_lab_loaded(page)
    if not page.locator(PANEL).is_visible():
        page.locator(".jp-SideBar [data-id='jupyter-memory-panel']").click()
    page.wait_for_selector(f"{CARD}[data-id='{pending}'][data-state='pending']", timeout=60_000)
    page.wait_for_selector(f"{CARD}[data-id='{applied}'][data-state='applied']")
    page.wait_for_selector(f"{PANEL} .jm-queue-item[data-id='{pending}']")
    return pending, applied


def labels(page, pending: str, applied: str) -> dict[str, str]:
    """The texts a person reads in the panel, the status bar and the two cards."""
    item = page.locator(f"{PANEL} .jm-queue-item[data-id='{pending}']")
    card = page.locator(f"{CARD}[data-id='{pending}']")

    def text(locator) -> str:
        return str(locator.first.inner_text()).strip()

    return {
        "title": text(page.locator(f"{PANEL} .jm-title")),
        "tab-queue": str(
            page.locator(f"{PANEL} .jm-tab-queue").evaluate("n => n.firstChild.textContent")
        ),
        "tab-user": text(page.locator(f"{PANEL} .jm-tab-user")),
        # at 250 px the Cases tab waits in the More menu: its label, shown or not
        "tab-cases": str(page.locator(f"{PANEL} .jm-tab-cases").text_content()).strip(),
        "process-all": text(page.locator(f"{PANEL} .jm-process-all")),
        "apply-user": text(item.locator(".jm-apply-user")),
        "dismiss": text(item.locator(".jm-dismiss")),
        "kind": text(item.locator(".jm-kind")),
        "source": text(item.locator(".jm-source")),
        "focus-label": text(page.locator(f"{PANEL} .jm-focus-label")),
        "status-bar": text(page.locator(STATUS)),
        "card-user": text(card.locator(".jm-card-user")),
        "card-project": text(card.locator("button.jm-card-project")),
        "card-dismiss": text(card.locator(".jm-card-dismiss")),
        "card-dismiss-title": str(card.locator(".jm-card-dismiss").get_attribute("title")),
        "card-outcome": text(page.locator(f"{CARD}[data-id='{applied}'] .jm-card-outcome")),
    }


def test_the_panel_and_a_card_speak_chinese_when_jupyterlab_does(page, lab, lab_mem):
    set_language(lab, "zh_CN")
    pending, applied = open_cards(
        page, lab, lab_mem, "zh", ("口径：收入按订单净额计算", "案件编号按年份连续编排")
    )
    # JupyterLab itself is in Chinese (the language pack): the menu bar says 文件.
    page.locator(".lm-MenuBar-itemLabel", has_text="文件").wait_for()
    assert labels(page, pending, applied) == {
        "title": "智能体记忆",
        "tab-queue": "待审",
        "tab-user": "用户",
        "tab-cases": "案件",
        "process-all": "全部处理",
        "apply-user": "采纳到用户",
        "dismiss": "驳回",
        "kind": "规则",
        "source": "手动",
        "focus-label": "当前项目：",
        "status-bar": "项目：无",
        "card-user": "用户",
        "card-project": "项目",
        "card-dismiss": "驳回",
        "card-dismiss-title": "不再建议这一条",
        "card-outcome": "已存入用户知识",
    }
    assert page.locator(f"{PANEL} .jm-queue .jm-status").inner_text() == "1 条待处理"
    screenshot(page, "50-panel-and-card-in-chinese")

    # Deciding in the card answers in Chinese too.
    page.locator(f"{CARD}[data-id='{pending}'] .jm-card-user").click()
    page.wait_for_selector(f"{CARD}[data-id='{pending}'][data-state='applied']")
    card = page.locator(f"{CARD}[data-id='{pending}']")
    assert card.locator(".jm-card-outcome").inner_text() == "已存入用户知识"
    assert card.locator(".jm-card-note").inner_text().startswith("已写入 ")
    assert "口径：收入按订单净额计算" in lab_mem.knowledge("user")
    page.locator(f"{PANEL} .jm-queue .jm-status", has_text="没有待处理的提议。").wait_for()
    screenshot(page, "51-card-decided-in-chinese")
    assert not page.js_errors, page.js_errors


def test_the_same_panel_and_card_in_english(page, lab, lab_mem):
    set_language(lab, "en")
    pending, applied = open_cards(
        page, lab, lab_mem, "en", ("Lead time excludes weekends", "Region codes follow ISO 3166")
    )
    page.locator(".lm-MenuBar-itemLabel", has_text="File").wait_for()
    assert labels(page, pending, applied) == {
        "title": "Agent Memory",
        "tab-queue": "Queued",
        "tab-user": "User",
        "tab-cases": "Cases",
        "process-all": "Process all",
        "apply-user": "Apply to User",
        "dismiss": "Dismiss",
        "kind": "Rule",
        "source": "manual",
        "focus-label": "Project in use:",
        "status-bar": "Project: none",
        "card-user": "User",
        "card-project": "Project",
        "card-dismiss": "Dismiss",
        "card-dismiss-title": "Never suggest this again",
        "card-outcome": "Saved to User",
    }
    assert page.locator(f"{PANEL} .jm-queue .jm-status").inner_text() == "1 pending"
    screenshot(page, "52-panel-and-card-in-english")
    assert not page.js_errors, page.js_errors
