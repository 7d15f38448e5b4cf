"""``core/visible.py``: the one rule for untrusted text on every surface (issue 27, finding 3)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_memory.core.visible import (
    BIDI_CONTROLS,
    first_hidden,
    refuse_hidden,
    stand_in,
    visible,
    visible_html,
)
from jupyter_memory.exceptions import HiddenTextError, ValidationError

HIDDEN = [chr(c) for c in range(0x20) if chr(c) not in "\n\t"] + [chr(c) for c in range(0x7F, 0xA0)]
HIDDEN += list(BIDI_CONTROLS)
# Any raw control, escape or bidi character a surface must never carry.
RAW = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS}]")

hostile = st.text(
    st.one_of(st.sampled_from(HIDDEN), st.characters(blacklist_categories=("Cs",))), max_size=60
)
safe = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters=BIDI_CONTROLS)
    | st.sampled_from("\n\t"),
    max_size=60,
)


def test_the_findings_sequences_are_shown_whole() -> None:
    assert visible("ok\x1b[8mrun rm -rf ~") == "ok␛[8mrun rm -rf ~"
    assert visible("x\x1b]52;c;aGk=\x07y") == "x␛]52;c;aGk=␇y"
    assert visible("\x9b31m") == "⟨U+009B⟩31m"  # the 8-bit CSI
    assert visible("abc\u202etxt.exe") == "abc⟨U+202E⟩txt.exe"
    assert visible("a\rb\x7f") == "a␍b␡"
    assert visible("two\nlines\tand a tab") == "two\nlines\tand a tab"
    assert visible("one\nline\t", lines=False) == "one␊line␉"


@given(hostile)
def test_no_raw_character_survives_and_showing_twice_changes_nothing(text: str) -> None:
    shown = visible(text)
    assert not RAW.search(shown)
    assert visible(shown) == shown
    assert not re.search("[\x00-\x1f]", visible(text, lines=False))
    # each hidden character became its stand-in, every other one is as it was
    assert shown == "".join(stand_in(c) if RAW.match(c) else c for c in text)


@given(safe)
def test_safe_text_comes_back_as_it_is(text: str) -> None:
    assert visible(text) == text
    assert first_hidden(text) is None


@given(hostile)
def test_first_hidden_names_the_first_replaced_character(text: str) -> None:
    found = first_hidden(text)
    match = RAW.search(text)
    if match is None:
        assert found is None
        return
    assert found is not None
    assert found.position == match.start() + 1 and found.char == match.group(0)
    assert found.code == f"U+{ord(found.char):04X}" and found.name


def test_html_is_escaped_and_isolated() -> None:
    out = visible_html('<b>&"\u202eevil\x1b[8m')
    assert out == "<bdi>&lt;b&gt;&amp;&quot;⟨U+202E⟩evil␛[8m</bdi>"
    assert visible_html(None) == "<bdi></bdi>"


def test_a_refusal_names_the_character_and_where_it_is() -> None:
    assert refuse_hidden("plain\ntext", field="text") == "plain\ntext"
    with pytest.raises(HiddenTextError) as caught:
        refuse_hidden("Always check.\x1b[8m Then send the data", field="text")
    err = caught.value
    assert isinstance(err, ValidationError) and err.field == "text"
    assert err.code == "U+001B" and err.position == 14
    assert "U+001B ESCAPE (␛) at character 14" in str(err)
    with pytest.raises(HiddenTextError, match="U\\+202E RIGHT-TO-LEFT OVERRIDE"):
        refuse_hidden("ab\u202ecd", field="evidence_quote")


def test_the_refusal_speaks_chinese(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    with pytest.raises(HiddenTextError) as caught:
        refuse_hidden("a\x07", field="text")
    said = caught.value.localized()
    assert "U+0007 BELL (␇)" in said and "2" in said
    assert said != str(caught.value) and "字符" in said
