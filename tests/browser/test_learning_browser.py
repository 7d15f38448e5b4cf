"""The panel's Learning view (spec 003 self-learning) in a real JupyterLab and Chromium:
candidates with evidence, confidence and thresholds; reject with a reason; propose now."""

from __future__ import annotations

from browser_helpers import PANEL, open_panel, queue_item, screenshot, show_tab


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
