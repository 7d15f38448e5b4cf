"""``jupyter-memory demo``: the main job end to end on a fresh memory home."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from .._i18n import tr
from .output import emit_json

DEMO_MEMORIES = [
    (
        "Revenue in the sales reports excludes refunds and chargebacks.",
        "Revenue excludes refunds",
        "semantic",
        "durable",
        ["sales", "definitions"],
    ),
    (
        "Always deduplicate orders on order_id before joining with payments.",
        None,
        "procedural",
        "durable",
        ["sales", "pipeline"],
    ),
    (
        "Q3 churn spike was traced to the September pricing change.",
        None,
        "episodic",
        "daily",
        ["churn"],
    ),
    ("收入口径不含退款，按自然月统计。", "收入口径", "semantic", "durable", ["口径", "sales"]),
    (
        "每次合并订单表之前必须先按 order_id 去重。",
        "订单去重",
        "procedural",
        "durable",
        ["pipeline"],
    ),
    (
        "Lesson: sampling 1% of events hid the weekend anomaly; use full data for weekends.",
        None,
        "reflective",
        "durable",
        ["anomaly"],
    ),
]


def run_demo(home: Path, say: Any) -> dict[str, Any]:
    from ..service.memory import Memory

    mem = Memory(home=home)
    mem.hooks.semantic.background = False  # a short process: as every command (cli/output.py)
    ids = []
    say(f"memory home: {home}")
    for text, title, mtype, tier, tags in DEMO_MEMORIES:
        entry = mem.remember(text, title=title, type=mtype, tier=tier, tags=tags)
        ids.append(entry.id)
        say(f"  remembered {entry.id}  {Path(entry.path or '').name}")
    queries: list[tuple[str, dict[str, Any]]] = [
        ("refunds", {}),
        ("退款", {}),
        ("order_id", {"type": "procedural"}),
        ("去重", {"level": "full"}),
        ("churn", {"recent": "7d", "level": "index"}),
        ("sales", {"tags": ["sales"], "limit": 3}),
    ]
    results = {}
    for q, filters in queries:
        hits = mem.recall(q, **filters)
        results[q] = [h.id for h in hits]
        shown = ", ".join(f"{k}={v}" for k, v in filters.items())
        say(f"recall {q!r} {shown}: {len(hits)} hit(s)")
        for h in hits:
            body = f" — {h.text}" if h.text else ""
            say(f"    {h.score:4.2f} [{h.level}] {h.title}{body}")
    forgotten = ids[2]
    mem.forget(forgotten)
    say(f"forgot {forgotten}; recall 'churn' now finds {len(mem.recall('churn'))} hit(s)")
    report = mem.hooks.rebuild_index()
    say(f"rebuilt index: {report.layers['user'].indexed} files indexed")
    doctor = mem.doctor()
    say(f"doctor: {'ok' if doctor.ok else doctor.to_dict()['problems']}")
    say(f"files:  {home / 'memories'}")
    say(f"audit:  {home / 'audit.jsonl'}")
    say(f"index:  {home / '.index'}")
    mem.close()
    return {
        "home": str(home),
        "ids": ids,
        "forgotten": forgotten,
        "recall": results,
        "rebuild": report.to_dict(),
        "doctor_ok": doctor.ok,
    }


def _demo(args: argparse.Namespace) -> int:
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="jupyter-memory-demo-"))
    result = run_demo(home, (lambda *_: None) if args.json else print)
    if args.json:
        emit_json(result)
    return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "demo", parents=[common], help=tr("run the end-to-end demo on a fresh memory home")
    )
    p.set_defaults(func=_demo)
