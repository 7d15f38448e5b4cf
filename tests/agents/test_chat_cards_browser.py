"""Proposal cards in a Jupyter AI chat, in a real JupyterLab with Jupyter AI and Chromium.

The person writes an explicit note in a chat message (``rule: …``, no persona
addressed, no LLM): its card appears in the chat's message stream (a chat
message whose ``mime_model`` carries our proposal MIME type, drawn by the lab
extension's card renderer), is applied from the card, and after a reload the
chat shows it decided. A second note is applied from the panel, and its chat
card follows. Marked ``jupyter_ai`` (``make test-integrations``): Jupyter AI's
venv.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_memory import Memory
from tests.support.servers import JupyterProcess, free_port, jupyter_process

pytestmark = pytest.mark.jupyter_ai

CHROMIUM = os.environ.get("JM_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]
OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "agents"
PORT = int(os.environ.get("JM_LAB_PORT", "18931")) + 50  # beside the browser suite's lab
NO_NEWS = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}
}
CHAT = "analysis.chat"
FIRST = "rule: revenue excludes refunds"
SECOND = "口径：金额单位为人民币"
PANEL = "#jupyter-memory-panel"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[JupyterProcess, Path]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium", pytrace=False)
    base = tmp_path_factory.mktemp("chat-lab")
    root, home, jhome, settings = (base / n for n in ("root", "memory", "home", "settings"))
    for d in (root, home, jhome, settings):
        d.mkdir()
    (settings / "overrides.json").write_text(json.dumps(NO_NEWS), encoding="utf-8")
    (root / CHAT).write_text(json.dumps({"messages": [], "users": {}}), encoding="utf-8")
    env = {
        **os.environ,
        "HOME": str(jhome),
        "JUPYTER_MEMORY_HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(jhome / ".jupyter"),
        "JUPYTER_DATA_DIR": str(jhome / ".local/share/jupyter"),
        "JUPYTER_RUNTIME_DIR": str(jhome / ".runtime"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # litellm would fetch it from the network
        "FASTMCP_SHOW_SERVER_BANNER": "false",
    }
    mcp_port = free_port()
    args = [
        f"--LabApp.workspaces_dir={base / 'workspaces'}",
        f"--LabApp.app_settings_dir={settings}",
        "--LabApp.expose_app_in_browser=True",
        "--JupyterMemoryServer.poll_interval=0.5",
        f"--MCPExtensionApp.mcp_port={mcp_port}",
    ]
    port = PORT if "JM_LAB_PORT" in os.environ else free_port()
    log = OUTPUT / "chat-cards-lab.log"
    with jupyter_process(
        root,
        log,
        env=env,
        app="jupyterlab",
        args=args,
        port=port,
        extra_ports=(mcp_port,),
        cwd=root,
    ) as server:
        yield server.ready(timeout=60), home


@pytest.fixture
def page(lab: Any) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        context.set_default_timeout(45_000)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.js_errors = errors  # type: ignore[attr-defined]
        yield page
        browser.close()


def _open_chat(page: Any, server: JupyterProcess) -> Any:
    page.goto(f"{server.url}/lab/tree/{CHAT}?reset&token={server.token}")
    chat = page.locator(".jp-MainAreaWidget", has=page.locator(".jp-chat-input-container"))
    chat.locator(".jp-chat-input-container").wait_for()
    return chat


def _send(chat: Any, text: str) -> None:
    box = chat.locator(".jp-chat-input-container").get_by_role("combobox")
    box.click()
    box.press_sequentially(text)
    chat.locator(".jp-chat-input-container .jp-chat-send-button").click()


def _card(chat: Any, quote: str) -> Any:
    return chat.locator(".jp-chat-message .jm-card", has_text=quote)


def _proposal(home: Path, quote: str) -> Any:
    with Memory(home=home) as mem:
        return next(p for p in mem.queue(include_decided=True) if p.evidence_quote == quote)


def test_a_chat_note_shows_its_card_in_the_chat_decided_from_the_card_or_the_panel(
    lab: Any, page: Any
) -> None:
    server, home = lab
    chat = _open_chat(page, server)

    # The person's own note in a chat message: a proposal, and its card in the chat.
    _send(chat, FIRST)
    card = _card(chat, FIRST)
    card.locator(".jm-card-user").wait_for()
    assert card.get_attribute("data-state") == "pending"
    first = _proposal(home, FIRST)
    assert first.status == "pending" and card.get_attribute("data-id") == first.id
    assert card.locator(".jm-card-text").inner_text() == "Revenue excludes refunds"

    # Applied from the card: written to the User knowledge.
    card.locator(".jm-card-user").click()
    page.wait_for_selector(f".jp-chat-message .jm-card[data-id='{first.id}'][data-state='applied']")
    assert _proposal(home, FIRST).status == "applied"
    assert "Revenue excludes refunds" in (home / "knowledge.md").read_text(encoding="utf-8")

    # A reload renders the chat's card message again, in its decided state.
    page.reload()
    chat = page.locator(".jp-MainAreaWidget", has=page.locator(".jp-chat-input-container"))
    decided = chat.locator(f".jm-card[data-id='{first.id}']")
    decided.wait_for()
    page.wait_for_selector(f".jm-card[data-id='{first.id}'][data-state='applied']")
    assert decided.locator(".jm-card-user").count() == 0
    # One card per proposal: reopening the chat posted no second one.
    assert chat.locator(f".jm-card[data-id='{first.id}']").count() == 1

    # A second note, applied from the panel: the chat card follows the queue.
    _send(chat, SECOND)
    second_card = _card(chat, SECOND)
    second_card.locator(".jm-card-user").wait_for()
    second = _proposal(home, SECOND)
    if not page.locator(PANEL).is_visible():
        page.locator(".jp-SideBar [data-id='jupyter-memory-panel']").click()
    item = page.locator(f"{PANEL} .jm-queue-item", has_text=re.compile("人民币"))
    item.locator(".jm-apply-user").click()
    page.wait_for_selector(
        f".jp-chat-message .jm-card[data-id='{second.id}'][data-state='applied']"
    )
    assert _proposal(home, SECOND).status == "applied"
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / "chat-cards.png"))
    assert page.js_errors == []  # type: ignore[attr-defined]
