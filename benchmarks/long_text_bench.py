"""Long runs in a person's text: the patterns replaced beside the ones in use.

One long run (a hash, a base64 blob, a long number, a dotted or URL-like token, a run of
spaces or of blank lines) made patterns quadratic: a match tried from every position of
the run scanned the rest of it again. Five were in the identity analysis (a memory's
text, when remembered or proposed); the others in the execution-state check of a note
or proposal, the UI-instruction check of evidence, the team profile's write policy, the
operation-record and reasoning-chain checks of a case note, a case entry's id lists and
checked status, the AGENTS.md block's attributes, and the digest's strip test and code
hint. In one process this prints each pattern's CPU time on runs of 1,000 and 4,000
characters, the old pattern beside the new, and each public entry point's time per
length (4× the length should cost ~4×).

    python benchmarks/long_text_bench.py
"""

from __future__ import annotations

import os
import re
import statistics
import time
from collections.abc import Callable

from jupyter_memory.core.cases import entry_format, policy
from jupyter_memory.core.knowledge import agents_block, evidence, extract
from jupyter_memory.core.knowledge import identity_analysis as ia
from jupyter_memory.core.learning import digest_extract, digest_signals
from jupyter_memory.core.learning.work_memory import BatchMessage
from tests.core import test_long_text_linear_time as was

_IDENT = ia._IDENT
OLD_AND_NEW: dict[str, tuple[Callable[[str], object], Callable[[str], object]]] = {}


def _pair(name: str, old: re.Pattern[str], new: Callable[[str], object]) -> None:
    OLD_AND_NEW[name] = (lambda s: old.findall(s), new)


def _table(s: str) -> object:
    (rule,) = [r for r in ia._SLOT_RULES if r[2].pattern.endswith(r"\s*表(?!示)")]
    return rule[2].findall(s) if rule[3] in s else []


def _named(fragment: str) -> Callable[[str], object]:
    patterns = [p for p, _ in ia._REWRITES] + [p for p, _ in ia._AFTER_NUMBERS]
    patterns += [r[2] for r in ia._SLOT_RULES]
    (found,) = [p for p in patterns if fragment in p.pattern]
    return found.findall


_pair("table before 表", re.compile(rf"({_IDENT}|[a-z][a-z0-9_]*)\s*表(?!示)"), _table)
_pair(
    "factor (1.5x)",
    re.compile(r"(\d+(?:\.\d+)?)\s*(?:x\b|times\b|倍)"),
    _named(r"\s*(?:x\b|times\b|倍)"),
)
_pair(
    "万 / 千",
    re.compile(r"(\d+(?:\.\d+)?)?(百万|万|千)(?=[次个人件元条笔单份])"),
    _named("(百万|万|千)"),
)
_pair(
    "N号线",
    re.compile(
        r"(\d+)\s?号(产线|生产线|线|仓库|仓|库|机台|机|航站楼|楼|门店|店|车间|工位|班组|站台|登机口)"
    ),
    _named(r"\s?号(产线"),
)
_pair(
    "separators",
    re.compile(r"、|\band\b|\bplus\b|和|以及|及|与|[,，](?=[^.。;；]*(?:\band\b|和))"),
    ia._separator_count,
)
_pair(
    "scope clauses",
    re.compile(r"[;:；：。.!?]|[,，](?![^.。;；]*(?:\band\b|和))|\bbut\b|但|而"),
    ia._scope_clauses,
)
_pair(
    "前 / 后",
    re.compile(rf"([{ia._CJK}]{{2,}})(?:(之前|以前|前)|(之后|以后|后))(?=的|[，。,;；]|$)"),
    ia._order,
)
OLD_AND_NEW["extract: intermediate-output path"] = (was.OLD_PATH.search, extract._PATH.search)
OLD_AND_NEW["evidence: UI instruction"] = (
    was.OLD_INSTRUCTION.match,
    evidence._INSTRUCTION_RE.match,
)
OLD_AND_NEW["policy: inline write policy"] = (was.OLD_INLINE.match, policy._INLINE_RE.match)
OLD_AND_NEW["policy: operation record"] = (was.OLD_OPERATION.search, policy._OPERATION[0].search)
OLD_AND_NEW["policy: reasoning steps"] = (was.OLD_STEP.findall, policy._STEP_RE.findall)
_pair("agents block: attributes", was.OLD_ATTR, agents_block._ATTR_RE.findall)
OLD_AND_NEW["case entry: id list"] = (was.OLD_LIST_SPLIT.split, entry_format.split_ids)
_pair("case entry: checked status", was.OLD_CHECKED, entry_format._CHECKED_RE.findall)
OLD_AND_NEW["digest: strip test"] = (
    lambda s: was.OLD_SPECIFIC.sub(" ", s),
    lambda s: digest_signals._specific(s).sub(" ", s),
)
OLD_AND_NEW["digest: code hint"] = (was.OLD_CODE_HINT.search, digest_extract._CODE_HINT.search)

RUNS = {
    "letters": "a",
    "chinese": "收",
    "digits": "1",
    "a_": "a_",
    "commas": "1,",
    "a.": "a.",
    "hex": "0x1f",
    "spaces": " \t",
    "blank lines": "\n",
    "quotes": '"a',
    "a-": "a-",
}

# The public entry points, each on a text holding one run (its 4k ÷ 1k should be ~4).
ENTRY_POINTS: dict[str, Callable[[str], object]] = {
    "identity analyse()": ia.analyse.__wrapped__,  # not its cache
    # Still quadratic (identity_analysis.py is another change's): the 表 rule on a text
    # with 表 and a long run of ``a_``, ``a.`` or hex.
    "identity analyse() with 表": lambda run: ia.analyse.__wrapped__(f"orders 表 {run}"),
    "extract: execution_state_reason": lambda run: extract.execution_state_reason(
        f"wrote {run} rows"
    ),
    "evidence: is_system_instruction": lambda run: evidence.is_system_instruction(f"[{run}x"),
    "policy: parse_team_profile": lambda run: policy.parse_team_profile(
        f"-{run}Memory Write Policy: silent"
    ),
    "policy: is_operation_record": lambda run: policy.is_operation_record(f"我们{run}调用了"),
    "policy: is_reasoning_chain": lambda run: policy.is_reasoning_chain(f"x\n{run}step 1"),
    "agents block: find_block": lambda run: agents_block.find_block(
        f"<!-- BEGIN jupyter-memory {run.replace(chr(10), ' ')} hash:0 -->\nx\n<!-- END jupyter-memory -->\n"
    ),
    "case entry: split_ids": lambda run: entry_format.split_ids(f"C-1{run}C-2"),
    "case entry: peek_entry": lambda run: entry_format.peek_entry(f"# t\n{run}- [x] 已纳入\n"),
    "digest: passes_strip_test": lambda run: digest_signals.passes_strip_test(
        f"Always keep {run} in data/x.csv"
    ),
    # Still quadratic: a sentence with a file name and a long run of ``a-`` elsewhere
    # (the file-name branch is tried from every word start of the run).
    "digest: passes_strip_test with a file name": lambda run: digest_signals.passes_strip_test(
        f"Always keep {run} in x.csv"
    ),
    "digest: message_signals": lambda run: digest_extract.message_signals(
        BatchMessage(id="m", role="user", text=f"Always keep {run} rows"), None
    ),
}


def _time(fn: Callable[[str], object], text: str, rounds: int = 5) -> float:
    took = []
    for _ in range(rounds):
        start = time.process_time()
        fn(text)
        took.append(time.process_time() - start)
    return statistics.median(took) * 1000


def main() -> None:
    print(f"load {os.getloadavg()[0]:.1f}; CPU ms, median of 5")
    print("| pattern | run | old 1k | old 4k | new 1k | new 4k | old ÷ new at 4k |")
    print("|---|---|---|---|---|---|---|")
    for name, (old, new) in OLD_AND_NEW.items():
        for run_name, unit in RUNS.items():
            short, long = unit * (1000 // len(unit)), unit * (4000 // len(unit))
            o1, n1, o4, n4 = (
                _time(old, short),
                _time(new, short),
                _time(old, long),
                _time(new, long),
            )
            if o4 < 1.0:
                continue  # neither is slow on this run
            print(
                f"| {name} | {run_name} | {o1:.1f} | {o4:.1f} | {n1:.2f} | {n4:.2f} "
                f"| {o4 / max(n4, 1e-3):.0f} |"
            )
    print("\n| entry point | worst run | 1k ms | 4k ms | 4k ÷ 1k |")
    print("|---|---|---|---|---|")
    for name, fn in ENTRY_POINTS.items():
        rows = []
        for run_name, unit in RUNS.items():
            one = _time(fn, unit * (1000 // len(unit)), rounds=3)
            four = _time(fn, unit * (4000 // len(unit)), rounds=3)
            rows.append((four, run_name, one))
        four, run_name, one = max(rows)  # the run it is slowest on at 4k
        print(f"| {name} | {run_name} | {one:.2f} | {four:.2f} | {four / max(one, 1e-3):.1f} |")


if __name__ == "__main__":
    main()
