"""Review cards of ``%memories --review`` in notebooks (issue 15): outputs of our own MIME type,
drawn by the lab extension from the memory's live state over REST, so they survive a page
reload and a kernel restart, Keep makes one static, and a decision made elsewhere (CLI,
REST, another kernel) turns an open card static too."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request

import nbformat
import pytest
from browser_helpers import (
    run_notebook,
    save_notebook,
    screenshot,
    wait_idle_after_run,
    write_notebook,
)

from jupyter_memory.exceptions import NotFoundError

CARD = ".jp-OutputArea .jm-review-card"
NO_WIDGET_ERRORS = "() => !document.body.innerText.includes('Error displaying widget')"
REVIEW_MIME = "application/vnd.jupyter-memory.review+json"


def unreviewed(mem, text: str, quote: str) -> str:
    entry = mem.remember(
        text,
        source="session-digest",
        reviewed=False,
        evidence=[{"quote": quote, "source": "cell"}],
    )
    return str(entry.id)


def card(page, mid: str):
    return page.locator(f"{CARD}[data-id='{mid}']")


def wait_state(page, mid: str, state: str, timeout: float = 60_000) -> None:
    page.wait_for_selector(f"{CARD}[data-id='{mid}'][data-state='{state}']", timeout=timeout)


def wait_text(page, mid: str, want: str) -> None:
    page.wait_for_function(
        "([sel, want]) => document.querySelector(sel)?.textContent === want",
        arg=[f"{CARD}[data-id='{mid}'] .jm-review-outcome", want],
    )


def rest(lab, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"{lab.url}/{path}",
        method=method,
        data=json.dumps(body or {}).encode() if method != "GET" else None,
        headers={"Authorization": f"token {lab.token}"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        raw = response.read()
    return json.loads(raw) if raw else {}


def review_output_drawn(page) -> None:
    """The review cell's output is drawn (a card, or whatever the front end made of it)."""
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-Cell')].some(c =>"
        " c.querySelector('.jp-InputArea')?.textContent.includes('--review') &&"
        " c.querySelector('.jp-OutputArea-output'))",
        timeout=60_000,
    )


# A widget view that cannot find its model says so once the manager gives up: an
# output drawn this long ago would show its error.
WIDGET_ERROR_SHOWS = 2.0


def review_output_rendered(page) -> float:
    """Wait until drawn; when it was (for :func:`widget_errors`)."""
    review_output_drawn(page)
    return time.monotonic()


def widget_errors(page, drawn_at: float) -> str:
    """The widget errors on the page once the output drawn at ``drawn_at`` is old enough
    to show one; the test checks the cards meanwhile, so the wait is what is left of it."""
    time.sleep(max(0.0, drawn_at + WIDGET_ERROR_SHOWS - time.monotonic()))
    return str(
        page.evaluate(
            "() => [...document.querySelectorAll('.jp-OutputArea-output')]"
            ".map(n => n.innerText).filter(t => t.includes('Error displaying widget')).join('\\n')"
        )
    )


def test_review_cards_survive_a_reload_and_a_kernel_restart(page, lab, lab_mem):
    kept = unreviewed(lab_mem, "Refunds arrive two days late", "refunds arrive 2 days late")
    other = unreviewed(lab_mem, "Orders join customers on customer_id", "join on customer_id")
    name = "review-reload.ipynb"
    write_notebook(lab.root / name, ["%load_ext jupyter_memory", "%memories --review"])
    run_notebook(page, lab, name)
    wait_idle_after_run(page)
    review_output_drawn(page)  # no widget check before the reload: no 2 s wait for one
    save_notebook(page)

    page.reload()
    drawn = review_output_rendered(page)
    wait_state(page, kept, "unreviewed")
    wait_state(page, other, "unreviewed")
    page.wait_for_selector(".jm-review-cards[data-live]")
    errors = widget_errors(page, drawn)
    assert errors == "", errors
    render_ms = int(
        page.evaluate("() => document.querySelector('.jm-review-cards').dataset.renderMs")
    )
    print(f"review cards after reload: render → live in {render_ms} ms")  # a figure only
    card(page, kept).locator(".jm-review-keep").click()
    wait_state(page, kept, "kept")
    assert card(page, kept).locator(".jm-review-outcome").inner_text() == "Kept"
    assert card(page, kept).locator("button").count() == 0
    assert lab_mem.get(kept).meta.reviewed is True
    screenshot(page, "60-review-cards-after-reload")

    sessions = rest(lab, "GET", "api/sessions")
    (kernel,) = [s["kernel"]["id"] for s in sessions if s["path"].endswith(name)]
    rest(lab, "POST", f"api/kernels/{kernel}/restart")
    page.reload()  # the restarted kernel knows nothing of the cards; they need none of it
    drawn = review_output_rendered(page)
    wait_state(page, kept, "kept")
    wait_state(page, other, "unreviewed")
    outputs = nbformat.read(lab.root / name, as_version=4).cells[1].outputs
    assert REVIEW_MIME in outputs[0]["data"]
    assert "application/vnd.jupyter.widget-view+json" not in outputs[0]["data"]
    errors = widget_errors(page, drawn)
    assert errors == "", errors
    card(page, other).locator(".jm-review-discard").click()
    wait_state(page, other, "discarded")
    with pytest.raises(NotFoundError):
        lab_mem.get(other)
    page.wait_for_function(NO_WIDGET_ERRORS)
    screenshot(page, "61-review-cards-after-kernel-restart")
    assert not page.js_errors, page.js_errors


def review_notebook(path, home, ids: list[str]) -> None:
    """A saved notebook whose output is the review cards a kernel displayed (no kernel runs)."""
    from jupyter_memory.magics.session import NotebookSession
    from jupyter_memory.widgets import ReviewCards

    session = NotebookSession(str(home))
    try:
        nb = nbformat.v4.new_notebook()
        cell = nbformat.v4.new_code_cell("%memories --review")
        bundle = ReviewCards(session, ids)._repr_mimebundle_()
        cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
        nb.cells.append(cell)
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)"}
        nbformat.write(nb, path)
    finally:
        session.close()


def open_without_kernel(page, lab, name: str) -> None:
    nb = nbformat.read(lab.root / name, as_version=4)
    del nb.metadata["kernelspec"]  # no kernel named: the lab asks, and the person picks none
    nbformat.write(nb, lab.root / name)
    page.goto(lab.lab_url(f"lab/tree/{name}"))
    page.locator(".jp-Dialog button", has_text="No Kernel").click()
    page.locator(".jp-Toolbar-kernelName", has_text="No Kernel").wait_for()


def test_a_decision_elsewhere_turns_a_live_card_static(page, lab, lab_mem):
    by_rest = unreviewed(lab_mem, "Net price excludes sales tax", "net price is without tax")
    by_other = unreviewed(lab_mem, "Test accounts are excluded", "exclude the test accounts")
    promoted = unreviewed(lab_mem, "口径：毛利按含税收入计算", "口径：毛利按含税收入计算，记住")
    name = "review-elsewhere.ipynb"
    review_notebook(lab.root / name, lab.home, [by_rest, by_other, promoted])
    open_without_kernel(page, lab, name)
    for mid in (by_rest, by_other, promoted):
        wait_state(page, mid, "unreviewed")
    assert card(page, by_rest).locator(".jm-review-keep").count() == 1

    # REST (another browser tab, a script): the card follows through the change feed.
    took_rest = timed(
        lambda: rest(lab, "POST", f"jupyter-memory/review/{by_rest}/discard"),
        lambda: wait_state(page, by_rest, "discarded"),
    )
    assert card(page, by_rest).locator(".jm-review-outcome").inner_text() == "Discarded"
    assert card(page, by_rest).locator("button").count() == 0
    # Another process on the same home (a kernel, the CLI): noticed by the server's poll.
    # Timed from its decision (the Python start-up of that process is not the card's).
    code = (
        "import sys; from jupyter_memory import Memory; "
        "m = Memory(home=sys.argv[1]); m.review_memory(sys.argv[2], 'keep'); m.close()"
    )
    subprocess.run([sys.executable, "-c", code, str(lab.home), by_other], check=True)
    took_other = timed(lambda: None, lambda: wait_state(page, by_other, "kept"))
    assert card(page, by_other).locator(".jm-review-outcome").inner_text() == "Kept"

    # Promote in the card (Info); the proposal's fate follows on the card.
    card(page, promoted).locator(".jm-review-kind").select_option("info")
    card(page, promoted).locator(".jm-review-promote").click()
    wait_state(page, promoted, "promoted")
    (proposal,) = [p for p in lab_mem.queue() if p.source == "session-digest"]
    assert proposal.kind == "info"
    wait_text(page, promoted, f"Promoted to knowledge · proposal {proposal.id} waits in the queue")
    rest(lab, "POST", f"jupyter-memory/queue/{proposal.id}/apply", {"to": "user"})
    wait_text(page, promoted, f"Promoted to knowledge · proposal {proposal.id} saved to User")
    assert card(page, promoted).locator(".jm-review-note").inner_text() == ""
    # Figures only (benchmarks/card_sync_bench.py measures them): a test asserts no time.
    print(f"decision → card: REST {took_rest:.3f} s, another process {took_other:.3f} s")
    screenshot(page, "62-review-cards-decided-elsewhere")
    assert not page.js_errors, page.js_errors


def test_a_click_that_meets_a_decision_made_elsewhere_says_so(page, lab, lab_mem):
    mid = unreviewed(lab_mem, "Backlog excludes cancelled orders", "backlog without cancelled")
    name = "review-race.ipynb"
    review_notebook(lab.root / name, lab.home, [mid])
    open_without_kernel(page, lab, name)
    wait_state(page, mid, "unreviewed")

    # Kept elsewhere (a script with the token) and, before the card has heard of it, the
    # person clicks Discard: the server's 409 is news, not an error.
    page.evaluate(
        """async ([url, token, mid]) => {
            await fetch(url, {method: 'POST', headers: {Authorization: 'token ' + token},
                              body: '{}'});
            document.querySelector(`.jm-review-card[data-id='${mid}'] .jm-review-discard`)
                .click();
        }""",
        [f"{lab.url}/jupyter-memory/review/{mid}/keep", lab.token, mid],
    )
    wait_state(page, mid, "kept")
    page.wait_for_function(
        "(sel) => document.querySelector(sel)?.textContent === 'Nothing was written.'",
        arg=f"{CARD}[data-id='{mid}'] .jm-review-note",
    )
    assert card(page, mid).locator(".jm-review-outcome").inner_text() == "Already kept elsewhere"
    assert lab_mem.get(mid).meta.reviewed is True  # the Discard did not forget it
    assert not page.js_errors, page.js_errors


def timed(action, wait) -> float:
    started = time.monotonic()
    action()
    wait()
    return time.monotonic() - started


def test_review_cards_speak_chinese_when_jupyterlab_does(page, lab, lab_mem):
    from test_i18n_browser import set_language

    keep = unreviewed(lab_mem, "退款晚两天到账", "退款一般晚两天到账，这个要记住")
    other = unreviewed(lab_mem, "案件编号按年份连续编排", "案件编号按年份连续编排")
    task = lab_mem.remember(
        "下周一前核对退款",
        type="episodic",
        tier="daily",
        source="session-digest",
        reviewed=False,
        evidence=[{"quote": "下周一前核对退款", "source": "kernel-3f2a9c1e-77aa-4bb1#5"}],
        extra={"work_type": "work_task"},
    ).id
    name = "review-zh.ipynb"
    review_notebook(lab.root / name, lab.home, [keep, other, task])
    set_language(lab, "zh_CN")
    try:
        open_without_kernel(page, lab, name)
        wait_state(page, keep, "unreviewed")
        one = card(page, keep)
        assert one.locator(".jm-review-keep").inner_text() == "保留"
        assert one.locator(".jm-review-discard").inner_text() == "丢弃"
        assert one.locator(".jm-review-promote").inner_text() == "提升为知识"
        assert one.locator(".jm-review-kind option").all_inner_texts() == ["规则", "信息"]
        # The memory's type, tier and source read in Chinese too, not as stored values.
        meta = one.locator(".jm-card-head .jm-card-quote").inner_text()
        assert "session-digest" not in meta and "durable" not in meta, meta
        assert "会话摘要" in meta, meta
        # A digested task and its quote's session in words, not work_task and a kernel id.
        wait_state(page, task, "unreviewed")
        meta = card(page, task).locator(".jm-card-head .jm-card-quote").inner_text()
        assert "任务" in meta and "work_task" not in meta, meta
        origin = card(page, task).locator(".jm-card-origin").first.inner_text()
        assert "笔记本会话" in origin and "kernel-" not in origin, origin
        one.locator(".jm-review-keep").click()
        wait_state(page, keep, "kept")
        assert one.locator(".jm-review-outcome").inner_text() == "已保留"
        rest(lab, "POST", f"jupyter-memory/review/{other}/discard")
        wait_state(page, other, "discarded")
        assert card(page, other).locator(".jm-review-outcome").inner_text() == "已丢弃"
        screenshot(page, "64-review-cards-in-chinese")
        assert not page.js_errors, page.js_errors
    finally:
        set_language(lab, "en")
