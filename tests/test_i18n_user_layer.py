"""One Chinese word for the user layer: 用户, as the proposal cards and the lab panel say it.

``%memory apply --to user`` used to answer 个人 (personal) where the card's
button and the panel's tab say 用户 for the same layer. A real kernel in zh_CN
says 用户, and no msgstr of either catalogue (the kernel's and CLI's, the lab
extension's) calls the user layer anything else.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from jupyter_memory import Memory
from tests.test_i18n_commands import run_cells

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import compile_catalogs  # noqa: E402
import compile_lab_catalog  # noqa: E402

USER_WORD = re.compile(r"\buser\b", re.IGNORECASE)


def _pairs() -> list[tuple[str, str, str]]:
    """(catalogue, msgid, msgstr) of every translated message of both catalogues."""
    out: list[tuple[str, str, str]] = []
    for po in sorted(compile_catalogs.LOCALE.glob("zh_CN/LC_MESSAGES/*.po")):
        entries = compile_catalogs.parse_po(po.read_text(encoding="utf-8"))
        out += [(po.name, mid, mstr) for mid, mstr in entries.items() if mid]
    lab = compile_lab_catalog.PO_DIR / "zh_CN.po"
    _, lab_entries = compile_lab_catalog.parse_po(lab.read_text(encoding="utf-8"))
    for msg, entry in lab_entries.items():
        out += [(lab.name, msg.msgid, text) for text in entry.strs]
    return out


def test_no_msgstr_calls_the_user_layer_anything_but_yonghu() -> None:
    pairs = _pairs()
    user = [(cat, mid, mstr) for cat, mid, mstr in pairs if USER_WORD.search(mid)]
    assert len(user) > 15  # both catalogues were read
    # Where the English says "user" the Chinese says 用户, or keeps the code
    # itself (``--to user``, ``'user'``), never 个人.
    wrong = [
        (cat, mid, mstr)
        for cat, mid, mstr in user
        if "个人" in mstr or not ("用户" in mstr or "user" in mstr)
    ]
    assert wrong == []
    # 个人 is left for what is personal in English, and no such message says "user".
    personal = [(cat, mid, mstr) for cat, mid, mstr in pairs if "个人" in mstr]
    assert [p for p in personal if USER_WORD.search(p[1])] == []


@pytest.mark.slow
def test_memory_apply_in_chinese_says_yonghu_as_the_cards_do(
    tmp_path: Path, memory_home: Path
) -> None:
    with Memory(home=memory_home) as mem:
        pid = mem.propose("收入一律不含退款", "rule", "收入一律不含退款").id
        other = mem.propose("订单按下单日统计", "rule", "订单按下单日统计").id
    assert pid and other
    said = run_cells(
        [
            "%load_ext jupyter_memory",
            f"%memory apply {pid} --to user",
            f"%memory apply {pid} --to user",  # already saved: names the layer again
            "%memory process-all",
            "print(get_ipython().find_line_magic('remember').__doc__)",  # %remember? help
        ],
        "zh_CN",
        tmp_path,
        home=memory_home,
    )
    assert "已存入 用户：" in said, said
    assert "已在别处保存（用户）" in said, said
    assert f"  → 用户: {other}" in said, said
    assert "存到你的用户层（所有项目通用）" in said, said
    assert "个人" not in said, said
