"""Turn the vendored gitleaks rule file into the Python module the detector imports.

``jupyter_memory/core/secrets/gitleaks/gitleaks.toml`` is gitleaks' default
configuration (MIT, its LICENSE beside it), copied unchanged. Parsing 100 kB of
TOML and compiling 220 regular expressions at import would cost the kernel about
200 ms, so this script writes ``gitleaks_rules.py``: the same rules as Python
literals, their Go (RE2) syntax translated to Python's ``re`` (a mid-pattern
``(?i)``, ``\\z``, POSIX classes), each compiled here once to prove it works.
The detector compiles a rule only when one of its keywords is in the text.

Rules tied to file paths (``path``) and path-only allowlists are left out: the
detector sees cell and chat texts, not files.

Usage: python scripts/vendor_gitleaks.py [--check] [--commit SHA]
(``--check`` fails when the module is not what the TOML gives: run it in tests.)
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
import warnings
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / "jupyter_memory" / "core" / "secrets"
TOML = FOLDER / "gitleaks" / "gitleaks.toml"
MODULE = FOLDER / "gitleaks_rules.py"
# The upstream commit the TOML was copied from (github.com/gitleaks/gitleaks, config/).
SOURCE_COMMIT = "b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b"

POSIX = {
    "[:alnum:]": "a-zA-Z0-9",
    "[:alpha:]": "a-zA-Z",
    "[:digit:]": "0-9",
    "[:xdigit:]": "0-9A-Fa-f",
    "[:upper:]": "A-Z",
    "[:lower:]": "a-z",
    "[:space:]": r"\s",
    "[:word:]": r"\w",
}
_FLAGS = re.compile(r"\(\?[a-zA-Z-]+\)")


def _class_end(p: str, i: int) -> int:
    """Index just past the character class that starts at ``p[i] == '['``."""
    j = i + 1
    if j < len(p) and p[j] == "^":
        j += 1
    if j < len(p) and p[j] == "]":
        j += 1
    while j < len(p):
        if p[j] == "\\":
            j += 2
        elif p.startswith("[:", j) and ":]" in p[j:]:
            j = p.index(":]", j) + 2
        elif p[j] == "]":
            return j + 1
        else:
            j += 1
    raise ValueError(f"unterminated character class in {p!r}")


def translate(p: str) -> str:
    """RE2 (Go) syntax as Python ``re`` syntax, for the constructs gitleaks uses."""
    out: list[str] = []
    pending: list[list[str]] = [[]]  # per open group: the scoped-flag groups opened in it
    i = 0
    while i < len(p):
        c = p[i]
        if c == "\\":
            nxt = p[i + 1]
            out.append(r"\Z" if nxt == "z" else p[i : i + 2])
            i += 2
        elif c == "[":
            end = _class_end(p, i)
            body = p[i:end]
            for posix, plain in POSIX.items():
                body = body.replace(posix, plain)
            out.append(body)
            i = end
        elif c == "(":
            flags = _FLAGS.match(p, i)
            if flags and i > 0:
                # Go: the flags hold to the end of the enclosing group; Python
                # allows global flags only at the start, so scope them.
                out.append(flags.group()[:-1] + ":")
                pending[-1].append(flags.group()[:-1] + ":")
                i = flags.end()
                continue
            if flags:
                out.append(flags.group())
                i = flags.end()
                continue
            out.append("(")
            pending.append([])
            i += 1
        elif c == ")":
            out.append(")" * len(pending.pop()) + ")")
            i += 1
        elif c == "|" and pending[-1]:
            # Go's flags hold across an alternation: close them, reopen them after it.
            out.append(")" * len(pending[-1]) + "|" + "".join(pending[-1]))
            i += 1
        else:
            out.append(c)
            i += 1
    out.append(")" * len(pending.pop()))
    return "".join(out)


def _compiled(pattern: str, where: str) -> str:
    py = translate(pattern)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a "possible nested set" is a translation bug
        try:
            re.compile(py)
        except (re.error, FutureWarning) as exc:
            raise SystemExit(f"{where}: {exc}: {py!r}") from None
    return py


def _allowlist(allow: dict, where: str) -> tuple | None:
    """(target, regexes, stopwords, all_must_match) or None when it only names paths."""
    regexes = tuple(_compiled(r, where) for r in allow.get("regexes", ()))
    stopwords = tuple(s.lower() for s in allow.get("stopwords", ()))
    if not regexes and not stopwords:
        return None
    if allow.get("condition", "OR").upper() == "AND" and allow.get("paths"):
        return None  # needs a path to match too: never true for a cell
    return (allow.get("regexTarget", "secret"), regexes, stopwords, allow.get("condition") == "AND")


def build(commit: str = SOURCE_COMMIT) -> str:
    data = tomllib.loads(TOML.read_text(encoding="utf-8"))
    glob = data.get("allowlist", {})
    rules = []
    for rule in data["rules"]:
        if "regex" not in rule or "path" in rule:
            continue
        where = f"rule {rule['id']}"
        allows = [_allowlist(a, where) for a in rule.get("allowlists", ())]
        rules.append(
            (
                rule["id"],
                _compiled(rule["regex"], where),
                tuple(k.lower() for k in rule.get("keywords", ())),
                float(rule.get("entropy", 0.0)),
                int(rule.get("secretGroup", 0)),
                tuple(a for a in allows if a is not None),
            )
        )
    lines = [
        '"""Generated by scripts/vendor_gitleaks.py from gitleaks/gitleaks.toml: do not edit.',
        "",
        f"Source: github.com/gitleaks/gitleaks, config/gitleaks.toml at {commit}.",
        "Licence: MIT, Copyright (c) 2019 Zachary Rice (gitleaks/LICENSE beside this file).",
        "",
        "RULES: (id, Python regex, keywords, min entropy, secret group, allowlists);",
        "an allowlist is (target, regexes, stopwords, all criteria must match).",
        '"""',
        "",
        f"SOURCE_COMMIT = {commit!r}",
        f"GLOBAL_REGEXES = {tuple(_compiled(r, 'allowlist') for r in glob.get('regexes', ()))!r}",
        f"GLOBAL_STOPWORDS = {tuple(s.lower() for s in glob.get('stopwords', ()))!r}",
        "RULES = (",
        *(f"    {r!r}," for r in rules),
        ")",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if the module is out of date")
    ap.add_argument("--commit", default=SOURCE_COMMIT, help="the upstream commit of the TOML")
    args = ap.parse_args(argv)
    text = build(args.commit)
    if args.check:
        current = MODULE.read_text(encoding="utf-8") if MODULE.exists() else ""
        if current != text:
            print(
                f"{MODULE} is out of date: run python scripts/vendor_gitleaks.py", file=sys.stderr
            )
            return 1
        return 0
    MODULE.write_text(text, encoding="utf-8")
    print(f"wrote {MODULE} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
