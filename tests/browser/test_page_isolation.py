"""The folder's tests take one page in turn: a test finds nothing another test left."""

from __future__ import annotations

from browser_helpers import open_panel
from conftest import _clear

SET = """async () => {
  localStorage.setItem('jm-left', '1');
  sessionStorage.setItem('jm-left', '1');
  document.cookie = 'jm_left=1; path=/';
  await new Promise((done, fail) => {
    const open = indexedDB.open('jm-left', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('s');
    open.onsuccess = () => { open.result.close(); done(); };
    open.onerror = () => fail(open.error);
  });
}"""

LEFT = """async () => ({
  local: localStorage.getItem('jm-left'),
  session: sessionStorage.getItem('jm-left'),
  cookie: document.cookie.includes('jm_left'),
  db: (await indexedDB.databases()).some(d => d.name === 'jm-left'),
})"""


def test_the_next_test_finds_none_of_a_tests_pages_or_site_data(page, lab, lab_mem):
    open_panel(page, lab)
    page.evaluate(SET)
    assert page.evaluate(LEFT) == {"local": "1", "session": "1", "cookie": True, "db": True}
    page.set_viewport_size({"width": 600, "height": 500})
    other = page.context.new_page()
    _clear(page.context)  # what the fixture does after each test
    assert other.is_closed() and page.context.pages == [page]
    assert page.url == "about:blank"
    assert page.viewport_size == {"width": 1400, "height": 900}
    open_panel(page, lab)
    assert page.evaluate(LEFT) == {"local": None, "session": None, "cookie": False, "db": False}


def test_a_document_with_unsaved_changes_is_left_without_a_question(page, lab, lab_mem):
    open_panel(page, lab)
    page.evaluate("() => window.addEventListener('beforeunload', e => { e.preventDefault(); })")
    page.mouse.click(700, 450)  # a page asks before it is left only after a gesture
    _clear(page.context)
    assert page.url == "about:blank"
