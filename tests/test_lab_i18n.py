"""Chinese and English in the lab panel and the proposal cards (JupyterLab's translation system).

The catalogue is extracted from labextension/src (every ``trans.__/_n/_p/_np``
call), translated in labextension/locale/zh_CN.po and compiled to the JSON
jupyterlab_server serves (scripts/compile_lab_catalog.py).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from compile_lab_catalog import (  # noqa: E402
    DOMAIN,
    PO_DIR,
    Message,
    extract,
    json_path,
    json_text,
    parse_po,
    update_po,
)

PO = PO_DIR / "zh_CN.po"
HAN = re.compile(r"[\u4e00-\u9fff]")


def _placeholders(text: str) -> list[str]:
    return sorted(set(re.findall(r"%\d+", text)))


def test_every_trans_call_is_extractable() -> None:
    found = extract()
    # A msgid built at run time (a variable, a template with ${}) cannot be translated.
    assert found.problems == []
    assert len(found.messages) > 200
    assert Message("panel tab", "Queued", None) in found.messages
    assert Message(None, "Apply to User", None) in found.messages


def test_every_message_has_a_chinese_translation_with_its_placeholders() -> None:
    entries = parse_po(PO.read_text(encoding="utf-8"))[1]
    marked = set(extract().messages)
    assert sorted(m.key for m in marked - set(entries)) == [], (
        "untranslated: python scripts/compile_lab_catalog.py --update, then translate"
    )
    assert sorted(m.key for m in set(entries) - marked) == [], "stale: no longer in the code"
    for msg, entry in entries.items():
        assert entry.strs and all(entry.strs), msg
        for text in entry.strs:
            # Gettext.strfmt fills %1, %2…: a dropped one loses a value, a new one shows "undefined".
            assert _placeholders(text) == _placeholders(msg.msgid), msg
            assert HAN.search(text), msg
            # strfmt turns "%%" into "%": none in a msgid or a translation.
            assert "%%" not in text and "%%" not in msg.msgid, msg


def test_the_po_is_in_sync_and_the_served_json_is_current() -> None:
    assert update_po(PO, extract()) == PO.read_text(encoding="utf-8"), (
        "run python scripts/compile_lab_catalog.py --update"
    )
    out = json_path(PO)
    assert out == ROOT / "jupyter_memory/locale/zh_CN/LC_MESSAGES" / f"{DOMAIN}.json"
    assert out.read_text(encoding="utf-8") == json_text(PO), (
        "run python scripts/compile_lab_catalog.py"
    )
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data[""]["language"] == "zh-CN" and data[""]["domain"] == DOMAIN
    assert data["panel tab\x04Queued"] == ["待审"]
    # JupyterLab's Gettext takes a one-form list for a singular: plurals carry two.
    assert data["%1 case"] == ["%1 个案件", ""]


def test_the_domain_is_the_one_the_front_end_loads() -> None:
    i18n = (ROOT / "labextension/src/i18n.ts").read_text(encoding="utf-8")
    assert f"export const DOMAIN = '{DOMAIN}';" in i18n


def test_jupyterlab_server_serves_the_catalogue_through_the_entry_point() -> None:
    """What GET /lab/api/translations/zh_CN answers: the installed entry point finds the JSON."""
    from jupyterlab_server.translation_utils import get_language_pack

    data, message = get_language_pack("zh_CN")
    assert not message.strip(), message
    ours = data[DOMAIN]
    assert ours["Apply to User"] == ["采纳到用户"]
    assert ours["card button\x04User"] == ["用户"]
    assert "jupyterlab" in data  # the zh_CN language pack (dev extra) is installed too
