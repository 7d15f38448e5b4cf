"""The lab extension's catalogue: extract, update the .po, compile the JSON JupyterLab reads.

The panel and the cards translate through JupyterLab's ``TranslationBundle``
(labextension/src/i18n.ts): every call ``trans.__('…')``, ``trans._n('…', '…', n)``,
``trans._p('context', '…')`` or ``trans._np(…)`` in ``labextension/src/*.ts`` marks a
message. The reviewable source is ``labextension/locale/<lang>.po``; what
jupyterlab_server serves is ``jupyter_memory/locale/<lang>/LC_MESSAGES/jupyter_memory_lab.json``
(found through the ``jupyterlab.locale`` entry point ``jupyter_memory_lab = jupyter_memory``,
so it ships in the wheel and works from an editable install alike).

Usage:
  python scripts/compile_lab_catalog.py            # write the JSON from the .po
  python scripts/compile_lab_catalog.py --update   # first add new messages to the .po
                                                   # (empty msgstr) and drop gone ones
  python scripts/compile_lab_catalog.py --check    # fail when the JSON is not current
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "labextension" / "src"
PO_DIR = ROOT / "labextension" / "locale"
OUT = ROOT / "jupyter_memory" / "locale"
DOMAIN = "jupyter_memory_lab"
PLURAL_FORMS = {"zh_CN": "nplurals=1; plural=0;"}
CTX = "\x04"  # gettext's context delimiter, also in JupyterLab's JSON keys
# method → (has a context, has a plural)
METHODS = {"__": (False, False), "_n": (False, True), "_p": (True, False), "_np": (True, True)}
CALL = re.compile(r"\btrans\.(__|_np|_n|_p)\s*\(")
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


@dataclass(frozen=True)
class Message:
    context: str | None
    msgid: str
    plural: str | None

    @property
    def key(self) -> str:
        """The key of this message in JupyterLab's JSON (and gettext's .mo)."""
        return f"{self.context}{CTX}{self.msgid}" if self.context else self.msgid


@dataclass
class Extracted:
    messages: dict[Message, list[str]] = field(default_factory=dict)  # message → where
    problems: list[str] = field(default_factory=list)  # calls whose text is not a literal


def _literal(text: str, i: int) -> tuple[str, int] | None:
    """The string literal starting at ``text[i]`` (quotes or a template without ${}), and its end."""
    quote = text[i] if i < len(text) else ""
    if quote not in "'\"`":
        return None
    out: list[str] = []
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == quote:
            return "".join(out), j + 1
        if c == "\\":
            nxt = text[j + 1]
            if nxt == "u":
                if text[j + 2] == "{":
                    end = text.index("}", j)
                    out.append(chr(int(text[j + 3 : end], 16)))
                    j = end + 1
                else:
                    out.append(chr(int(text[j + 2 : j + 6], 16)))
                    j += 6
                continue
            if nxt == "\n":  # a line continuation
                j += 2
                continue
            out.append(ESCAPES.get(nxt, nxt))
            j += 2
            continue
        if quote == "`" and text.startswith("${", j):
            return None  # an interpolated template cannot be a msgid
        if c == "\n" and quote != "`":
            return None
        out.append(c)
        j += 1
    return None


def _code_positions(text: str) -> list[int]:
    """Offsets of ``trans.x(`` calls outside comments and string literals."""
    found: list[int] = []
    i = 0
    while i < len(text):
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
        elif text[i] in "'\"`":
            lit = _literal(text, i)
            # A template with ${}: skip to its closing backtick (none of ours nests one).
            i = lit[1] if lit is not None else text.find(text[i], i + 1) + 1 or len(text)
        else:
            m = CALL.match(text, i)
            if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                found.append(i)
                i = m.end()
            else:
                i += 1
    return found


def extract(src: Path = SRC) -> Extracted:
    """Every message of every ``trans`` call in the lab extension's TypeScript sources."""
    result = Extracted()
    for path in sorted(src.glob("*.ts")):
        text = path.read_text(encoding="utf-8")
        for start in _code_positions(text):
            m = CALL.match(text, start)
            assert m is not None
            has_ctx, has_plural = METHODS[m.group(1)]
            line = text.count("\n", 0, start) + 1
            where = f"{path.relative_to(ROOT).as_posix()}:{line}"
            parts: list[str] = []
            i = m.end()
            for _ in range(1 + has_ctx + has_plural):
                while i < len(text) and text[i] in " \t\r\n,":
                    i += 1
                lit = _literal(text, i)
                if lit is None:
                    result.problems.append(f"{where}: trans.{m.group(1)} needs string literals")
                    break
                parts.append(lit[0])
                i = lit[1]
            else:
                ctx = parts.pop(0) if has_ctx else None
                msg = Message(ctx, parts[0], parts[1] if has_plural else None)
                files = result.messages.setdefault(msg, [])
                # The .po names the files only, so an edit elsewhere in a file leaves it as it is.
                if where.rsplit(":", 1)[0] not in files:
                    files.append(where.rsplit(":", 1)[0])
    return result


@dataclass
class Entry:
    message: Message
    strs: list[str]  # msgstr, or msgstr[0..]
    refs: list[str] = field(default_factory=list)


def parse_po(text: str) -> tuple[str, dict[Message, Entry]]:
    """The header's msgstr and every entry of a .po (msgctxt and plurals included)."""
    header = ""
    entries: dict[Message, Entry] = {}
    fields: dict[str, str] = {}
    refs: list[str] = []
    last: str | None = None

    def flush() -> None:
        nonlocal header
        if "msgid" in fields:
            strs = [fields[k] for k in sorted(k for k in fields if k.startswith("msgstr"))]
            if fields["msgid"] == "" and "msgctxt" not in fields:
                header = strs[0] if strs else ""
            else:
                msg = Message(fields.get("msgctxt"), fields["msgid"], fields.get("msgid_plural"))
                entries[msg] = Entry(msg, strs, list(refs))
        fields.clear()
        refs.clear()

    for raw in text.splitlines() + [""]:
        line = raw.strip()
        if not line:
            flush()
            last = None
        elif line.startswith("#:"):
            refs.extend(line[2:].split())
        elif line.startswith("#"):
            continue
        elif line.startswith('"') and last is not None:
            fields[last] += ast.literal_eval(line)
        else:
            keyword, _, rest = line.partition(" ")
            if keyword in fields:  # a new entry without a blank line before it
                flush()
            fields[keyword] = ast.literal_eval(rest)
            last = keyword
    return header, entries


def _q(text: str) -> str:
    return (
        '"'
        + (text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t"))
        + '"'
    )


def write_po(lang: str, header_comment: str, entries: list[Entry]) -> str:
    lines = [
        header_comment.rstrip("\n"),
        'msgid ""',
        'msgstr ""',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        f'"Language: {lang}\\n"',
        f'"Plural-Forms: {PLURAL_FORMS.get(lang, "nplurals=2; plural=(n != 1);")}\\n"',
        "",
    ]
    for e in entries:
        lines += [f"#: {ref}" for ref in e.refs]
        if e.message.context is not None:
            lines.append(f"msgctxt {_q(e.message.context)}")
        lines.append(f"msgid {_q(e.message.msgid)}")
        if e.message.plural is not None:
            lines.append(f"msgid_plural {_q(e.message.plural)}")
            strs = e.strs or [""]
            lines += [f"msgstr[{n}] {_q(s)}" for n, s in enumerate(strs)]
        else:
            lines.append(f"msgstr {_q(e.strs[0] if e.strs else '')}")
        lines.append("")
    return "\n".join(lines)


def header_comment(lang: str) -> str:
    return (
        f"# {lang} messages of the jupyter-memory lab extension (panel and proposal cards).\n"
        "# Edit the msgstr lines, then: python scripts/compile_lab_catalog.py\n"
        "# New messages in labextension/src: python scripts/compile_lab_catalog.py --update\n"
        "# Placeholders %1, %2… must stay (in a plural, %1 is the count).\n"
    )


def update_po(po: Path, found: Extracted) -> str:
    """The .po with the code's messages in source order, keeping every translation."""
    lang = po.stem
    old = parse_po(po.read_text(encoding="utf-8"))[1] if po.exists() else {}
    entries = [
        Entry(msg, old[msg].strs if msg in old else [], refs)
        for msg, refs in found.messages.items()
    ]
    return write_po(lang, header_comment(lang), entries)


def catalogue(po: Path) -> dict[str, object]:
    """JupyterLab's JSON for one .po: header, then key → forms (a plural has at least two)."""
    lang = po.stem
    data: dict[str, object] = {
        "": {
            "domain": DOMAIN,
            "language": lang.replace("_", "-"),
            "plural_forms": PLURAL_FORMS.get(lang, "nplurals=2; plural=(n != 1);"),
        }
    }
    for msg, entry in sorted(
        parse_po(po.read_text(encoding="utf-8"))[1].items(), key=lambda kv: kv[0].key
    ):
        if not any(entry.strs):
            continue  # untranslated: the English msgid shows
        # JupyterLab's Gettext reads a one-form list as a singular: pad a plural.
        data[msg.key] = (
            entry.strs + [""] if msg.plural is not None and len(entry.strs) < 2 else entry.strs
        )
    return data


def json_text(po: Path) -> str:
    return json.dumps(catalogue(po), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def json_path(po: Path) -> Path:
    return OUT / po.stem / "LC_MESSAGES" / f"{DOMAIN}.json"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--check", action="store_true", help="fail when a JSON is not current")
    p.add_argument("--update", action="store_true", help="sync the .po files with the code")
    args = p.parse_args()
    found = extract()
    if found.problems:
        print(*found.problems, sep="\n", file=sys.stderr)
        return 1
    stale = []
    for po in sorted(PO_DIR.glob("*.po")):
        if args.update:
            po.write_text(update_po(po, found), encoding="utf-8")
            print(f"updated {po}")
        out = json_path(po)
        text = json_text(po)
        if out.exists() and out.read_text(encoding="utf-8") == text:
            continue
        if args.check:
            stale.append(str(out))
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
            print(f"wrote {out}")
    if stale:
        print("not current (run python scripts/compile_lab_catalog.py):", *stale, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
