"""The package version, read from the installed package's metadata.

``labextension/package.json`` is the one place the version is written: the
build (hatch-nodejs-version) copies it into the Python metadata, so the Python
package and the lab extension it ships cannot drift apart.
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


def _read_version() -> str:
    try:
        return version("jupyter-memory")
    except PackageNotFoundError:
        # Imported straight from a checkout that was never installed.
        package_json = Path(__file__).resolve().parents[1] / "labextension" / "package.json"
        if package_json.is_file():
            return str(json.loads(package_json.read_text(encoding="utf-8"))["version"])
        return "0+unknown"


__version__ = _read_version()
