"""Deterministic digest speed: a 200-cell notebook session (issue 8 figure, target ≤ 200 ms).

Builds a seeded, realistic session — code cells with comments, markdown with
headings and prose, chat turns in English and Chinese, a few clear signals
(tasks, decisions with reasons, norms) among a lot of noise — then times
extraction alone and extraction plus strict validation, and prints one JSON
object with the median and worst of several runs.

It also times the whole service path a kernel shutdown takes — record the
cells in the digest inbox, then ``Memory.digest()`` storing the memories
durably in a fresh memory home — as ``service_*`` figures (fewer runs: each
writes files with fsync).

Usage: python benchmarks/digest_bench.py [--cells 200] [--runs 20] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from typing import Any

from jupyter_memory.core.learning.digest_extract import extract_work_memories
from jupyter_memory.core.learning.work_memory import parse_batch, validate_work_memories

CODE = [
    "df = pd.read_parquet('data/orders.parquet')\ndf.head()",
    "rev = df.groupby('booking_date')['amount'].sum()\nrev.plot()",
    "merged = orders.merge(refunds, on='order_id', how='left')  # keep every order",
    "# 按渠道汇总\nby_channel = df.pivot_table(index='channel', values='amount', aggfunc='sum')",
    "for col in cols:\n    df[col] = df[col].fillna(0)\nprint(df.shape)",
    "import matplotlib.pyplot as plt\nplt.figure(figsize=(8, 4))\nplt.show()",
]
PROSE = [
    "Looks like the weekly totals dip in week 12.",
    "这里的退款比例比上个月高一些。",
    "Can you explain why the join duplicates rows?",
    "好的，谢谢！",
    "The March partition arrives two days late every month.",
    "先看一下分布再说。",
]
SIGNALS = [
    "# TODO: exclude internal test accounts from the refund totals",
    "# 下一步：把退款口径同步到月度看板",
    "We decided to count revenue on the booking date because finance closes on booking date.",
    "我们决定退款按退款发生日入账，因为财务月报按退款发生日冲减收入。",
    "# Never join orders to refunds on customer name; names are not unique across regions.",
    "# 合并订单表和退款表之前，必须先把金额统一换算成人民币。",
]
HEADINGS = ["# Revenue reconciliation", "## 退款口径", "## Channel mix", "# 留存分析"]


def make_session(cells: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    t0 = 1_767_225_600_000
    messages = []
    for i in range(cells):
        roll = rng.random()
        if i % 50 == 0:
            kind, role, text = "markdown", "user", rng.choice(HEADINGS)
        elif roll < 0.08:
            text = rng.choice(SIGNALS)
            kind = "code" if text.startswith("#") else "markdown"
            role = "user"
        elif roll < 0.6:
            kind, role, text = "code", "user", rng.choice(CODE)
        elif roll < 0.8:
            kind, role, text = "chat", "user", rng.choice(PROSE)
        else:
            kind, role, text = "chat", "assistant", rng.choice(PROSE + SIGNALS)
        messages.append(
            {
                "id": f"cell-{i:04d}",
                "role": role,
                "kind": kind,
                "text": text,
                "timestamp": t0 + i * 30_000 if rng.random() > 0.1 else None,
                "recorded_at": "2026-01-02T00:00:00Z",
            }
        )
    return {"session_key": f"kernel-bench-{seed}", "messages": messages}


def _time_ms(fn: Any, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def _service_path(raw: dict[str, Any], runs: int) -> tuple[list[float], list[float], int]:
    """``digest_record`` + ``Memory.digest()`` in a fresh home per run (durable writes)."""
    from jupyter_memory import Memory

    os.environ.setdefault("JUPYTER_MEMORY_SEMANTIC", "0")  # no embedding work in this figure
    record_ms, digest_ms, stored = [], [], 0
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as home, Memory(home=home) as mem:
            t0 = time.perf_counter()
            mem.hooks.digest_record(raw["session_key"], raw["messages"])
            t1 = time.perf_counter()
            stored = len(mem.digest()["stored"])
            t2 = time.perf_counter()
        record_ms.append((t1 - t0) * 1000)
        digest_ms.append((t2 - t1) * 1000)
    return record_ms, digest_ms, stored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cells", type=int, default=200)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    raw = make_session(args.cells, args.seed)
    pool = [{"id": "sc0001", "label": "sales-q3｜退款口径"}]
    batch = parse_batch(raw)

    def extract() -> list[Any]:
        return extract_work_memories(parse_batch(raw), pool, project="sales-q3")

    def digest() -> Any:
        scenes = extract()
        return validate_work_memories(batch, [s.to_spec() for s in scenes], pool)

    extract()  # warm regex caches and imports
    extract_ms = _time_ms(extract, args.runs)
    digest_ms = _time_ms(digest, args.runs)
    report = digest()
    record_ms, service_ms, stored = _service_path(raw, max(3, args.runs // 4))
    print(
        json.dumps(
            {
                "benchmark": "digest_deterministic",
                "cells": args.cells,
                "runs": args.runs,
                "extract_ms_median": round(statistics.median(extract_ms), 2),
                "extract_ms_max": round(max(extract_ms), 2),
                "extract_and_validate_ms_median": round(statistics.median(digest_ms), 2),
                "extract_and_validate_ms_max": round(max(digest_ms), 2),
                "target_ms": 200,
                "memories_accepted": len(report.accepted),
                "memories_rejected": len(report.rejected),
                "service_record_ms_median": round(statistics.median(record_ms), 2),
                "service_digest_ms_median": round(statistics.median(service_ms), 2),
                "service_digest_ms_max": round(max(service_ms), 2),
                "service_memories_stored": stored,
            }
        )
    )


if __name__ == "__main__":
    main()
