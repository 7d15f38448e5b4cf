"""Chinese and English messages of the CLI and the magics (gettext catalogues)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from jupyter_memory import _i18n
from jupyter_memory.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from compile_catalogs import LOCALE, extract, mo_bytes, parse_po  # noqa: E402

PO = LOCALE / "zh_CN" / "LC_MESSAGES" / "jupyter_memory.po"
ARGPARSE_PO = LOCALE / "zh_CN" / "LC_MESSAGES" / "argparse.po"


def _fields(text: str) -> set[str]:
    """The named fields of a ``str.format`` template, with their conversion and spec
    (``{id!r}``, ``{n:,}``); ``{{`` and ``}}`` are literal braces."""
    return set(re.findall(r"(?<!\{)\{(\w+(?:![rsa])?(?::[^{}]*)?)\}", text.replace("{{", "")))


def _percent_fields(text: str) -> list[str]:
    return sorted(re.findall(r"%(?:\(\w+\))?[sr]", text))


def test_every_marked_message_has_a_chinese_translation_and_none_is_stale() -> None:
    catalog = parse_po(PO.read_text(encoding="utf-8"))
    catalog.pop("", None)  # the header
    marked = extract()
    wanted = {m if p is None else f"{m}\x00{p}" for m, p in marked.items()}
    assert sorted(wanted - set(catalog)) == [], "untranslated: add them to the .po"
    assert sorted(set(catalog) - wanted) == [], "stale: no longer in the code"
    for msgid, msgstr in catalog.items():
        # A translation keeps every {placeholder}, or .format() would fail in Chinese only.
        assert _fields(msgstr) == _fields(msgid.split("\x00")[0]), msgid
        # Chinese words, or at least Chinese punctuation ("{name}：{why}")
        chinese = re.search(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]", msgstr)
        assert chinese or msgid.strip() in ("error",), msgid


def test_the_compiled_catalogues_are_current() -> None:
    for po in (PO, ARGPARSE_PO):
        data = mo_bytes(parse_po(po.read_text(encoding="utf-8")))
        assert po.with_suffix(".mo").read_bytes() == data, "run python scripts/compile_catalogs.py"


def _argparse_words() -> set[str]:
    """Every word this Python's argparse asks gettext for (``_`` and ``ngettext`` literals)."""
    import argparse
    import ast

    words: set[str] = set()
    for node in ast.walk(ast.parse(Path(argparse.__file__).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("_", "ngettext"):
            texts = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if texts and all(isinstance(t, str) for t in texts):
                words.add("\x00".join(texts[:2]) if node.func.id == "ngettext" else texts[0])  # type: ignore[attr-defined]
    return words


def test_every_word_of_this_pythons_argparse_has_a_chinese_translation() -> None:
    catalog = parse_po(ARGPARSE_PO.read_text(encoding="utf-8"))
    catalog.pop("", None)
    words = _argparse_words()
    assert {"usage: ", "options", "the following arguments are required: %s"} <= words
    assert sorted(words - set(catalog)) == [], "add argparse's words to argparse.po"
    for msgid, msgstr in catalog.items():
        # argparse fills them with %: a lost or extra %(name)s would fail in Chinese only
        for form in msgstr.split("\x00"):
            assert _percent_fields(form) == _percent_fields(msgid.split("\x00")[0]), msgid
        assert re.search(r"[\u4e00-\u9fff\uff00-\uffef]", msgstr), msgid  # words or "："


def test_a_message_is_english_as_text_and_chinese_where_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jupyter_memory.exceptions import NotFoundError, StoreError, ValidationError

    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    missing = NotFoundError(_i18n.M_("no memory with id {memory_id!r}", memory_id="m-1"))
    assert str(missing) == "no memory with id 'm-1'"  # REST, MCP, JSON and logs
    assert missing.localized() == "没有 id 为 'm-1' 的记忆"
    bad = ValidationError(_i18n.M_("must be a string"), field="text")
    assert (str(bad), bad.localized(), bad.field) == (
        "text: must be a string",
        "text: 必须是字符串",
        "text",
    )
    failed = StoreError(_i18n.M_("write failed: {reason}", reason="disk full"), path="/m/x.md")
    assert failed.localized() == "/m/x.md: 写入失败：disk full"
    plain = ValidationError("an English-only text", field="x")  # a str still works as before
    assert str(plain) == plain.localized() == "x: an English-only text"
    # a Message inside a Message, and an error inside one, follow the same language
    nested = _i18n.M_(
        "{name} is {why}",
        name="a.md",
        why=_i18n.M_("a legacy v1 entry: read-only, never rewritten"),
    )
    assert _i18n.localized(nested) == "a.md：旧版 v1 记录：只读，从不改写"
    assert str(nested) == "a.md is a legacy v1 entry: read-only, never rewritten"
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "en")
    assert missing.localized() == str(missing)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"JUPYTER_MEMORY_LANG": "zh_CN"}, "已忘记 m-1"),
        ({"JUPYTER_MEMORY_LANG": "zh"}, "已忘记 m-1"),
        ({"LANG": "zh_CN.UTF-8"}, "已忘记 m-1"),
        ({"LANGUAGE": "zh_CN:en", "LANG": "en_US.UTF-8"}, "已忘记 m-1"),
        ({"JUPYTER_MEMORY_LANG": "en", "LANG": "zh_CN.UTF-8"}, "forgot m-1"),
        ({"LANG": "C.UTF-8"}, "forgot m-1"),
        ({"JUPYTER_MEMORY_LANG": "fr"}, "forgot m-1"),  # no catalogue: English
    ],
)
def test_the_language_follows_the_setting_then_the_locale(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: str
) -> None:
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    assert _i18n.tr("forgot {id}").format(id="m-1") == expected


def test_the_cli_speaks_chinese(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    assert main(["recall", "不存在的词"]) == 0
    assert capsys.readouterr().out.strip() == "没有找到记忆"
    assert main(["remember", "退款按订单净额计算"]) == 0
    assert capsys.readouterr().out.startswith("已记住 m-")


def test_a_magic_speaks_chinese_in_a_real_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.kernels import started_kernel

    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    outputs: list[str] = []

    def keep(msg: dict[str, Any]) -> None:
        content = msg["content"]
        outputs.append(content.get("text") or str(content.get("data", {}).get("text/plain", "")))
        outputs.append("\n".join(content.get("traceback", [])))

    with started_kernel() as (_, kc):
        for code in (
            "%load_ext jupyter_memory",
            "%remember 退款按订单净额计算",
            "%recall 没有这个词",
            "%forget m-nope",
        ):
            kc.execute_interactive(code, timeout=60, output_hook=keep)
    said = "\n".join(outputs)
    assert "已记住 m-" in said and "存于 用户" in said
    assert "没有匹配的记忆。" in said
    assert "%forget: 未找到" in said and "用 %memories 或 %recall 查看 id" in said


def test_a_stored_message_reads_back_translatable_or_as_its_english(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pathlib import PurePosixPath

    from jupyter_memory._i18n import M_
    from jupyter_memory._i18n.stored import read_stored, stored_text
    from jupyter_memory.exceptions import ParseError

    error = ParseError(M_("malformed YAML frontmatter: {exc}", exc="bad ]"), path="a.md")
    kept = stored_text(error)
    back = read_stored(kept)
    assert back == str(error)
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    assert "YAML frontmatter 格式有误" in _i18n.localized(back)
    # rows written before (plain English), a torn row, and a param whose repr was in the text
    assert read_stored("no such file") == "no such file"
    assert read_stored('{"en": "x", "jm-message": ') == '{"en": "x", "jm-message": '
    odd = M_("cannot open {path!r}", path=PurePosixPath("/a b"))
    assert read_stored(stored_text(odd)) == str(odd)
    assert stored_text(OSError("disk gone")) == "disk gone"


def test_a_kernel_started_by_the_lab_speaks_the_labs_language_and_follows_a_switch(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """JupyterLab's Settings → Language wins over JUPYTER_MEMORY_LANG and the locale
    in a process our server extension started (it names the lab's settings file)."""
    settings = tmp_path / "plugin.jupyterlab-settings"
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "en")
    monkeypatch.setenv("JUPYTER_MEMORY_LAB_SETTINGS", str(settings))
    assert _i18n.tr("forgot {id}") == "forgot {id}"  # no choice made in the lab yet
    settings.write_text('{\n    // the Language menu\n    "locale": "zh_CN"\n}', encoding="utf-8")
    assert _i18n.tr("forgot {id}").format(id="m-1") == "已忘记 m-1"
    settings.write_text('{"locale": "en"}', encoding="utf-8")  # switched back: read again
    assert _i18n.tr("forgot {id}") == "forgot {id}"
    settings.write_text('{"locale": "default",}', encoding="utf-8")  # the system's: ours decide
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    assert _i18n.tr("forgot {id}").format(id="m-1") == "已忘记 m-1"
    settings.write_text('{/* "locale": "en" */ "locale": "zh_CN"}', encoding="utf-8")
    assert _i18n.lab.locale_in(settings.read_text(encoding="utf-8")) == "zh_CN"


def test_the_server_extension_names_the_labs_language_file_to_its_kernels(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os

    from jupyter_memory.server.lab_language import share_lab_language

    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path / "lab-settings"))
    shared = share_lab_language(object())  # no lab app known: the lab's own default
    expected = (
        tmp_path / "lab-settings/@jupyterlab/translation-extension/plugin.jupyterlab-settings"
    )
    assert shared == str(expected) == os.environ["JUPYTER_MEMORY_LAB_SETTINGS"]
    monkeypatch.setenv("JUPYTER_MEMORY_LAB_SETTINGS", "/chosen/by/whoever/started/it")
    assert share_lab_language(object()) == "/chosen/by/whoever/started/it"


def test_every_domain_error_below_the_shells_is_raised_with_a_catalogued_message() -> None:
    """A domain error (jupyter_memory.exceptions) raised in core, store or service
    with a plain or f-string text would read in English in a Chinese kernel: each
    one names an ``M_(...)`` message, which the catalogue test above covers."""
    import ast
    import inspect

    from jupyter_memory import exceptions

    domain = {
        name
        for name, cls in vars(exceptions).items()
        if inspect.isclass(cls) and issubclass(cls, exceptions.JupyterMemoryError)
    }
    plain: list[str] = []
    package = ROOT / "jupyter_memory"
    for layer in ("core", "store", "service"):
        for path in sorted((package / layer).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                    continue
                name = ast.unparse(node.exc.func).rsplit(".", 1)[-1]
                text = node.exc.args[0] if node.exc.args else None
                if name in domain and isinstance(text, (ast.Constant, ast.JoinedStr)):
                    plain.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(text)}")
    assert plain == [], "wrap these in M_(...) and add them to the .po"
