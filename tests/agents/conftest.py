"""Fixtures for the agent surfaces: an anyio backend, a project, a case workspace."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An investigation workspace whose team lets the assistant write case memory."""
    ws = tmp_path / "ws"
    (ws / "cases" / "CASE-2026-001").mkdir(parents=True)
    # 关联证据 links only ids the registry holds
    registry = '{"items": [{"id": "E-009", "description": "三笔境外付款的银行回单"}]}\n'
    (ws / "cases" / "CASE-2026-001" / "evidence_registry.json").write_text(registry, "utf-8")
    (ws / "team-profile.md").write_text("# Team\n\nMemory Write Policy: notify\n", encoding="utf-8")
    return ws
