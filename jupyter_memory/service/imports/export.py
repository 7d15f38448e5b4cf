"""Export back: memories as basic-memory notes, approved knowledge as a plain AGENTS.md."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...core.imports.agents_md import render_agents_md
from ...core.imports.basic_memory import render_note
from ...store.imports.export_files import write_export_file, write_export_folder
from .port import MemoryPort


def export_basic_memory(mem: MemoryPort, folder: str | os.PathLike[str]) -> dict[str, Any]:
    """Every memory as a note below ``folder``; imported notes go back to their own paths."""
    rows = mem.export()
    titles = {r["id"]: r["title"] for r in rows}
    files: list[tuple[str, str]] = []
    used: set[str] = set()
    for row in rows:
        row = {**row, "related_titles": [titles[i] for i in row.get("related", []) if i in titles]}
        rel, text = render_note(row)
        if rel in used:  # two memories, one permalink: the id keeps them apart
            rel = f"{rel.removesuffix('.md')}-{row['id']}.md"
        used.add(rel)
        files.append((rel, text))
    written = write_export_folder(Path(folder), files)
    return {
        "format": "basic-memory",
        "path": str(folder),
        "notes": len(files),
        "written": len(written),
    }


def export_agents_md(mem: MemoryPort, path: str | os.PathLike[str]) -> dict[str, Any]:
    """The approved User (and focused Project) knowledge as a plain AGENTS.md at ``path``."""
    docs = [("User knowledge", mem.hooks.knowledge_doc("user"))]
    if mem.project_id is not None:
        docs.append((f"Project knowledge ({mem.project_id})", mem.hooks.knowledge_doc("project")))
    written = write_export_file(Path(path), render_agents_md(docs))
    entries = sum(len(doc.leaves()) for _, doc in docs)
    return {"format": "agents-md", "path": str(path), "entries": entries, "written": written}
