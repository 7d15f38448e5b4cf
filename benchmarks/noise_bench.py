"""Noise and notes (issue 32): proposals per 100 ordinary cells, before and after; 50 notes.

* **Ordinary cells** — benchmarks/data/noise_corpus.json (≥ 2,000 cells: public
  package text on this machine cut into notebook cells, EN and ZH, plus
  notebooks written the way analysts write; benchmarks/noise_corpus.py says
  where each came from). Each notebook is replayed as the kernel does: after
  every cell one round reads the last 8 cells; a candidate whose text an
  earlier round already queued is a pending duplicate (not counted again).
  *Before* is main's keyword extractor (``extract.py`` at ``--before``, read
  from git, capped at 3 per round as it was); *after* is this tree's, counted
  twice: by the same replay, and through the real service (``Memory.extract``
  in a temporary home, the kernel's per-cell call, ``llm=False``).
* **Explicit notes** — benchmarks/data/explicit_notes.json: 50 notes (EN and
  ZH, comments and markdown, with and without normative words), run as one
  notebook through ``Memory.extract``; each cell must queue exactly one proposal.

* **LLM calls per hour of notebook work** — a model, not a measurement: an
  hour of 60 cells, 20–90 s apart with four breaks of 6–15 minutes (seeded).
  Before, with an LLM configured, every executed cell made an extraction call
  (a burst collapsed only while a round was running); after, one call per end
  of a conversation: each pause of at least ``llm_idle_minutes`` (5) and the
  shutdown; the daily budget (40 calls) caps both days of such work.

Target: after ≤ 0.5 proposals per 100 ordinary cells; 50 of 50 notes.

* **Public notebooks** (``--notebooks DIR …``) — real ``.ipynb`` files read at
  run time and never copied into this repository (their text is their
  authors'): for example the notebooks of jakevdp/PythonDataScienceHandbook
  (English) and datawhalechina/joyful-pandas (Chinese), checked out anywhere.
  Replayed the same way, before and after; cells that hold an explicit note
  marker are counted apart (a note there is the author's own, and a card for
  it is what the marker asks for).

Usage: ``python benchmarks/noise_bench.py [--before 19ccec4] [--no-service] [--notebooks DIR …]``
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from jupyter_memory import Memory
from jupyter_memory.core.knowledge import extract as after_extract
from jupyter_memory.core.knowledge.evidence import normalize_quote, to_sources

HERE = Path(__file__).parent
ROOT = HERE.parent
CORPUS = HERE / "data" / "noise_corpus.json"
NOTES = HERE / "data" / "explicit_notes.json"
WINDOW = 8


def extractor_at(rev: str) -> ModuleType:
    """``core/knowledge/extract.py`` as it was at ``rev`` (git), importable beside ours."""
    src = subprocess.run(
        ["git", "show", f"{rev}:jupyter_memory/core/knowledge/extract.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    name = "jupyter_memory.core.knowledge._extract_before"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "jupyter_memory.core.knowledge"
    sys.modules[name] = module
    exec(compile(src, f"{rev}:extract.py", "exec"), module.__dict__)  # noqa: S102 - our own file
    return module


def _messages(cells: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [
        {"role": c["type"], "text": c["source"], "cell_id": f"c{i}"} for i, c in enumerate(cells)
    ]


def replay(
    notebooks: list[dict[str, Any]], candidates: Callable[..., list[Any]], cap: int | None
) -> dict[str, Any]:
    """Proposals a kernel would queue, one round per cell over the last 8 cells."""
    proposals: list[dict[str, str]] = []
    cells = 0
    for nb in notebooks:
        queued: set[str] = set()
        msgs = _messages(nb["cells"])
        for i in range(len(msgs)):
            cells += 1
            made = 0
            for cand in candidates(to_sources(msgs[: i + 1]), max_messages=WINDOW):
                key = normalize_quote(cand.text).casefold()
                if key in queued or (cap is not None and made >= cap):
                    continue
                if after_extract.execution_state_reason(cand.text):
                    continue
                queued.add(key)
                made += 1
                proposals.append({"text": cand.text, "notebook": nb["source"]})
    return {
        "cells": cells,
        "proposals": len(proposals),
        "per_100_cells": round(100 * len(proposals) / cells, 2),
        "examples": [p["text"] for p in proposals[:8]],
    }


def through_service(notebooks: list[dict[str, Any]]) -> dict[str, Any]:
    """The kernel's per-cell call, ``Memory.extract(..., llm=False)``, in a temporary home."""
    per_cell: list[int] = []
    texts: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, Memory(home=Path(tmp) / "home") as mem:
        for nb in notebooks:
            msgs = _messages(nb["cells"])
            for i in range(len(msgs)):
                made = mem.extract(msgs[max(0, i + 1 - WINDOW) : i + 1], llm=False)
                per_cell.append(len(made))
                texts += [p.text for p in made]
    cells = len(per_cell)
    return {
        "cells": cells,
        "proposals": sum(per_cell),
        "per_100_cells": round(100 * sum(per_cell) / cells, 2),
        "examples": texts[:8],
        "per_cell": per_cell,
    }


def notes_check() -> dict[str, Any]:
    notes = json.loads(NOTES.read_text(encoding="utf-8"))["notes"]
    got = through_service([{"source": "explicit notes", "cells": notes}])
    per_cell = got.pop("per_cell")
    wrong = [
        {"note": n["source"], "proposals": k}
        for n, k in zip(notes, per_cell, strict=True)
        if k != 1
    ]
    return {"notes": len(notes), "exactly_one": len(notes) - len(wrong), "wrong": wrong}


def llm_calls_per_hour(seed: int = 32, idle_minutes: float = 5.0) -> dict[str, Any]:
    import random

    rng = random.Random(seed)
    gaps = [rng.uniform(20, 90) for _ in range(56)] + [rng.uniform(360, 900) for _ in range(4)]
    rng.shuffle(gaps)
    ends = sum(1 for g in gaps if g >= idle_minutes * 60) + 1  # + kernel shutdown
    return {"cells": len(gaps), "before": len(gaps), "after": ends, "idle_minutes": idle_minutes}


def read_notebooks(folders: list[Path]) -> list[dict[str, Any]]:
    """Every ``.ipynb`` under the folders, as the corpus's notebooks (code and markdown cells)."""
    out: list[dict[str, Any]] = []
    for folder in folders:
        for path in sorted(folder.rglob("*.ipynb")):
            try:
                nb = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                print(f"skipped {path}: {exc}", file=sys.stderr)
                continue
            cells = []
            for cell in nb.get("cells", []):
                source = cell.get("source", "")
                text = "".join(source) if isinstance(source, list) else str(source)
                if cell.get("cell_type") in ("code", "markdown") and text.strip():
                    cells.append({"type": cell["cell_type"], "source": text})
            if cells:
                out.append({"source": str(path.relative_to(folder)), "cells": cells})
    return out


def _has_marker(cell: dict[str, Any]) -> bool:
    lines = cell["source"].splitlines()
    if cell["type"] == "code":  # a marker counts in a comment, also after code
        lines = [line.split("#", 1)[1] for line in lines if "#" in line]
    return any(after_extract.note_of(line) is not None for line in lines)


def public_notebooks(folders: list[Path], before: ModuleType) -> dict[str, Any]:
    notebooks = read_notebooks(folders)
    # A cell whose author wrote a marker ("# Note: …") asks for its card: counted apart.
    marked = [nb_cell for nb in notebooks for nb_cell in nb["cells"] if _has_marker(nb_cell)]
    return {
        "notebooks": len(notebooks),
        "cells": sum(len(nb["cells"]) for nb in notebooks),
        "cells_with_a_note_marker": len(marked),
        "before": replay(notebooks, before.extract_candidates, before.MAX_PER_ROUND),
        "after": replay(notebooks, after_extract.extract_candidates, None),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="19ccec4", help="git revision of main's extractor")
    parser.add_argument("--no-service", action="store_true", help="skip the service replay")
    parser.add_argument(
        "--notebooks", nargs="*", type=Path, default=[], help="folders of public .ipynb files"
    )
    args = parser.parse_args()
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))["notebooks"]
    before = extractor_at(args.before)
    out: dict[str, Any] = {
        "corpus": {
            "notebooks": len(corpus),
            "cells": sum(len(nb["cells"]) for nb in corpus),
        },
        "before": replay(corpus, before.extract_candidates, before.MAX_PER_ROUND),
        "after": replay(corpus, after_extract.extract_candidates, None),
    }
    analyst = [nb for nb in corpus if nb["source"].startswith("analyst")]
    out["analyst_notebooks"] = {
        "before": replay(analyst, before.extract_candidates, before.MAX_PER_ROUND),
        "after": replay(analyst, after_extract.extract_candidates, None),
    }
    if not args.no_service:
        service = through_service(corpus)
        service.pop("per_cell")
        out["after_through_the_service"] = service
    if args.notebooks:
        out["public_notebooks"] = public_notebooks(args.notebooks, before)
    out["explicit_notes"] = notes_check()
    out["llm_calls_per_hour_model"] = llm_calls_per_hour()
    print(json.dumps(out, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
