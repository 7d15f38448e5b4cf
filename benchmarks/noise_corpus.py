"""Collect the noise benchmark's corpus (benchmarks/data/noise_corpus.json) from public text on
this machine, shaped as notebook cells.

No public notebooks ship in this machine's packages, so the corpus is public
text of the kind notebooks hold, cut into cells the way notebooks are:

* **code cells** — 4 to 16 line blocks of the Python sources of pandas, numpy,
  matplotlib, IPython and ipywidgets (their comments are what the extractor
  reads: "# should …", "# must …", "# this includes …" abound);
* **markdown cells (English)** — paragraphs of the packages' docstrings and
  long descriptions (PyPI README text in ``*.dist-info/METADATA``, ``*.md``);
* **markdown cells (Chinese)** — runs of 3–6 strings of the JupyterLab
  Simplified-Chinese language pack (``jupyterlab_language_pack_zh_CN``), the
  public Chinese prose installed here;
* **analyst notebooks** — benchmarks/data/analyst_notebooks.json, written for
  this benchmark the way analysts write (EN and ZH, comments like "# should be
  faster now"), with no note markers.

Selection is deterministic (sorted files, a fixed seed), so re-running this
script gives the same file. Each notebook records where its cells came from.

Usage: ``python benchmarks/noise_corpus.py [--cells 2400]``
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import sysconfig
from pathlib import Path

HERE = Path(__file__).parent
OUT = HERE / "data" / "noise_corpus.json"
ANALYST = HERE / "data" / "analyst_notebooks.json"
PACKAGES = ("pandas", "numpy", "matplotlib", "IPython", "ipywidgets")
CELLS_PER_NOTEBOOK = 20
MAX_CELL_CHARS = 1_200


def _site() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def _code_cells(path: Path, rng: random.Random) -> list[str]:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    out, i = [], 0
    while i < len(lines):
        n = rng.randint(4, 16)
        block = "\n".join(lines[i : i + n]).strip("\n")
        i += n
        if block.strip() and len(block) <= MAX_CELL_CHARS:
            out.append(block)
    return out


def _docstring_cells(path: Path) -> list[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef, ast.Module)):
            doc = ast.get_docstring(node)
            if doc:
                out += _paragraphs(doc)
    return out


def _paragraphs(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"\n\s*\n", text)]
    return [p for p in parts if 40 <= len(p) <= MAX_CELL_CHARS and not p.startswith(">>>")]


def _metadata_cells(site: Path) -> list[tuple[str, str]]:
    out = []
    for meta in sorted(site.glob("*.dist-info/METADATA")):
        text = meta.read_text(encoding="utf-8", errors="replace")
        body = text.split("\n\n", 1)[1] if "\n\n" in text else ""
        out += [(meta.parent.name, p) for p in _paragraphs(body)]
    for md in sorted(site.glob("*/**/*.md"))[:200]:
        out += [
            (str(md.relative_to(site)), p) for p in _paragraphs(md.read_text("utf-8", "replace"))
        ]
    return out


def _chinese_cells(site: Path, rng: random.Random) -> list[str]:
    folder = site / "jupyterlab_language_pack_zh_CN" / "locale" / "zh_CN" / "LC_MESSAGES"
    strings: list[str] = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, value in sorted(data.get("locale_data", {}).get("jupyterlab", data).items()):
            if not key or not isinstance(value, list) or not value:
                continue
            text = value[0] if isinstance(value[0], str) else ""
            if re.search(r"[\u4e00-\u9fff]", text) and len(text) >= 4:
                strings.append(text.strip())
    out, i = [], 0
    while i < len(strings):
        n = rng.randint(3, 6)
        out.append("\n".join(strings[i : i + n]))
        i += n
    return out


def collect(total: int, seed: int = 32) -> dict:
    rng = random.Random(seed)
    site = _site()
    notebooks: list[dict] = []

    def add(source: str, cells: list[dict]) -> None:
        for start in range(0, len(cells), CELLS_PER_NOTEBOOK):
            chunk = cells[start : start + CELLS_PER_NOTEBOOK]
            notebooks.append({"source": source, "cells": chunk})

    share = {"code": 0.45, "markdown_en": 0.35, "markdown_zh": 0.12}
    files = [
        p for pkg in PACKAGES for p in sorted((site / pkg).rglob("*.py")) if "tests" not in p.parts
    ]
    rng.shuffle(files)
    code: list[dict] = []
    docs: list[dict] = []
    for path in files:
        rel = str(path.relative_to(site))
        if len(code) < total * share["code"]:
            picked = _code_cells(path, rng)
            rng.shuffle(picked)
            code += [{"type": "code", "source": c, "from": rel} for c in picked[:6]]
        if len(docs) < total * share["markdown_en"] * 0.6:
            docs += [
                {"type": "markdown", "source": c, "from": rel} for c in _docstring_cells(path)[:4]
            ]
    meta = _metadata_cells(site)
    rng.shuffle(meta)
    docs += [
        {"type": "markdown", "source": p, "from": src}
        for src, p in meta[: int(total * share["markdown_en"]) - len(docs)]
    ]
    zh = _chinese_cells(site, rng)
    rng.shuffle(zh)
    zh_cells = [
        {"type": "markdown", "source": c, "from": "jupyterlab_language_pack_zh_CN"}
        for c in zh[: int(total * share["markdown_zh"])]
    ]
    # interleave code and prose as notebooks do
    mixed: list[dict] = []
    prose = docs + zh_cells
    rng.shuffle(prose)
    ci = pi = 0
    while ci < len(code) or pi < len(prose):
        take = rng.randint(1, 3)
        mixed += code[ci : ci + take]
        ci += take
        mixed += prose[pi : pi + 1]
        pi += 1
    add("public package text on this machine (see each cell's 'from')", mixed)
    for nb in json.loads(ANALYST.read_text(encoding="utf-8"))["notebooks"]:
        notebooks.append({"source": nb["source"], "cells": nb["cells"]})
    return {
        "description": __doc__.split("\n\n")[0],
        "seed": seed,
        "notebooks": notebooks,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", type=int, default=2_400)
    args = parser.parse_args()
    corpus = collect(args.cells)
    OUT.write_text(json.dumps(corpus, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    cells = sum(len(nb["cells"]) for nb in corpus["notebooks"])
    print(
        json.dumps(
            {"notebooks": len(corpus["notebooks"]), "cells": cells, "bytes": OUT.stat().st_size}
        )
    )


if __name__ == "__main__":
    main()
