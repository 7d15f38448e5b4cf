"""Every "invariant N" and "spec NNN" the code cites resolves to a heading in docs/design.md.

Docstrings and comments lean on the design ("a failure is raised, invariant 2",
"spec 000 repair rules"). A citation is only useful when a reader can look it
up, so each one must name a heading of the form ``### Invariant N — …`` or
``### Spec NNN — …``; a renumbered or deleted heading fails here with the
file and line of every citation it orphaned.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "jupyter_memory"
DESIGN = REPO / "docs" / "design.md"

# "invariant 3", "invariants 3 and 5", "invariants 3, 5 and 6" (a list may wrap a line).
_SEP = r"\s*(?:,|and|&|or)\s*"
INVARIANT_RE = re.compile(rf"\binvariants?\s+(\d+(?:(?:{_SEP})+\d+)*)\b", re.IGNORECASE)
# "spec 002", "spec-001", "specs 000 and 003", "spec 000–003" (a range).
SPEC_RE = re.compile(
    rf"\bspecs?[\s-]+(\d{{3}}(?:(?:{_SEP}|\s*[–-]\s*)\d{{3}})*)(?!\d)", re.IGNORECASE
)
INVARIANT_HEADING_RE = re.compile(r"^### Invariant (\d+) — \S", re.MULTILINE)
SPEC_HEADING_RE = re.compile(r"^### Spec (\d{3}) — \S", re.MULTILINE)


def _numbers(group: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", group)]


def _spec_numbers(group: str) -> list[str]:
    out: list[str] = []
    for piece in re.split(_SEP, group):
        ends = re.findall(r"\d{3}", piece)
        if len(ends) == 2:  # a range such as 000–003
            low, high = sorted(int(e) for e in ends)
            out.extend(f"{n:03d}" for n in range(low, high + 1))
        else:
            out.extend(ends)
    return out


def citations(text: str) -> list[tuple[int, str, str]]:
    """``(line, kind, key)`` for each cited invariant (key "3") or spec (key "002")."""
    found: list[tuple[int, str, str]] = []
    for match in INVARIANT_RE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.extend((line, "invariant", str(n)) for n in _numbers(match.group(1)))
    for match in SPEC_RE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.extend((line, "spec", n) for n in _spec_numbers(match.group(1)))
    return found


def headings(design_text: str) -> dict[str, set[str]]:
    return {
        "invariant": {str(int(n)) for n in INVARIANT_HEADING_RE.findall(design_text)},
        "spec": set(SPEC_HEADING_RE.findall(design_text)),
    }


def unresolved(design_text: str, sources: dict[str, str]) -> list[str]:
    """``file:line: invariant N`` for every citation without a heading."""
    known = headings(design_text)
    missing = []
    for name, text in sorted(sources.items()):
        for line, kind, key in citations(text):
            if key not in known[kind]:
                missing.append(f"{name}:{line}: {kind} {key} has no heading in docs/design.md")
    return missing


def _package_sources() -> dict[str, str]:
    return {
        str(path.relative_to(REPO)): path.read_text(encoding="utf-8")
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def test_every_citation_in_the_code_resolves_to_a_heading():
    assert DESIGN.is_file(), "docs/design.md is missing"
    sources = _package_sources()
    cited = [c for text in sources.values() for c in citations(text)]
    # The code does cite both kinds; finding none would mean the patterns broke.
    assert any(kind == "invariant" for _, kind, _ in cited)
    assert any(kind == "spec" for _, kind, _ in cited)
    missing = unresolved(DESIGN.read_text(encoding="utf-8"), sources)
    assert not missing, "unresolved design references:\n" + "\n".join(missing)


def test_design_has_the_four_spec_headings_and_numbered_invariants():
    known = headings(DESIGN.read_text(encoding="utf-8"))
    assert known["spec"] >= {"000", "001", "002", "003"}
    numbers = sorted(int(n) for n in known["invariant"])
    assert numbers == list(range(1, len(numbers) + 1)), f"invariants not numbered 1..n: {numbers}"
    assert len(numbers) >= 7


def test_citation_forms_are_all_recognised():
    text = (
        "a (DESIGN.md invariant 2)\n"
        "b (invariants 3 and 5)\n"
        "c (Invariants 3, 5\n and 6)\n"
        "d spec 002 §4.1, Spec-001 output, specs 000 and 003, spec 000–003\n"
        "e invariant of the loop; the spec says; 2 invariants\n"
    )
    assert sorted((line, kind, key) for line, kind, key in citations(text)) == sorted(
        [
            (1, "invariant", "2"),
            (2, "invariant", "3"),
            (2, "invariant", "5"),
            (3, "invariant", "3"),
            (3, "invariant", "5"),
            (3, "invariant", "6"),
            (5, "spec", "002"),
            (5, "spec", "001"),
            (5, "spec", "000"),
            (5, "spec", "003"),
            (5, "spec", "000"),
            (5, "spec", "001"),
            (5, "spec", "002"),
            (5, "spec", "003"),
        ]
    )


def test_a_missing_heading_is_reported_with_file_and_line():
    design = DESIGN.read_text(encoding="utf-8")
    without_3 = re.sub(r"^### Invariant 3 — .*$", "", design, flags=re.MULTILINE)
    without_002 = re.sub(r"^### Spec 002 — .*$", "", design, flags=re.MULTILINE)
    sources = {"pkg/a.py": '"""x\n\nsee invariants 2 and 3, spec 002."""\n'}
    assert unresolved(design, sources) == []
    assert unresolved(without_3, sources) == [
        "pkg/a.py:3: invariant 3 has no heading in docs/design.md"
    ]
    assert unresolved(without_002, sources) == [
        "pkg/a.py:3: spec 002 has no heading in docs/design.md"
    ]
