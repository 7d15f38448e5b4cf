"""The public API is curated: this list changes only on purpose."""

import jupyter_memory

PINNED = [
    "CaseMemory",
    "ConflictError",
    "JupyterMemoryError",
    "LLMClient",
    "Memory",
    "MemoryEntry",
    "MemoryMeta",
    "MemoryType",
    "NotFoundError",
    "ParseError",
    "PolicyError",
    "Proposal",
    "RecallHit",
    "Source",
    "StoreError",
    "Tier",
    "UpstreamError",
    "ValidationError",
    "__version__",
    "validate_work_memories",
    "search_cases",
    "tool_schemas",
]


def test_all_is_pinned():
    assert sorted(jupyter_memory.__all__) == sorted(PINNED)


def test_every_name_resolves():
    for name in jupyter_memory.__all__:
        assert getattr(jupyter_memory, name) is not None


def test_import_is_light():
    import subprocess
    import sys

    code = (
        "import sys, jupyter_memory; "
        "bad = [m for m in ('pandas', 'ipywidgets', 'tornado', 'IPython') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
