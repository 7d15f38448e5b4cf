"""The panel's Learning view (spec 003 self-learning) in a real JupyterLab and Chromium:
candidates with evidence, confidence and thresholds; reject with a reason; propose now."""

from __future__ import annotations

from browser_helpers import (
    PANEL,
    open_panel,
    queue_item,
    refreshes,
    run_command,
    screenshot,
    show_tab,
    wait_refreshed_after,
)


def _correct(mem, session: str, reply: str) -> None:
    mem.hooks.digest_record(
        session,
        [
            {"id": "a", "role": "assistant", "text": "I'll run yarn add <b>pandas</b>-profiling"},
            {"id": "u", "role": "user", "text": reply},
        ],
    )
    mem.digest()


def _reset_candidates(lab) -> None:
    (lab.home / "learning" / "candidates.json").unlink(missing_ok=True)


def test_learning_view_shows_candidates_rejects_and_proposes(page, lab, lab_mem):
    _reset_candidates(lab)
    _correct(lab_mem, "chat-1", "no, use npm not <b>yarn</b>")
    _correct(lab_mem, "chat-2", "no, use npm not <b>yarn</b>")
    _correct(lab_mem, "chat-3", "不对，应该用 uv 管理依赖")
    open_panel(page, lab)
    show_tab(page, "learning")
    view = page.locator(f"{PANEL} #jm-learning")
    page.wait_for_selector(f"{PANEL} #jm-learning[data-count='2']")
    assert "at least 5 pieces of evidence" in view.locator(".jm-learning-thresholds").inner_text()
    english = view.locator(".jm-candidate", has_text="Use npm, not <b>yarn</b>.")
    assert english.get_attribute("data-status") == "collecting"
    assert "evidence 2/5" in english.locator(".jm-candidate-meta").inner_text()
    assert english.locator(".jm-quote").count() == 2
    assert english.locator("b").count() == 0  # stored markup is text
    screenshot(page, "20-learning-view")

    chinese = view.locator(".jm-candidate", has_text="应该用 uv 管理依赖")
    chinese.locator(".jm-reject").click()
    dialog = page.locator(".jp-Dialog")
    dialog.locator("input").fill("这个项目用 pip-tools")
    dialog.locator(".jp-Dialog-button.jp-mod-accept").click()
    page.wait_for_selector(f"{PANEL} .jm-candidate[data-status='rejected']")
    rejected = view.locator(".jm-candidate[data-status='rejected']")
    assert "rejected" in rejected.locator(".jm-rejection").inner_text()
    assert "这个项目用 pip-tools" in rejected.locator(".jm-rejection").inner_text()
    (cand,) = [c for c in lab_mem.learning_candidates() if c.status == "rejected"]
    assert cand.dismissals[0][1] == "这个项目用 pip-tools" and cand.confidence == 0.0

    english.locator(".jm-promote").click()
    page.wait_for_selector(f"{PANEL} .jm-candidate[data-status='proposed']")
    page.locator(".Toastify__toast", has_text="Proposed: review it in Queued.").wait_for()
    (proposal,) = lab_mem.queue()
    assert proposal.source == "correction" and proposal.status == "pending"
    # What a person sees before going to Queued: the pending count the refresh that
    # follows the promote brings. It widens the Queued tab, and with Learning selected
    # the row may have no room left for it: the tab moves into the More menu (a click
    # on the tab looked at before that waited for a hidden button: show_tab looks again).
    page.wait_for_selector(f"{PANEL}[data-pending='1']", state="attached")
    show_tab(page, "queue")
    queue_item(page, "Use npm, not <b>yarn</b>.").wait_for()
    assert not page.js_errors  # type: ignore[attr-defined]


def test_dismissing_a_learned_rule_in_the_queue_asks_why_and_the_learner_records_it(
    page, lab, lab_mem
):
    _reset_candidates(lab)
    _correct(lab_mem, "chat-9", "no, use polars not pandas")
    (cand,) = lab_mem.learning_candidates()
    promoted = lab_mem.promote_candidate(cand.key)
    open_panel(page, lab)
    item = queue_item(page, "Use polars, not pandas.")
    item.locator(".jm-dismiss").click()
    dialog = page.locator(".jp-Dialog")
    dialog.locator("input").fill("pandas is the team's standard")
    dialog.locator(".jp-Dialog-button.jp-mod-accept").click()
    item.wait_for(state="detached")
    assert lab_mem.proposal(promoted.proposal_id).status == "dismissed"
    (cand,) = lab_mem.learning_candidates()
    assert cand.status == "rejected"
    assert [reason for _, reason in cand.dismissals] == ["pandas is the team's standard"]
    show_tab(page, "learning")
    page.wait_for_selector(f"{PANEL} .jm-candidate[data-status='rejected']")
    assert "pandas is the team's standard" in page.locator(f"{PANEL} .jm-rejection").inner_text()
    assert not page.js_errors  # type: ignore[attr-defined]


def test_a_live_refresh_keeps_the_nodes_it_draws_as_they_were(page, lab, lab_mem):
    """Every change anywhere brings the panel a refresh: the Learning view is drawn
    again and the tab row laid out again. A candidate and a menu item that did not
    change stay the same node: a click pressed before the refresh and released after
    it lands (on a node made again it is lost), and a focused menu item keeps the
    focus. The nodes are compared, not the focus: the lab itself may take the focus
    (and the menu closes then) while it settles on a busy machine."""
    _reset_candidates(lab)
    _correct(lab_mem, "chat-1", "no, use npm not <b>yarn</b>")
    open_panel(page, lab)
    show_tab(page, "learning")
    page.wait_for_selector(f"{PANEL} #jm-learning[data-count='1'][data-loaded='true']")
    # Each node is marked by a property, not an attribute: the view keeps a node
    # whose drawing is unchanged, and an attribute would be a change.
    mark = "n => { n.jmKept = true }"
    kept = "n => n.jmKept === true"
    promote = page.locator(f"{PANEL} .jm-candidate .jm-promote")
    promote.evaluate(mark)
    # At 250 px with Learning selected, Cases (the last tab) waits in the More menu;
    # named by its tab, not by its place: a badge arriving may move Queued in first.
    item = page.locator(f"{PANEL} .jm-tab-menu [data-tab='cases']")
    item.wait_for(state="attached")
    item.evaluate(mark)
    before = refreshes(page)
    run_command(page, "jupyter-memory:refresh")
    wait_refreshed_after(page, before)
    assert promote.evaluate(kept), "the unchanged candidate's button was made again"
    assert item.evaluate(kept), "the menu item was made again"
    assert not page.js_errors  # type: ignore[attr-defined]
