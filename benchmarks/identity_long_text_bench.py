"""The identity analysis on long runs: the patterns it replaced beside the ones in use.

A memory's text goes through the identity analysis when it is remembered or proposed
(supersede, dedup). One long run (a hash, a base64 blob, a long number, a list of
thousands of commas) made five of its patterns quadratic: a match tried from every
position of the run scanned the rest of it again. In one process, alternating, this
prints each pattern's time on runs of 1,000 and 4,000 characters, the old pattern
beside the new, and ``analyse()``'s time per length (4× the length should cost ~4×).

    python benchmarks/identity_long_text_bench.py
"""

from __future__ import annotations

import os
import re
import statistics
import time
from collections.abc import Callable

from jupyter_memory.core.knowledge import identity_analysis as ia

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
    ia._order.__wrapped__ if hasattr(ia._order, "__wrapped__") else ia._order,
)
RUNS = {"letters": "a", "digits": "1", "a_": "a_", "commas": "1,", "chinese": "收"}


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
    print("\n| analyse() on | 1k ms | 4k ms | 4k ÷ 1k |")
    print("|---|---|---|---|")
    for run_name, unit in RUNS.items():
        analyse = ia.analyse.__wrapped__  # not its cache
        one = _time(analyse, unit * (1000 // len(unit)), rounds=3)
        four = _time(analyse, unit * (4000 // len(unit)), rounds=3)
        print(f"| {run_name} | {one:.1f} | {four:.1f} | {four / max(one, 1e-3):.1f} |")


if __name__ == "__main__":
    main()
