"""Case memory speed (issue 5 figures); prints one JSON object.

* INDEX.md rebuild for a case of 30 entries (read + parse 30 files, render,
  durable write under the case lock): target <= 20 ms.
* ``search_cases`` over 200 cases x 30 entries (6,000 files): target <= 200 ms.

Usage: ``python benchmarks/case_bench.py [--cases 200] [--entries 30] [--repeat 15]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from jupyter_memory import CaseMemory, search_cases
from jupyter_memory.core.cases.entry_format import ENTRY_TYPES, STATUSES, CaseEntry, render_entry
from jupyter_memory.store.atomic import write_text_atomic

TOPICS = [
    ("境外付款", "overseas payment"),
    ("供应商重叠", "supplier overlap"),
    ("返利比例", "rebate rate"),
    ("经销商退款", "dealer refund"),
    ("仓库盘点", "stock count"),
    ("访谈回避", "interview evasion"),
]


def make_case(ws: Path, case_id: str, n: int, seed: int) -> None:
    folder = ws / "cases" / case_id / "case_memory"
    folder.mkdir(parents=True)
    start = date(2026, 1, 1)
    for i in range(n):
        zh, en = TOPICS[(i + seed) % len(TOPICS)]
        kind = ENTRY_TYPES[i % len(ENTRY_TYPES)]
        entry = CaseEntry(
            title=f"{zh} {en} #{seed}-{i}",
            type=kind,
            date=(start + timedelta(days=i)).isoformat(),
            body=(
                f"关于{zh}的第 {i} 条记录：现有证据无法证实或排除。"
                f"Note {i} on {en}: the chain of evidence is incomplete so far."
            ),
            status=STATUSES[(i + seed) % 3],
            evidence=(f"E-{i:03d}",),
            hypotheses=(f"H-{i % 4 + 1}",),
        )
        name = f"{entry.date}_{kind}_{en.replace(' ', '-')}-{seed}-{i}.md"
        (folder / name).write_text(render_entry(entry), encoding="utf-8")


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 2),
        "max_ms": round(ordered[-1], 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--entries", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        make_case(ws, "CASE-2026-001", args.entries, 0)
        cm = CaseMemory(ws, "CASE-2026-001")
        rebuild = timed(cm.rebuild_index, args.repeat)
        assert cm.doctor().ok
        # The parts: reading + checking the 30 files, and one durable write
        # (temp file, fsync, rename, fsync of the folder: bound by the disk).
        compute = timed(cm.doctor, args.repeat)
        probe = ws / "probe.md"
        durable = timed(lambda: write_text_atomic(probe, cm.index_markdown()), args.repeat)
        for k in range(2, args.cases + 1):
            make_case(ws, f"CASE-2026-{k:03d}", args.entries, k)
        first = timed(lambda: search_cases(ws, "境外付款"), 1)
        zh = timed(lambda: search_cases(ws, "境外付款"), args.repeat)
        en = timed(lambda: search_cases(ws, "dealer REFUND"), args.repeat)
        hits = len(search_cases(ws, "境外付款"))
    result = {
        "benchmark": "case_memory",
        "index_rebuild_30_entries": {
            **summary(rebuild),
            "target_ms": 20,
            "read_and_check_ms": summary(compute)["median_ms"],
            "one_durable_write_ms": summary(durable)["median_ms"],
        },
        "search_cases": {
            "cases": args.cases,
            "entries": args.cases * args.entries,
            "hits_zh": hits,
            "first_run_ms": round(first[0], 2),
            "zh": summary(zh),
            "en_two_terms": summary(en),
            "target_ms": 200,
        },
    }
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
