"""Issue 32, "Noise and notes": the kernel's per-cell round on a sample of the benchmark corpus.

A committed sample of benchmarks/data/noise_corpus.json (public-text
notebooks and notebooks written the way analysts write) replayed through
``Memory.extract`` as the kernel calls it after each cell: a cell without a
note marker never makes a proposal (main's keyword extractor made ~11 per
100 cells of the corpus, 56 per 100 of the analyst notebooks), and the few
public cells whose authors wrote "NOTE:" / "注意：" make one each. The
full corpus's rate (≤ 0.5 per 100 cells) is benchmarks/noise_bench.py's.
Each of the 50 explicit notes makes exactly one.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).parents[3]
SAMPLE = ROOT / "tests" / "data" / "noise_sample.json"
NOTES = ROOT / "benchmarks" / "data" / "explicit_notes.json"
WINDOW = 8


def _replay(mem, cells: list[dict]) -> list[int]:
    msgs = [
        {"role": c["type"], "text": c["source"], "cell_id": f"c{i}"} for i, c in enumerate(cells)
    ]
    return [
        len(mem.extract(msgs[max(0, i + 1 - WINDOW) : i + 1], llm=False)) for i in range(len(msgs))
    ]


def _marked(cell: dict) -> bool:
    from jupyter_memory.core.knowledge.evidence import to_sources
    from jupyter_memory.core.knowledge.extract import extract_candidates

    return bool(extract_candidates(to_sources([{"role": cell["type"], "text": cell["source"]}])))


def test_ordinary_cells_never_make_a_proposal(mem) -> None:
    notebooks = json.loads(SAMPLE.read_text(encoding="utf-8"))["notebooks"]
    cells = [c for nb in notebooks for c in nb["cells"]]
    made = [n for nb in notebooks for n in _replay(mem, nb["cells"])]
    assert len(made) == len(cells) >= 200
    from_ordinary = [c["source"] for c, n in zip(cells, made, strict=True) if n and not _marked(c)]
    assert from_ordinary == []
    assert sorted(p.text for p in mem.queue()) == [
        "Remove once deprecation period passes",
        "This might miss references buried in more esoteric structures",
        "这里会比较慢",  # "# 注意：这里会比较慢": the marker, written as emphasis
    ]


def test_each_explicit_note_makes_exactly_one_proposal(mem) -> None:
    notes = json.loads(NOTES.read_text(encoding="utf-8"))["notes"]
    assert len(notes) == 50
    made = _replay(mem, notes)
    assert [n["source"] for n, k in zip(notes, made, strict=True) if k != 1] == []
    assert len(mem.queue()) == 50
