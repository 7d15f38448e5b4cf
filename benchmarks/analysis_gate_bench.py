"""CPU cost of the identity analysis with its rule gate (core/regex_gate.py) and without.

``analyse`` rewrites each text with ~270 ordered regex rules; the gate runs only those whose
literals the text holds. This times ``analyse`` over every text of the labelled pair sets
(benchmarks/data/identity_pairs_*.json) and over 3,000 texts shaped like the queue paging
tests' seeded proposals, the cache cleared before each pass, gated and ungated alternately
(the ungated pass asks every rule, as before the gate), ``--rounds`` times. Process CPU time,
µs per text; prints one JSON object with the ratios and the load (``uptime``).

Usage: PYTHONPATH=$PWD python benchmarks/analysis_gate_bench.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_memory.core.knowledge.identity_analysis import analyse  # noqa: E402
from jupyter_memory.core.regex_gate import RuleGate  # noqa: E402
from tests.core.test_regex_gate import _pair_texts  # noqa: E402  (every labelled pair's texts)


def _seed_texts(n: int = 3_000) -> list[str]:
    return [f"Rule {i:05d}: 规则 {i} keeps column c{i} in UTC" for i in range(n)]


def _every_rule(gate: RuleGate, text: str, after: int = -1) -> list[int]:
    return list(range(after + 1, gate.size))


def _pass(texts: list[str]) -> float:
    analyse.cache_clear()
    start = time.process_time()
    for text in texts:
        analyse(text)
    return (time.process_time() - start) / len(texts) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    gated_candidates = RuleGate.candidates
    out: dict[str, object] = {}
    for name, texts in (("pair_texts", _pair_texts()), ("seeded_proposals", _seed_texts())):
        gated: list[float] = []
        ungated: list[float] = []
        for _ in range(args.rounds):
            RuleGate.candidates = _every_rule  # type: ignore[method-assign]
            ungated.append(_pass(texts))
            RuleGate.candidates = gated_candidates  # type: ignore[method-assign]
            gated.append(_pass(texts))
        out[name] = {
            "texts": len(texts),
            "every_rule_us": round(statistics.median(ungated), 1),
            "gated_us": round(statistics.median(gated), 1),
            "speedup": round(statistics.median(ungated) / statistics.median(gated), 2),
        }
    out["load"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
