"""The server extension is found by Jupyter yet costs nothing to ``import jupyter_memory``."""

from __future__ import annotations

import subprocess
import sys

import jupyter_memory


def test_import_does_not_load_tornado():
    code = "import sys, jupyter_memory; print('tornado' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_discovery_hooks_point_at_the_extension():
    assert jupyter_memory._jupyter_server_extension_points() == [
        {"module": "jupyter_memory.server"}
    ]
    assert jupyter_memory._jupyter_labextension_paths() == [
        {"src": "labextension", "dest": "jupyter-memory"}
    ]
    from jupyter_memory import server

    assert callable(server._load_jupyter_server_extension)
