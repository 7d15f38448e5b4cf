"""Compile jupyter_memory/locale/*/LC_MESSAGES/*.po into the .mo files gettext reads.

A small pure-Python msgfmt (msgid, msgid_plural, msgstr[n], msgctxt-free .po
files as we write them), so no gettext tools are needed: run it after editing
a catalogue; ``tests/test_i18n.py`` checks every .mo is current.

Usage: python scripts/compile_catalogs.py [--check]
"""

from __future__ import annotations

import argparse
import ast
import struct
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "jupyter_memory"
LOCALE = PACKAGE / "locale"
MARKERS = {"tr": 1, "N_": 1, "M_": 1, "ntr": 2}  # function name → how many leading literals are msgids


def extract(package: Path = PACKAGE) -> dict[str, str | None]:
    """Every message marked in the code (``tr``, ``N_``, ``M_``, ``ntr``): msgid → plural or None."""
    found: dict[str, str | None] = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            n = MARKERS.get(node.func.id)
            if n is None or len(node.args) < n:
                continue
            texts = [a.value for a in node.args[:n] if isinstance(a, ast.Constant)]
            if len(texts) == n and all(isinstance(t, str) for t in texts):
                found[texts[0]] = texts[1] if n == 2 else None
    return found


def parse_po(text: str) -> dict[str, str]:
    """msgid (plural forms joined by NUL) → msgstr (forms joined by NUL); the header included."""
    entries: dict[str, str] = {}
    msgid: list[str] = []
    strs: dict[int, str] = {}
    current: tuple[str, int] | None = None

    def flush() -> None:
        if current is not None and strs and any(strs.values()):
            entries["\x00".join(msgid)] = "\x00".join(strs[i] for i in sorted(strs))

    for raw in text.splitlines() + [""]:
        line = raw.strip()
        if not line or line.startswith("#"):
            if not line:
                flush()
                msgid, strs, current = [], {}, None
            continue
        if line.startswith("msgid_plural "):
            msgid.append(ast.literal_eval(line[len("msgid_plural ") :]))
            current = ("id", len(msgid) - 1)
        elif line.startswith("msgid "):
            msgid = [ast.literal_eval(line[len("msgid ") :])]
            current = ("id", 0)
        elif line.startswith("msgstr["):
            n = int(line[len("msgstr[") : line.index("]")])
            strs[n] = ast.literal_eval(line[line.index("]") + 1 :].strip())
            current = ("str", n)
        elif line.startswith("msgstr "):
            strs[0] = ast.literal_eval(line[len("msgstr ") :])
            current = ("str", 0)
        elif line.startswith('"') and current is not None:
            kind, n = current
            if kind == "id":
                msgid[n] += ast.literal_eval(line)
            else:
                strs[n] += ast.literal_eval(line)
    return entries


def mo_bytes(entries: dict[str, str]) -> bytes:
    """The GNU .mo format: header, two tables of (length, offset), then the strings."""
    keys = sorted(entries)
    ids = b"".join(k.encode("utf-8") + b"\0" for k in keys)
    strs = b"".join(entries[k].encode("utf-8") + b"\0" for k in keys)
    start = 7 * 4 + 16 * len(keys)
    offsets: list[int] = []
    id_table: list[int] = []
    pos = 0
    for k in keys:
        data = k.encode("utf-8")
        id_table += [len(data), start + pos]
        pos += len(data) + 1
    str_start = start + len(ids)
    pos = 0
    for k in keys:
        data = entries[k].encode("utf-8")
        offsets += [len(data), str_start + pos]
        pos += len(data) + 1
    header = struct.pack("Iiiiiii", 0x950412DE, 0, len(keys), 7 * 4, 7 * 4 + 8 * len(keys), 0, 0)
    return (
        header
        + struct.pack(f"{len(id_table)}i", *id_table)
        + struct.pack(f"{len(offsets)}i", *offsets)
        + ids
        + strs
    )


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--check", action="store_true", help="fail when a .mo is not current")
    args = p.parse_args()
    stale = []
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        data = mo_bytes(parse_po(po.read_text(encoding="utf-8")))
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.read_bytes() == data:
            continue
        if args.check:
            stale.append(str(mo))
        else:
            mo.write_bytes(data)
            print(f"wrote {mo}")
    if stale:
        print("not current (run python scripts/compile_catalogs.py):", *stale, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
