"""``jupyter-memory --version``: the one version, labextension/package.json's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import jupyter_memory
from jupyter_memory.cli.main import main

PACKAGE_JSON = Path(__file__).resolve().parents[2] / "labextension" / "package.json"


def test_version_prints_the_package_json_version(capsys):
    expected = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))["version"]
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"jupyter-memory {expected}"
    assert jupyter_memory.__version__ == expected
