"""Notebook rendering of magic results: HTML (every stored string escaped) and plain text.

Both show stored text by ``core/visible.py``'s one rule: control, escape and
bidi characters appear as ``␛[8m`` or ``⟨U+202E⟩``, and each HTML cell is
isolated in ``<bdi>``.

The result objects are lists of plain dicts, so ``pandas.DataFrame(result)``
works, and ``result.to_frame()`` gives the same with real dtypes. pandas is
imported only by ``to_frame``.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from .._i18n import N_, tr
from ..core.memories.embed_progress import embedding_line
from ..core.memories.usage import GROUP_LABELS
from ..core.visible import visible, visible_html

# JupyterLab right-aligns output tables with ``:not(.jp-RenderedMarkdown)
# .jp-RenderedHTMLCommon td`` (specificity 0,2,1) and fixes their layout: the
# doubled class (0,2,2) wins. An id never breaks at its hyphens (``jm-id``);
# other text wraps between words only.
STYLE = (
    "<style>table.jm-table.jm-table{border-collapse:collapse;font-size:90%;"
    "table-layout:auto;margin-left:0}"
    "table.jm-table.jm-table td,table.jm-table.jm-table th{border-bottom:1px solid #ddd;"
    "padding:2px 8px;text-align:left;vertical-align:top;word-break:normal;"
    "overflow-wrap:break-word}"
    "table.jm-table.jm-table td.jm-id{white-space:nowrap}"
    "table.jm-table.jm-table td.jm-long{min-width:16em}"
    ".jm-scroll{overflow-x:auto;max-width:100%}</style>"
)
# Plain text wraps here, between words (a path or id longer than this stays whole):
# JupyterLab shows text/plain with word-break: break-all, cutting words at its edge.
TEXT_WIDTH = 100
ID_COLUMNS = frozenset({"id"})
LONG_COLUMNS = frozenset({"text", "title"})  # wrap, but not down to a word a line


def wrapped(text: str, width: int = TEXT_WIDTH) -> str:
    """``text`` with each long line wrapped between words, continuation lines
    indented under the line's own indentation (a list item stays a list item)."""
    out: list[str] = []
    for line in text.splitlines():
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        out.extend(
            textwrap.wrap(
                line,
                width=width,
                subsequent_indent=indent + "  ",
                break_long_words=False,
                break_on_hyphens=False,
            )
            or [line]
        )
    return "\n".join(out)


def cell_text(value: Any) -> str:
    """A value as display text (lists joined, times to the minute)."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, (list, tuple)):
        return ", ".join(cell_text(v) for v in value)
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


# The words a person reads in a table, translated where shown: the headings and
# the codes of the category columns. The rows keep the codes (a DataFrame, JSON
# and ``%recall --json`` see those); the same words as the review cards.
HEADINGS = {
    "id": N_("id"),
    "text": N_("text"),
    "title": N_("title"),
    "type": N_("type"),
    "tier": N_("tier"),
    "heat": N_("heat"),
    "layer": N_("layer"),
    "score": N_("score"),
    "review": N_("review"),
    "project": N_("project"),
    "updated": N_("updated"),
}
VALUE_WORDS: dict[str, dict[str, str]] = {
    "type": {
        "episodic": N_("episodic"),
        "semantic": N_("semantic"),
        "procedural": N_("procedural"),
        "reflective": N_("reflective"),
        "work_fact": N_("fact"),
        "work_method": N_("method"),
        "work_task": N_("task"),
        "work_artifact": N_("artifact"),
    },
    "tier": {"session": N_("session"), "daily": N_("daily"), "durable": N_("durable")},
    "heat": {"HOT": N_("HOT"), "WARM": N_("WARM"), "COLD": N_("COLD")},
    "layer": {"user": N_("user"), "project": N_("project")},
    "review": {"unreviewed": N_("unreviewed")},
}


def heading(column: str) -> str:
    return tr(HEADINGS[column]) if column in HEADINGS else column


def shown_value(column: str, value: Any) -> Any:
    """A category code in the person's words; any other value as it is."""
    words = VALUE_WORDS.get(column)
    if words and isinstance(value, str) and value in words:
        return tr(words[value])
    return value


def _td(column: str, value: Any) -> str:
    cls = (
        ' class="jm-id"'
        if column in ID_COLUMNS
        else ' class="jm-long"'
        if column in LONG_COLUMNS
        else ""
    )
    return f"<td{cls}>{visible_html(cell_text(shown_value(column, value)))}</td>"


def html_table(rows: Sequence[dict[str, Any]], columns: Sequence[str], caption: str = "") -> str:
    head = "".join(f"<th>{html.escape(heading(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_td(c, r.get(c)) for c in columns) + "</tr>" for r in rows)
    cap = f"<caption>{visible_html(caption)}</caption>" if caption else ""
    # a table wider than the output scrolls instead of being cut at its edge
    return (
        f'{STYLE}<div class="jm-scroll"><table class="jm-table">{cap}<thead><tr>{head}</tr>'
        f"</thead><tbody>{body}</tbody></table></div>"
    )


def text_table(rows: Sequence[dict[str, Any]], columns: Sequence[str], width: int = 60) -> str:
    def clip(s: str) -> str:
        s = " ".join(s.split())
        return s if len(s) <= width else s[: width - 1] + "…"

    cells = [
        [clip(visible(cell_text(shown_value(c, r.get(c))), lines=False)) for c in columns]
        for r in rows
    ]
    heads = [heading(c) for c in columns]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(heads)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(line.rstrip() for line in lines)


class TableResult(list):  # type: ignore[type-arg]
    """A list of dict rows that renders as a table; ``to_frame()`` gives a DataFrame."""

    columns: tuple[str, ...] = ()
    caption = ""
    empty_message = N_("(nothing)")
    time_columns: tuple[str, ...] = ("created", "updated", "last_accessed")
    category_columns: tuple[str, ...] = ("type", "tier", "scope", "heat", "layer", "source")

    def __init__(self, rows: Iterable[dict[str, Any]] = (), caption: str | None = None) -> None:
        super().__init__(rows)
        if caption is not None:
            self.caption = caption

    def shown(self) -> list[dict[str, Any]]:
        """The rows as a person reads them (the rows themselves stay as they are)."""
        return list(self)

    def _repr_html_(self) -> str:
        if not self:
            return f"<p>{html.escape(tr(self.empty_message))}</p>"
        return html_table(self.shown(), self.columns, self.caption)

    def __repr__(self) -> str:
        if not self:
            return tr(self.empty_message)
        head = f"{visible(self.caption)}\n" if self.caption else ""
        return head + text_table(self.shown(), self.columns)

    def to_frame(self) -> Any:
        import pandas as pd

        frame = pd.DataFrame(list(self))
        for col in self.time_columns:
            if col in frame:
                frame[col] = pd.to_datetime(frame[col], utc=True)
        for col in self.category_columns:
            if col in frame:
                frame[col] = frame[col].astype("category")
        return frame


class RecallResult(TableResult):
    """Hits of ``%recall``: id, title, snippet text, type, tier, heat, score, …"""

    columns = ("id", "text", "type", "tier", "heat", "layer", "score", "review")
    empty_message = N_("No memories matched.")

    def shown(self) -> list[dict[str, Any]]:
        return [{**row, "text": one_text(row) + _superseded(row)} for row in self]


def _superseded(row: dict[str, Any]) -> str:
    later = row.get("superseded_by")
    return "  " + tr("(superseded by {id})").format(id=later) if later else ""


def one_text(row: dict[str, Any]) -> str:
    """The title and the text as one column: the text alone when the title is its
    start (a title made from the text), else ``title — text``."""
    title = " ".join(str(row.get("title") or "").split())
    text = " ".join(str(row.get("text") or "").split())
    if not text or text.startswith(title.rstrip("…. ")):
        return text or title
    return f"{title} — {text}" if title else text


class MemoriesResult(TableResult):
    """Rows of ``%memories``: HOT and WARM first, newest first within a heat."""

    columns = ("id", "title", "type", "tier", "heat", "layer", "project", "updated", "review")
    empty_message = N_("No memories yet. Save one with %remember TEXT.")


def _when(value: str | None) -> str:
    return value[:16].replace("T", " ") if value else "never"


def usage_pairs(usage: dict[str, Any]) -> list[tuple[str, str]]:
    """``--stats`` lines for usage: recalls, last access, most recalled, per sector/tier/heat."""
    if not usage:
        return []
    pairs = [
        (
            "recalls",
            f"{usage['accesses']} in all; {usage['accessed']} memories recalled, "
            f"{usage['never_accessed']} never; last {_when(usage['last_accessed'])}",
        )
    ]
    for i, top in enumerate(usage["most_recalled"]):
        pairs.append(
            (
                "most recalled" if i == 0 else "",
                f"{top['access_count']}×  {top['title']}  ({top['type']}/{top['tier']}, "
                f"last {_when(top['last_accessed'])})",
            )
        )
    for group, label in GROUP_LABELS.items():
        pairs.append(
            (
                tr(label),
                ", ".join(
                    f"{name} {g['memories']} ({g['accesses']} recalls, last {_when(g['last_accessed'])})"
                    for name, g in usage[group].items()
                ),
            )
        )
    return pairs


class StatsView(dict):  # type: ignore[type-arg]
    """``%memories --stats``: counts by type, tier, scope, project and index health."""

    _GROUPS = ("by_type", "by_tier", "by_scope", "by_project", "by_heat", "by_layer")

    def _pairs(self) -> list[tuple[str, str]]:
        pairs = [("total", str(self.get("total", 0))), ("unreviewed", str(self.get("unreviewed")))]
        for group in self._GROUPS:
            counts = self.get(group) or {}
            pairs.append((group[3:], ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))))
        for idx in self.get("index", []):
            health = (
                "ok" if not idx["unreadable_files"] else f"{idx['unreadable_files']} unreadable"
            )
            pairs.append((f"index ({idx['layer']})", f"{idx['entries']} entries, {health}"))
        line = embedding_line(self.get("semantic") or {})  # left to embed, time left
        if line:
            pairs.append((tr("embedding"), line))
        pairs += usage_pairs(self.get("usage") or {})
        pairs.append(("home", str(self.get("home"))))
        if self.get("project"):
            pairs.append(("project", f"{self['project']} ({self.get('project_dir')})"))
        return pairs

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th>{html.escape(k)}</th><td>{visible_html(v)}</td></tr>"
            for k, v in self._pairs()
        )
        return f'{STYLE}<table class="jm-table">{rows}</table>'

    def __repr__(self) -> str:
        pairs = self._pairs()
        width = max(len(k) for k, _ in pairs)
        return "\n".join(f"{k.ljust(width)}  {visible(v)}" for k, v in pairs)


class TextBlock(str):
    """A block of text shown verbatim (``%memory context``), escaped in HTML."""

    def _repr_html_(self) -> str:
        # inline: it must beat JupyterLab's ``.jp-OutputArea-output pre`` (break-all)
        style = "white-space:pre-wrap;word-break:normal;overflow-wrap:break-word"
        return f'<pre class="jm-text" style="{style}">{visible_html(self)}</pre>'

    def __repr__(self) -> str:
        return wrapped(visible(str(self)))
