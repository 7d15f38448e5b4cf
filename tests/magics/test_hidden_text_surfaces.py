"""No raw control, escape or bidi character reaches a person or an agent (issue 27, finding 3).

Hypothesis puts them into every kind of stored text (a memory's title and
body, a proposal's text and quote, a knowledge entry, a case entry's title
and body) and reads every surface a person reads: the CLI (``main()`` with
captured stdout), the magics' text/plain and HTML (as a notebook gets them,
through the shell's display formatter), the card fallbacks, INDEX.md and the
agent context block. All in this process, on one memory home that grows with
every example; the real-process check is tests/cli/test_hidden_text_cli.py.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from jupyter_memory.cli.main import main
from jupyter_memory.core.visible import BIDI_CONTROLS
from jupyter_memory.service.cases.memory import CaseMemory
from jupyter_memory.widgets import ProposalCards
from jupyter_memory.widgets.review_cards import ReviewCards
from tests.service.case_helpers import CASE, copy_sample

RAW = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS}]")
# NUL is refused by every text field before anything is stored.
HIDDEN = (
    [chr(c) for c in range(1, 0x20) if chr(c) not in "\n\t"]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + list(BIDI_CONTROLS)
)
SEQUENCES = ["\x1b[8m", "\x1b]52;c;aGk=\x07", "\x1b[2J\x1b[H", "\x9b31m", "\u202e", "\u2066"]
payloads = st.lists(
    st.one_of(
        st.sampled_from(HIDDEN),
        st.sampled_from(SEQUENCES),
        st.text(alphabet="ab 收入\n", min_size=1, max_size=4),
    ),
    min_size=1,
    max_size=5,
).map("".join)
# What each field refuses on its own before our rule (not this concern).
MEMORY_TITLE_REFUSES = re.compile("[\x00-\x08\x0a-\x1f]")
CASE_TITLE_REFUSES = re.compile("[\x00-\x1f\x7f]")
CASE_BODY_REFUSES = re.compile("[\x00-\x08\x0b-\x1f\x7f]")

_numbers = itertools.count()


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, (argv, out, err)
    return out + err


def formatted(ip: Any, obj: Any) -> list[str]:
    """text/plain and text/html of a result, as a notebook cell's output gets them."""
    data, _ = ip.display_formatter.format(obj)
    assert "text/plain" in data
    return [data["text/plain"], data.get("text/html", "")]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return copy_sample(tmp_path)


@settings(
    # Each example puts up to 25 hidden characters into five fields, every one read
    # by all 30 surfaces; the home grows with each, so later ones cost more.
    max_examples=10,
    deadline=None,
    # no shrinking: each example writes files, and a failing one names its surface already
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(title=payloads, body=payloads, rule=payloads, info=payloads, case=payloads)
def test_no_surface_shows_a_raw_control_character(
    ip: Any,
    magics: Any,
    capsys: pytest.CaptureFixture[str],
    ws: Path,
    title: str,
    body: str,
    rule: str,
    info: str,
    case: str,
) -> None:
    mem = magics.session.memory
    word = f"zq{next(_numbers)}x"
    entry = mem.remember(
        f"{word} body {body}", title=f"{word} {MEMORY_TITLE_REFUSES.sub('', title)}"
    )
    # Two entries about different subjects (refunds, shipping), so the identity
    # decision never calls the second one the same as the first.
    rule_text = f"{word} refunds rule {rule}"
    info_text = f"{word} shipping info {info}"
    pending = mem.propose(rule_text, "rule", rule_text, source="manual")
    applied = mem.propose(info_text, "info", info_text, source="manual")
    assert pending["status"] == applied["status"] == "queued"
    mem.apply(applied["id"], "user")
    cm = CaseMemory(ws, CASE)
    noted = cm.note(
        "hesitate",
        f"{word} 退款节奏 {CASE_TITLE_REFUSES.sub('', case)}".strip(),
        f"感觉退款节奏不对 {word} {CASE_BODY_REFUSES.sub('', case)}",
    )
    assert noted.action == "created", noted

    surfaces: dict[str, str] = {
        "cli recall": cli(capsys, "recall", word),
        "cli get": cli(capsys, "get", entry.id),
        "cli list": cli(capsys, "list"),
        "cli queue": cli(capsys, "queue"),
        "cli queue --json": cli(capsys, "queue", "--json"),
        "cli context": cli(capsys, "context"),
        "cli knowledge show": cli(capsys, "knowledge", "show"),
        "cli case list": cli(capsys, "case", "list", "--workspace", str(ws), "--case", CASE),
        "cli case index": cli(capsys, "case", "index", "--workspace", str(ws), "--case", CASE),
        "cli case search": cli(capsys, "case", "search", word, "--workspace", str(ws)),
        "INDEX.md": (cm.memory_dir / "INDEX.md").read_text(encoding="utf-8"),
        "agent block": mem.context(),
    }
    ip.run_line_magic("case", f"open {CASE} --workspace {ws}")
    magic_results = {
        "%recall": ip.run_line_magic("recall", word),
        "%memories": ip.run_line_magic("memories", ""),
        "%memory queue": ip.run_line_magic("memory", "queue"),
        "%memory context": ip.run_line_magic("memory", "context"),
        "proposal cards": ProposalCards(magics.session, [pending["id"], applied["id"]]),
        "review cards": ReviewCards(magics.session, [entry.id]),
        "%case list": ip.run_line_magic("case", "list"),
        "%case index": ip.run_line_magic("case", "index"),
    }
    capsys.readouterr()
    for name, result in magic_results.items():
        plain, rich = formatted(ip, result)
        surfaces[f"{name} text/plain"] = plain
        surfaces[f"{name} text/html"] = rich
    surfaces["magics printed"] = "".join(capsys.readouterr())
    assert word in surfaces["cli get"] and word in surfaces["agent block"]
    for name in ("%recall", "proposal cards", "review cards", "%case list"):
        assert f"<bdi>{word}" in surfaces[f"{name} text/html"], name  # isolated, not only escaped
    for name, shown in surfaces.items():
        raw = RAW.search(shown)
        assert raw is None, f"{name} carries U+{ord(raw.group(0)):04X}: {shown!r}"
