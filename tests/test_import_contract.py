"""The architecture of docs/design.md §1, checked by import-linter.

The contracts are in pyproject.toml ([tool.importlinter]): adapters above the
service, the service above the store, the store above core, the domains of
each layer ordered, the Memory facade above the domain services, and no import
cycle anywhere in the package. A failure prints lint-imports' report, which
names each import that breaks a contract.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports(config: Path) -> subprocess.CompletedProcess[str]:
    # lint-imports is installed next to the interpreter running the tests.
    exe = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(exe), "--no-cache", str(config)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_import_contracts_are_kept():
    result = _lint_imports(ROOT / "pyproject.toml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout, result.stdout


def test_every_top_level_package_is_in_a_layer():
    # exhaustive = true makes lint-imports refuse a new top-level package that
    # no layer names, so the layering cannot silently miss one.
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    top = next(c for c in contracts if c.get("containers") == ["jupyter_memory"])
    assert top["type"] == "layers" and top.get("exhaustive") is True
    named = {m.strip() for layer in top["layers"] for m in layer.split("|")}
    packages = {
        p.stem if p.is_file() else p.name
        for p in (ROOT / "jupyter_memory").iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()
    }
    assert packages == named
