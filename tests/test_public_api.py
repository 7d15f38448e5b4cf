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


# The verbs a person calls from Python (README, docs/, the quickstart's magics'
# counterparts), and the plumbing the adapters call through ``Memory.hooks``.
MEMORY_VERBS = [
    "apply", "archive", "close", "context", "digest", "dismiss", "dismiss_candidate",
    "doctor", "enabled", "export", "extract", "focus", "forget", "get", "home", "hooks",
    "import_from", "knowledge", "learning_candidates", "llm", "memories", "process_all",
    "project_id", "project_init", "promote_candidate", "proposal", "propose",
    "propose_knowledge", "queue", "read_knowledge", "recall", "register_project",
    "remember", "reorganize", "restore", "revert", "review_memory", "save_knowledge",
    "settings", "stats", "unreviewed", "update", "update_settings",
]  # fmt: skip
MEMORY_HOOKS = [
    "actor", "adopt_focus", "agent_evidence", "agent_sees_unreviewed", "archived", "audit",
    "audit_records", "call_agent_tool", "capture_gotcha", "chat_notes",
    "clear_session_tier", "clock", "ctx", "decision_context", "digest_idle_sessions",
    "digest_pending", "digest_record", "discard_memory", "embed", "end_agent_session",
    "end_session", "expand_knowledge_catalog", "focus_of", "focus_source", "follow_focus",
    "import_jsonl", "keep_memory", "keyword_recall", "knowledge_doc", "knowledge_history",
    "knowledge_services", "knowledge_version", "known_projects", "last_extraction_called_llm",
    "last_extraction_notice", "last_extraction_skipped", "learning_candidate",
    "learning_report", "learning_services", "library_status", "list_page", "llm_spend",
    "memory_reader", "memory_recall", "memory_upkeep", "memory_writer", "merge_daily",
    "notebook_deleted", "notebook_moved", "notebook_now", "on_queue_change",
    "prepare_injection", "process_all_plan", "project_dir", "project_focus",
    "project_root", "project_settings", "promote_memory", "purge", "queue_folders",
    "queue_problems", "rebuild_index", "recall_query", "record_agent_output",
    "record_agent_turn", "record_person_text", "record_round", "redact_derived_secrets",
    "registered_project", "reorganize_text", "resolve_knowledge", "review_states",
    "secret_doctor", "semantic", "show_progress", "start_session", "team", "team_history",
    "team_status", "tier_rows", "unreviewed_count", "user",
]  # fmt: skip
# The domain services the hooks object wires (attributes, documented by their classes).
HOOKS_SERVICES = {
    "ctx", "keyword_recall", "knowledge_services", "learning_services", "memory_reader",
    "memory_recall", "memory_upkeep", "memory_writer", "project_focus", "secret_doctor",
    "team", "team_history",
}  # fmt: skip


def _public(obj: object) -> list[str]:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def test_all_is_pinned():
    assert sorted(jupyter_memory.__all__) == sorted(PINNED)


def test_dir_of_the_package_shows_the_public_names():
    assert dir(jupyter_memory) == sorted(PINNED)


def test_memory_has_the_pinned_verbs_and_hooks_the_pinned_plumbing(mem):
    assert _public(mem) == sorted(MEMORY_VERBS)
    assert _public(mem.hooks) == sorted(MEMORY_HOOKS)
    assert not set(MEMORY_VERBS) & set(MEMORY_HOOKS) - {"hooks"}


def test_every_verb_and_hook_is_documented(mem):
    import inspect

    for owner, names in ((type(mem), MEMORY_VERBS), (type(mem.hooks), MEMORY_HOOKS)):
        for name in set(names) - HOOKS_SERVICES - {"hooks"}:
            assert inspect.getdoc(inspect.getattr_static(owner, name)), f"{owner.__name__}.{name}"


def test_every_forwarded_method_is_a_delegate(mem):
    # One wiring style (service/delegation.py): a method of the facade or of its
    # hooks is a Delegate; only the context properties are written out, and the
    # domain services, built on first use (cached properties).
    import inspect
    from functools import cached_property

    from jupyter_memory.service.delegation import Delegate

    for owner in (type(mem), type(mem.hooks)):
        for name, value in vars(owner).items():
            if not name.startswith("_"):
                assert isinstance(value, Delegate | property | cached_property), (
                    f"{owner.__name__}.{name}"
                )
                assert not inspect.isfunction(value)


def test_a_moved_name_says_where_it_went(mem):
    import pytest

    with pytest.raises(AttributeError, match=r"Memory\.hooks\.record_round"):
        mem.record_round  # noqa: B018
    with pytest.raises(AttributeError, match=r"it is Memory\.memories"):
        mem.list  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'nope'$"):
        mem.nope  # noqa: B018


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


def test_all_is_exactly_the_lazy_and_eager_names():
    # Every public name resolves through one of the two doors, and nothing else
    # is exported: a name added to _LAZY but not to __all__ (or the reverse) fails.
    from jupyter_memory import exceptions

    eager = set(jupyter_memory.__all__) - set(jupyter_memory._LAZY)
    errors = {n for n in eager if getattr(exceptions, n, None) is getattr(jupyter_memory, n)}
    assert eager - errors == set()  # besides the errors, everything is lazy (__version__ too)
    assert set(jupyter_memory._LAZY) <= set(jupyter_memory.__all__)
    assert len(jupyter_memory.__all__) == len(set(jupyter_memory.__all__))
    namespace: dict[str, object] = {}
    exec("from jupyter_memory import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(PINNED)


def test_an_unknown_name_is_an_attribute_error():
    import pytest

    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        jupyter_memory.Nope  # noqa: B018


def public_surface(obj: object) -> dict[str, str]:
    """Public names of ``obj`` → their parameters (methods) or ``attribute``."""
    import inspect

    surface = {"__init__": _params(inspect.signature(type(obj).__init__))}
    for name in dir(obj):
        if name.startswith("_"):
            continue
        static = inspect.getattr_static(type(obj), name, None)
        value = static if static is not None else inspect.getattr_static(obj, name)
        # A facade method forwarded to its domain service (service/delegation.py)
        # has that service method's signature.
        value = getattr(value, "__wrapped__", value)
        if inspect.isfunction(value):
            surface[name] = _params(inspect.signature(value))
        else:
            surface[name] = "attribute"
    return surface


def _params(sig) -> str:
    parts = []
    for p in sig.parameters.values():
        text = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        if p.kind is p.KEYWORD_ONLY:
            text = "kw:" + text
        if p.default is not p.empty:
            text += "=" + repr(p.default)
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


def _pinned_surface(cls_name: str) -> dict[str, str]:
    import json
    from pathlib import Path

    path = Path(__file__).parent / "data" / "public_api.json"
    return json.loads(path.read_text(encoding="utf-8"))[cls_name]


def _compatible(pinned: str, current: str) -> bool:
    """``current`` keeps every pinned parameter, in order, with its default;
    a parameter added since has a default, so no existing call breaks."""
    if pinned == "attribute" or current == "attribute":
        return pinned == current
    have = [p for p in current[1:-1].split(", ") if p]
    want = [p for p in pinned[1:-1].split(", ") if p]
    for param in have:
        if want and param == want[0]:
            want.pop(0)
        elif "=" not in param and not param.startswith("*"):
            return False
    return not want


def _changed(pinned: dict[str, str], current: dict[str, str]) -> list[str]:
    return [
        f"{name}: pinned {sig}, now {current.get(name, 'missing')}"
        for name, sig in sorted(pinned.items())
        if name not in current or not _compatible(sig, current[name])
    ]


def test_memory_facade_keeps_its_public_names_and_parameters(mem):
    # The facade keeps every verb with its parameters and defaults; return types
    # may become typed results. tests/data/public_api.json holds the facade as
    # it was before the split, its plumbing under "MemoryHooks" and ``list`` as
    # ``memories``.
    assert _changed(_pinned_surface("Memory"), public_surface(mem)) == []


def test_memory_hooks_keep_the_moved_names_and_parameters(mem):
    # The plumbing moved behind ``Memory.hooks`` with its parameters unchanged.
    assert _changed(_pinned_surface("MemoryHooks"), public_surface(mem.hooks)) == []


def test_case_memory_keeps_its_public_names_and_parameters(tmp_path):
    from jupyter_memory import CaseMemory

    case = CaseMemory(tmp_path, "CASE-2026-001")
    assert _changed(_pinned_surface("CaseMemory"), public_surface(case)) == []


def test_a_dropped_or_reshaped_method_is_reported():
    pinned = {"recall": "(self, query='', kw:limit=10)", "forget": "(self, memory_id)"}
    current = {"recall": "(self, query='', kw:limit=20)", "other": "(self)"}
    assert _changed(pinned, current) == [
        "forget: pinned (self, memory_id), now missing",
        "recall: pinned (self, query='', kw:limit=10), now (self, query='', kw:limit=20)",
    ]
    grown = {"recall": "(self, query='', kw:limit=10, kw:mode=None)", "forget": "(self, memory_id)"}
    assert _changed(pinned, grown) == []
