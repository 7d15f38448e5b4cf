"""What the deterministic Reorganize keeps (issue 32, item 6); prints one JSON object.

On the reorganize test files (tests/data/reorganize_rules.py: revenue per
region, refresh times per table, chart conventions per metric) and on a file
whose 28 of 37 leaves an earlier reorganize put under "Other rules": entries
before and after, characters before and after, the share under an "other"
label, the groups made, and the time of one reorganize.

Usage: ``python benchmarks/reorganize_bench.py [--repeat 30]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from jupyter_memory.core.knowledge.format import Entry, KnowledgeDoc, parse_knowledge
from jupyter_memory.core.knowledge.reorganize import reorganize_doc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))
from reorganize_rules import INFO_FACTS, knowledge_text, region_table_chart_rules  # noqa: E402


def files() -> dict[str, KnowledgeDoc]:
    rules = region_table_chart_rules(filler=True)
    return {
        "32 distinct rules + 8 facts, clean": parse_knowledge(
            knowledge_text(region_table_chart_rules())
        ),
        "32 distinct rules + 8 facts, some filler": parse_knowledge(knowledge_text(rules)),
        "37 leaves, 28 under 'Other rules'": KnowledgeDoc(
            (
                Entry("Region", tuple(rules[:4])),
                Entry("Other rules", tuple(rules[4:32])),
            ),
            (Entry("Fiscal", tuple(INFO_FACTS[:5])),),
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    out = {}
    for name, doc in files().items():
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            res = reorganize_doc(doc, "user")
            times.append((time.perf_counter() - started) * 1000)
        out[name] = {
            "leaves": [res.leaves_before, res.leaves_after],
            "chars": [res.chars_before, res.chars_after],
            "merged": len(res.merged),
            "condensed": len(res.condensed),
            "groups": [f"{g.label} ({g.entries})" for g in res.groups],
            "other_share": round(res.other_share, 3),
            "ms_median": round(statistics.median(times), 2),
        }
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
