"""Patterns a person's text reaches read a long run in time linear in its length, same result.

Each of these was quadratic in the length of one run (of path characters, spaces, word
characters or non-spaces): a match tried from every position of the run scanned the
rest of it again, 0.1–1 s on 3,000 characters (``benchmarks/long_text_bench.py`` has
the figures). Each now starts only where the run starts, merges two adjacent ``\\s*``,
skips a branch whose required character is absent, or strips the pieces of a split.
These tests pin, with the pattern as it was as the reference, that each finds exactly
what it found; the identity analysis has its own (``test_identity_linear_time.py``).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.cases import entry_format, policy
from jupyter_memory.core.knowledge import agents_block, evidence, extract
from jupyter_memory.core.learning import digest_extract, digest_signals

OLD_PATH = re.compile(
    r"(?:(?:^|[\s'\"(])(?:/tmp/|/var/tmp/|~/|\./|\.\./|[A-Za-z]:\\)\S+|"
    r"[\w./\\~-]+\.(?:csv|tsv|parquet|pq|pkl|pickle|feather|arrow|h5|hdf5|xlsx?|npy|npz|jsonl?|db|sqlite)\b)",
    re.IGNORECASE,
)
OLD_INSTRUCTION = re.compile(
    r"^\s*[\[(<]?\s*(?:execute\s+plan|resolve\s+comments?|(?:generate\s+)?html\s+report|"
    r"system\s+instruction|执行计划|執行計劃|執行計畫|解决批注|解決批註|处理批注|處理批註|"
    r"生成\s*html\s*报告|生成\s*html\s*報告)\b",
    re.IGNORECASE,
)
OLD_INLINE = re.compile(r"^[-*\s]*\**\s*memory write policy\s*\**\s*[:：]\s*(.*)$", re.IGNORECASE)
OLD_OPERATION = re.compile(
    r"^(?:我们?|助手|ai)?\s*(?:先|已经|已|刚才|刚|又|再)?\s*"
    r"(?:调用|运行|执行|打开|加载|导入|导出|查询了|检索了|跑了|使用了)"
)
OLD_ATTR = re.compile(r"(\w+):(\S+)")
OLD_LIST_SPLIT = re.compile(r"\s*[,，、;；]\s*")
OLD_SPECIFIC = re.compile(
    r"`[^`]*`|\"[^\"]*\"|'[^']*'|“[^”]*”|「[^」]*」|https?://\S+|\S*[/\\]\S*"
    r"|\b[\w-]+\.[A-Za-z]\w{0,4}\b|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[0-9a-f]{7,40}\b"
    r"|\d{4}-\d{2}-\d{2}|\b\w*\d[\w.%]*",
)


def _texts(pieces: list[str], size: int = 40) -> st.SearchStrategy[str]:
    """Texts made of what a pattern looks at, so that random texts hit every branch."""
    return st.lists(st.sampled_from(pieces), max_size=size).map("".join)


def _span(m: re.Match[str] | None) -> tuple[tuple[int, int], tuple[str | None, ...]] | None:
    return None if m is None else (m.span(), m.groups())


@settings(max_examples=400, deadline=None)
@given(
    _texts(
        [*"a1_./\\~-: '\"(xX\t", "/tmp/", "~/", "./", "../", "C:\\", ".csv", ".CSV", ".db", "sv"]
    )
)
def test_the_path_of_an_intermediate_output_is_found_as_before(text: str) -> None:
    # Only ``search`` is used: the first match is the same (its start and its end).
    assert _span(extract._PATH.search(text)) == _span(OLD_PATH.search(text)), text


@settings(max_examples=400, deadline=None)
@given(
    _texts(
        [
            *" \t\n[(<a",
            "execute plan",
            "execute  plan",
            "resolve comments",
            "html report",
            "执行计划",
            "生成 html 报告",
            "x",
            "System Instruction",
        ],
        size=12,
    )
)
def test_a_ui_instruction_is_recognised_as_before(text: str) -> None:
    assert _span(evidence._INSTRUCTION_RE.match(text)) == _span(OLD_INSTRUCTION.match(text))


@settings(max_examples=400, deadline=None)
@given(
    _texts([*"-* \t:：*x", "memory write policy", "Memory Write Policy", "silent", "**"], size=14)
)
def test_the_inline_write_policy_is_read_as_before(text: str) -> None:
    assert _span(policy._INLINE_RE.match(text)) == _span(OLD_INLINE.match(text)), text


@settings(max_examples=400, deadline=None)
@given(
    _texts(
        [
            *" \t我们x",
            "我",
            "助手",
            "ai",
            "先",
            "已经",
            "已",
            "刚才",
            "刚",
            "调用",
            "跑了",
            "使用了",
        ],
        12,
    )
)
def test_an_operation_record_is_recognised_as_before(text: str) -> None:
    assert _span(policy._OPERATION[0].search(text)) == _span(OLD_OPERATION.search(text)), text


@settings(max_examples=400, deadline=None)
@given(_texts([*"ab1_: \t-=", "hash", "pad", "收"]))
def test_the_agents_block_attributes_are_read_as_before(text: str) -> None:
    assert agents_block._ATTR_RE.findall(text) == OLD_ATTR.findall(text), text


@settings(max_examples=400, deadline=None)
@given(_texts([*"ab1 \t\n,，、;；-", "C-1", "无", "none"]))
def test_a_list_of_case_ids_is_split_as_before(text: str) -> None:
    value = text.strip()
    old = tuple(v for v in OLD_LIST_SPLIT.split(value) if v)
    if value in ("", entry_format.EMPTY, "-", "无", "none", "None"):
        old = ()
    assert entry_format.split_ids(text) == old, text


_SPECIFIC_PIECES = [
    *"aA1f_-./\\ `\"'“”「」%:",
    "http://",
    "https://x",
    "2024-01-02",
    "abcdef12",
    "camelCase",
    ".csv",
    "收",
]


@settings(max_examples=600, deadline=None)
@given(_texts(_SPECIFIC_PIECES, size=30))
def test_the_strip_test_removes_the_same_specifics(text: str) -> None:
    old = [m.span() for m in OLD_SPECIFIC.finditer(text)]
    assert [m.span() for m in digest_signals._specific(text).finditer(text)] == old, text
    # The pattern with every branch finds the same: leaving one out only saves time.
    assert [m.span() for m in digest_signals._SPECIFIC[2, True].finditer(text)] == old, text


def test_a_long_run_reads_like_a_short_one() -> None:
    """What a long run means to each check does not depend on how long it is."""
    for run in ("a." * 1500, "0x1f" * 750, "a_" * 1500, "1" * 3000):
        assert extract.execution_state_reason(f"kept {run} rows") is None
        assert extract.execution_state_reason(f"wrote {run}.csv") is not None
        assert agents_block._ATTR_RE.findall(f"{run} hash:abc") == [("hash", "abc")]
    spaces = " \t" * 1500
    assert evidence.is_system_instruction(f"{spaces}[{spaces}execute plan")
    assert not evidence.is_system_instruction(f"{spaces}[{spaces}x")
    assert (
        policy.parse_team_profile(f"-{spaces}Memory Write Policy:{spaces}silent").value == "silent"
    )
    assert entry_format.split_ids(f"C-1{spaces},{spaces}C-2") == ("C-1", "C-2")
    assert policy.is_operation_record(f"我们{spaces}已经{spaces}调用了工具")


OLD_STEP = re.compile(
    r"^\s*(?:step\s*\d+|第\s*[一二三四五六七八九十\d]+\s*步)", re.IGNORECASE | re.MULTILINE
)
OLD_CHECKED = re.compile(r"^\s*[-*]\s*\[[xX]\]\s*(已纳入|存档待查|已排除)", re.MULTILINE)
OLD_CODE_HINT = re.compile(
    r"^\s*(?:import |from \S+ import |def |class |for .+:|if .+:|print\(|return\b|"
    r"[A-Za-z_][\w.\[\]'\"]*\s*=[^=])",
    re.MULTILINE,
)
_BLANKS = [*" \t\n\r\x0b\x0c\x1c\u2028x1", "\n\n", "  "]


@settings(max_examples=400, deadline=None)
@given(_texts([*_BLANKS, "step", "Step 2", "第", "一", "步", "第二步"], size=20))
def test_reasoning_steps_are_counted_as_before(text: str) -> None:
    # A match now starts on the step's own line, not on a blank line before it: the
    # same steps, without the blank lines in front.
    old = [s.lstrip() for s in OLD_STEP.findall(text)]
    assert [s.lstrip() for s in policy._STEP_RE.findall(text)] == old, text


@settings(max_examples=400, deadline=None)
@given(_texts([*_BLANKS, "-", "*", "[x]", "[X]", "[ ]", "已纳入", "已排除"], size=20))
def test_the_checked_status_is_read_as_before(text: str) -> None:
    assert entry_format._CHECKED_RE.findall(text) == OLD_CHECKED.findall(text), text


@settings(max_examples=400, deadline=None)
@given(_texts([*_BLANKS, "import ", "def ", "for i:", "a", "=", "==", "print("], 20))
def test_code_is_recognised_as_before(text: str) -> None:
    assert bool(digest_extract._CODE_HINT.search(text)) == bool(OLD_CODE_HINT.search(text))


OLD_BEGIN = re.compile(
    r"^<!-- BEGIN jupyter-memory(?P<attrs>[^\n]*?)\s*-->[ \t]*\r?$", re.MULTILINE
)


@settings(max_examples=400, deadline=None)
@given(_texts([*" \t\r\na:-", "<!-- BEGIN jupyter-memory", "-->", "hash:ab", " pad:2"], 16))
def test_the_agents_block_begin_marker_is_read_as_before(text: str) -> None:
    new = [(m.span(), m.group("attrs")) for m in agents_block._BEGIN_RE.finditer(text)]
    assert new == [(m.span(), m.group("attrs")) for m in OLD_BEGIN.finditer(text)], text
