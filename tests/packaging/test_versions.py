"""The lab extension's package ranges agree with the JupyterLab the package declares.

Fast (no build), so it runs in ``make test``. The panel is compiled against the
``@jupyterlab/*`` and ``@lumino/*`` ranges of labextension/package.json and runs
on the copies JupyterLab ships; the installed JupyterLab must be one that
pyproject.toml allows, and what it ships must satisfy every range.
"""

from __future__ import annotations

import json
import re
import sys
from importlib.metadata import version
from pathlib import Path

import tomllib
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
PACKAGE_JSON = json.loads((REPO / "labextension/package.json").read_text(encoding="utf-8"))
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
SHARED = ("@jupyterlab/", "@lumino/")


def _caret_allows(spec: str, found: str) -> bool:
    """npm's ``^X.Y.Z`` for X ≥ 1: at least X.Y.Z and below (X+1).0.0."""
    m = re.fullmatch(r"\^(\d+)\.(\d+)\.(\d+)", spec)
    assert m, f"labextension/package.json: use a caret range for shared packages, not {spec!r}"
    low = tuple(int(p) for p in m.groups())
    have = tuple(int(p) for p in re.match(r"(\d+)\.(\d+)\.(\d+)", found).groups())
    return low[0] >= 1 and low <= have and have[0] == low[0]


def _shipped_by_lab() -> dict[str, str]:
    licenses = Path(sys.prefix) / "share/jupyter/lab/static/third-party-licenses.json"
    packages = json.loads(licenses.read_text(encoding="utf-8"))["packages"]
    return {p["name"]: p["versionInfo"] for p in packages}


def _declared_jupyterlab() -> Requirement:
    reqs = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    found = [r for r in reqs if r.name == "jupyterlab"]
    assert found, "pyproject.toml: jupyterlab is not a declared dependency"
    return found[0]


def test_installed_jupyterlab_is_one_the_package_declares():
    declared = _declared_jupyterlab()
    assert declared.specifier.contains(version("jupyterlab")), (declared, version("jupyterlab"))


def test_shared_package_ranges_are_met_by_the_jupyterlab_that_ships_them():
    shipped = _shipped_by_lab()
    ranges = {
        name: spec for name, spec in PACKAGE_JSON["dependencies"].items() if name.startswith(SHARED)
    }
    assert "@jupyterlab/application" in ranges
    wrong = {
        name: (spec, shipped.get(name))
        for name, spec in ranges.items()
        if name not in shipped or not _caret_allows(spec, shipped[name])
    }
    assert wrong == {}, f"ranges JupyterLab {version('jupyterlab')} does not meet: {wrong}"


def test_application_range_starts_at_the_declared_jupyterlab_minor():
    low = next(
        s.version for s in _declared_jupyterlab().specifier if s.operator in (">=", "~=", "==")
    )
    spec = PACKAGE_JSON["dependencies"]["@jupyterlab/application"]
    assert spec.startswith(f"^{'.'.join(low.split('.')[:2])}."), (spec, low)
