"""Import of 10k basic-memory notes (issue 18 figure, target ≤ 10 s).

Writes N basic-memory notes (frontmatter, observations with tags, relations;
Chinese and English, in subfolders) into a temporary project folder, then
times ``Memory.import_from("basic-memory", folder)`` into a fresh memory home:
reading, parsing, planning and the batched write (``stages_s`` splits the two;
the write's ``os.sync`` makes it depend on what else the machine writes). A second import of the same
folder is timed too (it must add nothing).

Prints one JSON object. Usage: python benchmarks/import_bench.py [--notes 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

TOPICS = [
    ("Revenue definition", "Revenue excludes refunds issued in the same month"),
    ("收入口径", "收入口径不含当月退款"),
    ("Refund joins", "Join orders to refunds on order_id"),
    ("退款拆分", "退款按渠道拆分后再汇总"),
    ("Late partitions", "The March partition arrives two days late"),
    ("留存口径", "周报的留存按自然周计算"),
]
TYPES = ["note", "note", "note", "meeting", "guide", "reflection"]


def write_notes(folder: Path, n: int, seed: int) -> None:
    rng = random.Random(seed)
    for i in range(n):
        title, fact = rng.choice(TOPICS)
        title = f"{title} {i}"
        sub = folder / f"area-{i % 20}"
        sub.mkdir(exist_ok=True)
        other = f"{rng.choice(TOPICS)[0]} {rng.randrange(n)}"
        (sub / f"note-{i}.md").write_text(
            "---\n"
            f"title: {title}\n"
            f"type: {rng.choice(TYPES)}\n"
            f"tags: [finance, t{i % 50}]\n"
            f"permalink: area-{i % 20}/note-{i}\n"
            "---\n\n"
            f"# {title}\n\n"
            f"{fact} (case {i}).\n\n"
            "## Observations\n"
            f"- [fact] {fact} #finance\n"
            f"- [method] Check the partition date first #t{i % 7}\n\n"
            "## Relations\n"
            f"- relates_to [[{other}]]\n",
            encoding="utf-8",
        )


class StageTimes:
    """A progress receiver that notes when each stage of the import starts."""

    def __init__(self) -> None:
        self.starts: list[tuple[str, float]] = []

    def stage(self, name: str, total: int | None) -> None:
        self.starts.append((name, time.perf_counter()))

    def advance(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        self.starts.append(("end", time.perf_counter()))

    def seconds(self) -> dict[str, float]:
        pairs = zip(self.starts, self.starts[1:], strict=False)
        return {a: round(tb - ta, 2) for (a, ta), (_, tb) in pairs}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    os.environ.setdefault("JUPYTER_MEMORY_SEMANTIC", "0")  # no embedding work in this figure

    from jupyter_memory import Memory

    with tempfile.TemporaryDirectory() as tmp:
        notes = Path(tmp) / "basic-memory"
        notes.mkdir()
        write_notes(notes, args.notes, args.seed)
        with Memory(home=Path(tmp) / "home") as mem:
            stages = StageTimes()
            t0 = time.perf_counter()
            first = mem.import_from("basic-memory", notes, progress=stages)
            import_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            second = mem.import_from("basic-memory", notes)
            again_s = time.perf_counter() - t0
    print(
        json.dumps(
            {
                "benchmark": "import_basic_memory",
                "notes": args.notes,
                "imported": len(first.memories),
                "problems": len(first.problems),
                "import_s": round(import_s, 2),
                "target_s": 10,
                # "reading" covers read, parse and plan; "writing memories" the batched write
                "stages_s": stages.seconds(),
                "second_import_added": len(second.memories),
                "second_import_s": round(again_s, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
