"""The agent context block with memory tiers at 10k memories (issue 13, target ≤ 5 ms p50).

Imports N memories into a fresh memory home (seeded: the four sectors and
three persistence tiers, ages up to two years, English and Chinese, one in
eight an unreviewed session digest, one in twenty another agent's private
note; a few recalled so some carry access counts), saves a User knowledge
file of 40 rules, then times ``Memory.context`` over many runs:

* ``knowledge_only`` — the same call's knowledge part alone (the switch read,
  the files read, the block built), i.e. the block before issue 13;
* ``tiers_activation`` — the full block with memory tiers, no conversation
  text yet (HOT, WARM by attention, the COLD index);
* ``tiers_with_query`` — the full block for a person's message (WARM chosen
  by the message, English or Chinese, alternating);
* ``tiers_only`` — the memory-tier gathering and selection alone;
* ``pool_rebuild`` — one full block when the memory pool must be rebuilt
  (after a memory file changed, or every 60 s): the index read in attention
  order, the loadable bodies analysed (service/memories/agent_tiers.py).

Prints one JSON object with p50/p95 in milliseconds, the target, and what the
last block held. Usage: python benchmarks/context_bench.py [--memories 10000] [--runs 200]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

TOPICS = [
    "revenue excludes refunds issued in the same month",
    "收入口径不含当月退款",
    "join orders to refunds on order_id and dedupe first",
    "退款按渠道拆分后再汇总",
    "the March partition arrives two days late",
    "周报的留存按自然周计算",
    "weekly actives exclude staff and test accounts",
    "客单价定义为成交额除以买家数",
]
MESSAGES = [
    "Why does March revenue drop after the refunds join?",
    "周报的留存口径是什么？",
    "How should I dedupe the orders table before counting?",
    "客单价怎么算？",
]
RULES = "\n".join(f"- Rule {i}: revenue line {i} excludes refunds (口径 {i})." for i in range(40))


def _write_jsonl(path: Path, n: int, seed: int, now: datetime) -> None:
    rng = random.Random(seed)
    sectors = ["episodic", "semantic", "procedural", "reflective"]
    tiers = ["session", "daily", "durable"]
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            created = now - timedelta(days=rng.uniform(0, 730))
            obj: dict[str, Any] = {
                "text": f"{rng.choice(TOPICS)} (#{i})",
                "type": rng.choice(sectors),
                "tier": rng.choices(tiers, weights=[1, 3, 6])[0],
                "confidence": round(rng.uniform(0.5, 1.0), 2),
                "created": created.isoformat(),
            }
            if i % 8 == 0:
                obj |= {"reviewed": False, "source": "session-digest"}
            elif i % 20 == 1:
                obj["scope"] = "agent:codex"
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _time_ms(fn: Callable[[int], Any], runs: int) -> list[float]:
    out = []
    for i in range(runs):
        t0 = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _p(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 3)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    os.environ.setdefault("JUPYTER_MEMORY_SEMANTIC", "0")  # no embedding work in this figure

    from jupyter_memory import Memory
    from jupyter_memory.core.knowledge.context import build_context

    now = datetime.now(timezone.utc)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "memories.jsonl"
        _write_jsonl(src, args.memories, args.seed, now)
        with Memory(home=Path(tmp) / "home") as mem:
            t0 = time.perf_counter()
            ids = mem.hooks.import_jsonl(src)
            import_s = time.perf_counter() - t0
            mem.save_knowledge("user", f"## Rules\n{RULES}\n\n## Info\n")
            rng = random.Random(args.seed)
            for _ in range(20):  # some recalls: access counts and last-access times
                mem.recall(rng.choice(TOPICS), limit=20)
            mem.memories()  # warm: index open, access stats flushed
            knowledge = mem.hooks.knowledge_services.context

            def knowledge_only(_: int) -> str:
                # context() before issue 13: the same steps without the memory tiers
                if not mem.hooks.ctx.settings.enabled:
                    return ""
                return build_context(knowledge._sources(None))

            def activation(_: int) -> str:
                return mem.context(agent="claude", conversation="bench")

            def with_query(i: int) -> str:
                return mem.context(
                    agent="claude", conversation="bench", query=MESSAGES[i % len(MESSAGES)]
                )

            def tiers_only(i: int) -> Any:
                return knowledge.memory_tiers.tiers(
                    agent="claude", query=MESSAGES[i % len(MESSAGES)]
                )

            def rebuild(i: int) -> str:
                knowledge.memory_tiers._pools.clear()  # as after a memory file changed
                return with_query(i)

            time.sleep(2.1)  # the pool is reused only once the folder's last change settled
            for fn in (knowledge_only, activation, with_query, tiers_only):
                fn(0)  # one warm-up call each
            figures = {
                name: _time_ms(fn, args.runs)
                for name, fn in (
                    ("knowledge_only", knowledge_only),
                    ("tiers_activation", activation),
                    ("tiers_with_query", with_query),
                    ("tiers_only", tiers_only),
                )
            }
            figures["pool_rebuild"] = _time_ms(rebuild, max(5, args.runs // 20))
            tiers = knowledge.memory_tiers.tiers(agent="claude", query=MESSAGES[0])
            block = with_query(0)
    out: dict[str, Any] = {
        "benchmark": "agent_context_memory_tiers",
        "memories": len(ids),
        "runs": args.runs,
        "import_s": round(import_s, 2),
        "target_p50_ms": 5.0,
    }
    for name, times in figures.items():
        out[f"{name}_p50_ms"] = round(statistics.median(times), 3)
        out[f"{name}_p95_ms"] = _p(times, 0.95)
    out["last_block"] = {
        "chars": len(block),
        "hot": len(tiers.hot),
        "warm": len(tiers.warm),
        "cold_titles": len(tiers.cold),
        "cold_more": tiers.cold_more,
        "tokens": {t: tiers.tokens(t) for t in ("hot", "warm", "cold")},
    }
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
