"""Governed-knowledge speed (issue 3 figures); prints one JSON object.

* ``context()`` with the User file at the 8,000-character save cap, all
  top-level (so its catalog listing is cut at the 6,000 budget), and a grouped
  Project file at 8,000 characters (a Project file cannot reach its 20,000
  budget through a save), both in catalog mode: target <= 5 ms.
* ``context()`` with both files in flat mode just under the thresholds.
* one durable ``apply`` (knowledge file + proposal file + audit line, each
  fsynced): target <= 20 ms.
* one deterministic extraction round over 8 messages (no enqueue, pure
  extraction + evidence + dedup decisions): target <= 10 ms; plus the full
  ``extract()`` with its durable enqueues, for reference.

Usage: ``python benchmarks/knowledge_bench.py [--repeat 30]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.context import CATALOG_THRESHOLD
from jupyter_memory.core.knowledge.dedup import decide_duplicate
from jupyter_memory.core.knowledge.evidence import find_evidence, to_sources
from jupyter_memory.core.knowledge.extract import extract_candidates
from jupyter_memory.core.knowledge.format import (
    Entry,
    KnowledgeDoc,
    chars_of,
    render_knowledge,
)
from jupyter_memory.core.knowledge.known import Known

# Explicit notes and ordinary prose: only the notes are candidates (issue 32).
MESSAGES = [
    "Let's look at Q3.\nrule: revenue must always exclude refunds and chargebacks.",
    "口径：收入不含退款，也不含运费补贴。我们必须按北京时间切日。",
    "Can you plot weekly actives by region?",
    "Note: DAU is defined as unique logged-in users per calendar day.",
    "Never count internal test accounts in any KPI.",
    "注意：GMV 定义为含税成交额。请注意促销赠品不计入销量。",
    "The churn window should be 90 days for subscription products.",
    "Thanks, that chart looks right.\ninfo: cohorts use the first paid order date.",
]


def ms(fn: Callable[[], object], repeat: int) -> dict[str, float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return {
        "median_ms": round(statistics.median(times), 3),
        "p90_ms": round(sorted(times)[int(len(times) * 0.9) - 1], 3),
    }


def doc_of(chars: int, prefix: str, grouped: bool) -> str:
    """A realistic file of about ``chars`` characters (never over)."""
    entries: list[Entry] = []
    i = 0
    while True:
        leaf = f"{prefix} rule {i:03d}: orders from region {i % 17} are counted after review step {i % 5}"
        if grouped and i % 6:
            last = entries[-1]
            candidate = entries[:-1] + [Entry(last.text, (*last.children, leaf))]
        else:
            candidate = [
                *entries,
                Entry(f"{prefix} topic {i:03d}", (leaf,)) if grouped else Entry(leaf),
            ]
        if chars_of(KnowledgeDoc(tuple(candidate), ())) > chars:
            break
        entries = candidate
        i += 1
    return render_knowledge(KnowledgeDoc(tuple(entries), ()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "proj").mkdir()
        mem = Memory(home=base / "home", project=base / "proj")

        flat_user = doc_of(8_000, "User", grouped=False)  # past the 6,000 budget: the cut runs
        mem.save_knowledge("user", flat_user)
        mem.save_knowledge("project", doc_of(8_000, "Project", grouped=True))
        # The conversation's one pre-inject reorganize happens here; saving the
        # flat file again afterwards keeps the budget cut on the measured path.
        mem.context(conversation="bench")
        mem.save_knowledge("user", flat_user)
        st = {layer: mem.hooks.library_status(layer) for layer in ("user", "project")}
        out["context_at_budgets"] = ms(lambda: mem.context(conversation="bench"), args.repeat) | {
            "user_chars": st["user"]["chars"],
            "project_chars": st["project"]["chars"],
            "modes": [st["user"]["mode"], st["project"]["mode"]],
            "block_chars": len(mem.context(conversation="bench")),
            "user_truncated": "[truncated:" in mem.context(conversation="bench"),
            "target_ms": 5,
        }

        def context_cold() -> None:
            mem.hooks.knowledge_services.files.drop_cache()  # read + parse both files
            mem.context(conversation="bench")

        out["context_at_budgets_uncached"] = ms(context_cold, args.repeat)

        mem.save_knowledge("user", doc_of(CATALOG_THRESHOLD["user"] - 1, "User", grouped=False))
        mem.save_knowledge(
            "project", doc_of(CATALOG_THRESHOLD["project"] - 1, "Project", grouped=False)
        )
        out["context_flat_just_under_thresholds"] = ms(
            lambda: mem.context(conversation="bench"), args.repeat
        )

        mem.save_knowledge("user", "## Rules\n\n## Info\n")
        mem.save_knowledge("project", "## Rules\n\n## Info\n")
        ids = []
        for i in range(args.repeat):
            text = f"Orders from warehouse {i} are reconciled weekly against ledger {i * 13}"
            ids.append(mem.propose(text, "rule", text)["id"])
        pending = iter(ids)
        out["apply_durable"] = ms(lambda: mem.apply(next(pending), to="project"), args.repeat) | {
            "target_ms": 20
        }

        sources = to_sources(MESSAGES)
        known = [
            Known(leaf, "knowledge", "user")
            for _, leaf in mem.hooks.knowledge_doc("project").leaves()
        ]

        def extraction_round() -> None:
            for cand in extract_candidates(sources, max_messages=8):
                find_evidence(cand.quote, sources)
                decide_duplicate(cand.text, known)

        out["extraction_round_8_messages"] = ms(extraction_round, args.repeat) | {
            "candidates": len(extract_candidates(sources, max_messages=8)),
            "target_ms": 10,
        }

        mem.update_settings(auto_suggestions=True)
        t0 = time.perf_counter()
        queued = mem.extract(MESSAGES)
        out["extract_with_durable_enqueue"] = {
            "ms": round((time.perf_counter() - t0) * 1000, 3),
            "queued": len(queued),
        }
        mem.close()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
