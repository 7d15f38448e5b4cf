"""Tab completion for ``%memory``, ``%recall``, ``%remember``, ``%forget``, ``%memories`` and ``%case``.

Options are read from each magic's own argument parser at completion time, so
a new option completes without a change here. Values come from what the
person has: actions, known projects, the ids of the last ``%recall``, pending
proposals, case entries, and the fixed vocabularies (types, tiers, levels,
layers, case types and states).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..core.cases.entry_format import ENTRY_TYPES, STATUSES
from ..core.memories.disclosure import Level
from ..core.memories.models import MemoryType, Tier
from ..exceptions import JupyterMemoryError
from . import case_cmd, memory_cmd
from . import listing as listing_cmd
from . import recall as recall_cmd
from . import remember as remember_cmd

if TYPE_CHECKING:
    from .memory_magics import MemoryMagics

MAGICS: dict[str, Callable[..., Any]] = {
    "memory": memory_cmd.memory,
    "recall": recall_cmd.recall,
    "remember": remember_cmd.remember,
    "forget": remember_cmd.forget,
    "memories": listing_cmd.memories,
    "case": case_cmd.case,
}

# Values of options, whichever magic they belong to.
OPTION_VALUES: dict[str, tuple[str, ...]] = {
    "--type": tuple(t.value for t in MemoryType),
    "--tier": tuple(t.value for t in Tier),
    "--level": tuple(level.value for level in Level),
    "--to": ("user", "project"),
}
CASE_OPTION_VALUES: dict[str, tuple[str, ...]] = {"--type": ENTRY_TYPES, "--status": STATUSES}


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:  # an open quote while typing
        return text.split()


def _options(func: Callable[..., Any]) -> list[str]:
    parser = getattr(func, "parser", None)
    if parser is None:
        return []
    return _parser_options(parser)


def _parser_options(parser: Any) -> list[str]:
    return sorted(o for o in parser._option_string_actions if o.startswith("--") or len(o) == 2)


def _safe(values: Callable[[], Iterable[str]]) -> list[str]:
    # A completion must never raise into the person's typing (a damaged file,
    # no case open): it simply offers nothing from that source.
    try:
        return list(values())
    except (JupyterMemoryError, OSError):
        return []


def candidates(magics: MemoryMagics, magic: str, before_cursor: str) -> list[str]:
    """What may come next after ``before_cursor`` (the line up to the cursor) of ``%magic``."""
    func = MAGICS.get(magic)
    if func is None:
        return []
    words = _words(before_cursor)
    if words and words[0].lstrip("%") == magic:
        words = words[1:]
    typing = "" if before_cursor.endswith((" ", "\t")) else (words.pop() if words else "")
    previous = words[-1] if words else None
    positionals = [
        w for i, w in enumerate(words) if not w.startswith("-") and not _is_value(words, i)
    ]
    if typing.startswith("-"):
        action = memory_cmd.ACTION_PARSERS.get(positionals[0]) if positionals else None
        if magic == "memory" and action is not None:  # the options this action takes
            return _parser_options(action)
        return _options(func)
    if previous is not None and previous.startswith("--"):
        table = CASE_OPTION_VALUES if magic == "case" else OPTION_VALUES
        if previous in table:
            return list(table[previous])
    return _positional(magics, magic, positionals)


def _is_value(words: list[str], i: int) -> bool:
    return i > 0 and words[i - 1].startswith("--") and words[i - 1] not in _FLAGS


# Options that take no value: the word after them is a positional.
_FLAGS = frozenset(
    {"--frame", "--semantic", "--lexical", "--all", "--stats", "--force", "--json", "--learning"}
)


def _positional(magics: MemoryMagics, magic: str, positionals: list[str]) -> list[str]:
    if magic == "memory":
        if not positionals:
            return list(memory_cmd.ACTIONS)
        action = positionals[0]
        if len(positionals) == 1 and action == "focus":
            return _safe(lambda: sorted(magics.service.hooks.known_projects()))
        if len(positionals) == 1 and action in ("apply", "dismiss"):
            return _safe(lambda: [p.id for p in magics.service.queue() if p.is_pending])
        if len(positionals) == 1 and action in ("suggestions", "agent-unreviewed"):
            return ["on", "off"]
        return []
    if magic == "forget" and not positionals:
        return [memory_id for memory_id, _ in magics.last_recall]
    if magic == "case":
        if not positionals:
            return list(case_cmd.ACTIONS)
        case = magics.case_memory
        if positionals[0] == "status" and case is not None:
            if len(positionals) == 1:
                return _safe(lambda: [e.name for e in case.entries()])
            if len(positionals) == 2:
                return list(STATUSES)
    return []


def install(shell: Any, magics: MemoryMagics) -> None:
    """Add our matcher (IPython's matcher API v2) to ``shell``'s completer."""
    from IPython.core.completer import SimpleCompletion

    def matcher(context: Any) -> dict[str, Any]:
        line = context.text_until_cursor
        first = line.lstrip().split(None, 1)[0] if line.strip() else ""
        magic = first[1:] if first.startswith("%") and not first.startswith("%%") else ""
        if magic not in MAGICS or line.strip() == first and not line.endswith(" "):
            return {"completions": [], "suppress": False}  # not ours: others complete
        token = context.token
        found = [c for c in candidates(magics, magic, line) if c.startswith(token)]
        # Ours alone when we know the answer: no Python names between option values.
        return {
            "completions": [SimpleCompletion(c, type="param") for c in found],
            "suppress": bool(found),
        }

    matcher.matcher_api_version = 2  # type: ignore[attr-defined]  # IPython's protocol marker
    matcher.matcher_identifier = "jupyter_memory"  # type: ignore[attr-defined]
    shell.Completer.custom_matchers.append(matcher)
    magics.completion_matcher = matcher


def uninstall(shell: Any, magics: MemoryMagics) -> None:
    matcher = getattr(magics, "completion_matcher", None)
    if matcher is not None and matcher in shell.Completer.custom_matchers:
        shell.Completer.custom_matchers.remove(matcher)


__all__ = ["OPTION_VALUES", "candidates", "install", "uninstall"]
