"""Notebook Intelligence rules (notebook-intelligence 4.6, docs/rulesets.md) → proposals.

A rule is a Markdown file in ``~/.jupyter/nbi/rules/`` (global) or
``rules/modes/<ask|agent|inline-chat>/`` (one chat mode), with optional
frontmatter: ``apply`` (always/auto/manual), ``active``, ``priority`` and
``scope`` (``file_patterns``, ``kernels``, ``directories``). One rule file is
one proposal of kind rule: the rule's heading and items in one line, its
conditions (mode, kernels, files) said in words so they are not lost, and
the rule's body as written as the evidence quote.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ..._i18n import M_
from ...exceptions import ParseError
from ..knowledge.evidence import MAX_QUOTE_CHARS
from .drafts import ParsedFile, ProposalDraft
from .markdown import blocks, split_optional_frontmatter

MAX_RULE_CHARS = 1_000
MODES = ("ask", "agent", "inline-chat")


def _strings(value: Any, field: str, path: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v) for v in value]
    raise ParseError(M_("field 'scope.{field}': must be a list of strings", field=field), path=path)


def rule_mode(path: str) -> str | None:
    parts = path.split("/")
    if len(parts) >= 3 and parts[-3] == "modes" and parts[-2] in MODES:
        return parts[-2]
    return None


def rule_directories(meta: dict[str, Any], path: str) -> list[str]:
    scope = meta.get("scope") or {}
    if not isinstance(scope, dict):
        raise ParseError(M_("field 'scope': must be a mapping"), path=path)
    return _strings(scope.get("directories"), "directories", path)


def _within(folder: str, project_dir: str, home: str | None) -> bool:
    if home and (folder == "~" or folder.startswith("~/")):
        folder = home + folder[1:]
    folder, project = posixpath.normpath(folder), posixpath.normpath(project_dir)
    return folder == project or folder.startswith(project.rstrip("/") + "/")


def rule_layer(directories: list[str], project_dir: str | None, home: str | None) -> str:
    """project when the rule is scoped to folders inside the project, else user."""
    if project_dir and directories and all(_within(d, project_dir, home) for d in directories):
        return "project"
    return "user"


def parse_rule(
    path: str, text: str, *, project_dir: str | None = None, home: str | None = None
) -> ParsedFile:
    """One rule file → one rule proposal (or the reason it is left out).

    The rule's own scope picks the layer: a rule limited to folders inside the
    project being imported into is a Project rule, any other a User rule.
    """
    meta, body, body_line = split_optional_frontmatter(text, path=path)
    parsed = ParsedFile(path)
    active = meta.get("active", True)
    if not isinstance(active, bool):
        raise ParseError(
            M_("field 'active': must be true or false, not {active!r}", active=active), path=path
        )
    apply = meta.get("apply", "always")
    if apply not in ("always", "auto", "manual"):
        raise ParseError(
            M_("field 'apply': must be always, auto or manual, not {apply!r}", apply=apply),
            path=path,
        )
    if not active:
        parsed.skipped.append(("rule", "inactive in Notebook Intelligence (active: false)"))
        return parsed
    scope = meta.get("scope") or {}
    if not isinstance(scope, dict):
        raise ParseError(M_("field 'scope': must be a mapping"), path=path)
    kernels = _strings(scope.get("kernels"), "kernels", path)
    files = _strings(scope.get("file_patterns"), "file_patterns", path)
    layer = rule_layer(rule_directories(meta, path), project_dir, home)
    parts = blocks(body, first_line=body_line)
    if not parts:
        raise ParseError(M_("the rule has no text"), path=path)
    heading = parts[0].heading
    items = "; ".join(b.text.rstrip(".;。；") for b in parts)
    words = f"{heading}: {items}" if heading else items
    conditions = []
    mode = rule_mode(path)
    if mode:
        conditions.append(f"in {mode} mode")
    if kernels:
        conditions.append("for kernels " + ", ".join(kernels))
    if files:
        conditions.append("for files " + ", ".join(files))
    if conditions:
        words = f"{words} ({'; '.join(conditions)})"
    quote = body.strip()
    if len(words) > MAX_RULE_CHARS or len(quote) > MAX_QUOTE_CHARS:
        parsed.skipped.append(("rule", f"over {MAX_RULE_CHARS} characters: split it into rules"))
        return parsed
    parsed.proposals.append(ProposalDraft(words, "rule", quote, parts[0].line, layer))
    return parsed
