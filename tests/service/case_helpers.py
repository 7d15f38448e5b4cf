"""Shared helpers for the case memory tests: a copy of the shipped sample workspace."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "sample_workspace"
CASE = "CASE-2026-001"


def copy_sample(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    return ws


def tree(root: Path) -> dict[str, bytes]:
    """Every stored file's bytes (lock files are not stored data)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "locks" not in p.relative_to(root).parts
    }


def outside_case_memory(snapshot: dict[str, bytes]) -> dict[str, bytes]:
    return {
        k: v
        for k, v in snapshot.items()
        if "/case_memory/" not in k and not k.startswith("cases/.case-memory/")
    }


class Clock:
    def __init__(self, day: str = "2026-06-20") -> None:
        self.now = datetime.fromisoformat(day + "T10:00:00+08:00")

    def __call__(self) -> datetime:
        return self.now
