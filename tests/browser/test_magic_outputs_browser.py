"""Magic outputs in a real JupyterLab (issue 31): words and ids never cut in two,
tables left-aligned, and the kernel speaking the language JupyterLab is set to.

JupyterLab's own CSS is what cut them: ``.jp-OutputArea-output pre`` has
``word-break: break-all`` and output tables are right-aligned with a fixed
layout. Each word of an output is checked as the browser laid it out: a word
on two lines has two client rects.
"""

from __future__ import annotations

from browser_helpers import (
    run_command,
    screenshot,
    wait_idle_after_run,
    wait_lab_loaded,
    write_notebook,
)
from test_i18n_browser import set_language

CELLS = [
    "%load_ext jupyter_memory",
    "%remember Revenue conventions: revenue is net of refunds in every notebook report "
    "and the conventions of the finance team apply to each quarterly notebook we write",
    "%remember Refund policy: customers get refunds within thirty days of the order",
    "%recall revenue conventions",
    "%memory context",
    "%memory status",
]

# The words of the element's text drawn on two lines though one would hold them.
BROKEN_WORDS = """
el => {
  const broken = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent;
    for (const m of text.matchAll(/[^\\s]+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const rects = [...range.getClientRects()];
      const lines = new Set(rects.map(r => Math.round(r.top)));
      const width = rects.reduce((sum, r) => sum + r.width, 0);
      // on two lines although it fits on one (a path longer than the line must wrap)
      if (lines.size > 1 && width < el.clientWidth - 8) broken.push(m[0]);
    }
  }
  return broken;
}
"""


KERNEL_ID = "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id"


def output(page, index: int):
    return page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea-output")


def open_notebook(page, lab, name: str) -> None:
    """Open a notebook and wait for its kernel to be idle, in whatever language the lab is."""
    page.goto(lab.lab_url(f"lab/tree/{name}"))
    wait_lab_loaded(page)
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel"
        "?.status === 'idle'",
        timeout=60_000,
    )


def test_outputs_wrap_between_words_with_whole_ids_and_left_aligned_tables(page, lab, lab_mem):
    set_language(lab, "en")
    page.set_viewport_size({"width": 900, "height": 900})  # narrow: long lines must wrap
    write_notebook(lab.root / "outputs.ipynb", CELLS)
    open_notebook(page, lab, "outputs.ipynb")
    run_command(page, "notebook:run-all-cells")
    wait_idle_after_run(page)
    table = output(page, 3).locator("table.jm-table")
    table.wait_for()
    cells = table.locator("td")
    assert cells.count() >= 2
    aligns = cells.evaluate_all("tds => tds.map(td => getComputedStyle(td).textAlign)")
    assert set(aligns) == {"left"}, aligns
    ids = table.locator("td.jm-id")
    assert ids.count() == 1  # the other memory matched only a shared word: not listed
    assert ids.first.evaluate(BROKEN_WORDS) == []
    assert ids.first.evaluate("td => td.getClientRects().length") == 1
    assert table.evaluate(BROKEN_WORDS) == []
    assert "Revenue conventions" in table.inner_text()
    # the text wraps in a column of its own width, not a word a line; a table wider
    # than the output scrolls instead of being cut at the output's edge
    text = table.locator("td.jm-long").first
    assert text.evaluate("td => td.getBoundingClientRect().width") > 150
    box = output(page, 3).locator(".jm-scroll")
    assert box.evaluate("d => getComputedStyle(d).overflowX") == "auto"
    assert table.inner_text().count("Revenue conventions: revenue is net") == 1  # text once
    for index in (4, 5):  # %memory context, %memory status
        block = output(page, index).locator("pre.jm-text")
        block.wait_for()
        assert block.evaluate("p => getComputedStyle(p).wordBreak") == "normal"
        assert block.evaluate(BROKEN_WORDS) == [], index
    context = output(page, 4).locator("pre.jm-text")
    # the long memory really wraps (so the check above is about something)
    assert context.evaluate("p => p.getClientRects()[0].height") > 3 * 16
    screenshot(page, "60-magic-outputs-wrap-between-words")
    assert not page.js_errors, page.js_errors


def test_a_running_kernel_speaks_chinese_after_jupyterlab_is_switched(page, lab, lab_mem):
    set_language(lab, "en")
    write_notebook(
        lab.root / "lang.ipynb", ["%load_ext jupyter_memory", "%memory status", "%forget m-404"]
    )
    open_notebook(page, lab, "lang.ipynb")
    run_command(page, "notebook:run-all-cells")
    wait_idle_after_run(page)
    output(page, 1).locator("pre.jm-text", has_text="memory:").wait_for()
    kernel = page.evaluate(KERNEL_ID)
    run_command(page, "docmanager:save")  # no "leave the page?" when the lab reloads
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")

    # Settings → Language → 中文: the lab saves the setting and reloads its page;
    # the kernel keeps running and speaks Chinese from its next output on.
    set_language(lab, "zh_CN")
    open_notebook(page, lab, "lang.ipynb")
    page.locator(".lm-MenuBar-itemLabel", has_text="文件").wait_for()
    same = page.evaluate(KERNEL_ID)
    assert same == kernel  # the same kernel, not restarted
    run_command(page, "notebook:run-all-cells")
    wait_idle_after_run(page)
    status = output(page, 1).locator("pre.jm-text")
    status.wait_for()
    assert "记忆" in status.inner_text() and "memory:" not in status.inner_text()
    # an error of the service layer, in the kernel, in Chinese
    error = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".jp-OutputArea")
    error.get_by_text("没有 id 为 'm-404' 的记忆").wait_for()
    screenshot(page, "61-kernel-speaks-the-labs-language")
    assert not page.js_errors, page.js_errors
