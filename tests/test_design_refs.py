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


# -- docs/design.md names modules that exist; no doc cites an issue ----------------------

DOCS = REPO / "docs"
# A path below the package starts with one of its folders ("store/atomic.py"); one from the
# top of the repository with one of these ("docs/teams.md", "labextension/src/dom.ts").
PACKAGE_PARTS = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
REPO_PARTS = {"jupyter_memory", "docs", "labextension", "tests", "benchmarks", "scripts"}
CODE_SPAN_RE = re.compile(r"`([^`\n]+)`")
FENCE_RE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
SECTION_RE = re.compile(r"^#{2,3} ", re.MULTILINE)
TEMPLATE_RE = re.compile(r"((?:[a-z_]+/)+)<[a-z]+>")
# "issue 12", "issues 12 and 14", "#12" (not "&#12;", not "a#12"); code spans are left out.
ISSUE_RE = re.compile(r"\bissues?\s+#?\d+|(?<![\w&#])#\d+\b", re.IGNORECASE)


def _resolve(token: str, dirs: list[Path]) -> Path | None:
    """The file or folder a code span names, or None when it is not a module path."""
    if any(c in token for c in "<>…* ") or token.startswith("."):
        return None  # a template ("core/<domain>/") or a data path (".index/CURRENT")
    first = token.split("/", 1)[0]
    if "/" in token and first in PACKAGE_PARTS:
        return PACKAGE / token
    if "/" in token and first in REPO_PARTS:
        return REPO / token
    if "/" not in token and token.endswith(".py"):
        # a bare name continues a list begun with a full path ("store/x/a.py, `b.py`"):
        # it lives beside one named before it in the same section, or at the top
        for folder in dirs:
            if (folder / token).is_file():
                return folder / token
        return (dirs[0] if dirs else PACKAGE) / token
    return None


def module_paths(design_text: str) -> list[tuple[int, str, Path]]:
    """``(line, as written, resolved path)`` for every module path a code span names."""
    text = FENCE_RE.sub(lambda m: "\n" * m.group(0).count("\n"), design_text)  # the trees
    found: list[tuple[int, str, Path]] = []
    starts = [0, *(m.start() for m in SECTION_RE.finditer(text)), len(text)]
    for begin, end in zip(starts, starts[1:], strict=False):
        dirs: list[Path] = []
        for match in CODE_SPAN_RE.finditer(text, begin, end):
            token = match.group(1).rstrip("/")
            if TEMPLATE_RE.fullmatch(token):  # "core/<domain>/": the names after it are in one
                dirs += sorted(PACKAGE.glob(TEMPLATE_RE.sub(lambda m: m.group(1) + "*", token)))
                continue
            path = _resolve(match.group(1), [*reversed(dirs), PACKAGE])
            if path is None:
                continue
            if "/" in token and path.suffix:
                dirs.append(path.parent)
            found.append((text.count("\n", 0, match.start()) + 1, match.group(1), path))
    return found


def test_every_module_path_design_names_exists():
    paths = module_paths(DESIGN.read_text(encoding="utf-8"))
    assert len(paths) > 100  # the map names that many; far fewer means the patterns broke
    missing = [
        f"docs/design.md:{line}: {token}" for line, token, path in paths if not path.exists()
    ]
    assert not missing, "docs/design.md names modules that do not exist:\n" + "\n".join(missing)


def test_a_renamed_module_is_reported_with_its_line():
    text = "## 1. x\n\n- store: `store/memories/files.py`, `search_index.py`, `gone.py`\n"
    text += "- `core/nowhere.py` and `docs/design.md`, not `.index/CURRENT`\n"
    assert [(line, token) for line, token, path in module_paths(text) if not path.exists()] == [
        (3, "gone.py"),
        (4, "core/nowhere.py"),
    ]
    resolved = {token: path for _, token, path in module_paths(text)}
    assert resolved["search_index.py"] == PACKAGE / "store/memories/search_index.py"


def issue_citations(name: str, text: str) -> list[str]:
    text = FENCE_RE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), text)
    return [
        f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
        for m in ISSUE_RE.finditer(text)
    ]


def test_no_statement_in_the_docs_cites_an_issue_number():
    """A reader has the docs, not the tracker: a statement says what holds, and why."""
    pages = {p.relative_to(REPO).as_posix(): p for p in sorted(DOCS.glob("*.md"))}
    pages["README.md"] = REPO / "README.md"
    cited = [c for name, p in pages.items() for c in issue_citations(name, p.read_text("utf-8"))]
    assert not cited, "say what holds instead of citing the issue:\n" + "\n".join(cited)


def test_issue_citation_forms_are_recognised():
    text = "fixed in issue 12; see Issues 3 and #14.\n`kernel-<id>#3` &#12; a#5 ## Heading\n"
    assert issue_citations("x.md", text) == [
        "x.md:1: 'issue 12'",
        "x.md:1: 'Issues 3'",
        "x.md:1: '#14'",
    ]
