"""Review cards for unreviewed memories: **Keep**, **Discard**, **Promote to knowledge**.

``%memories --review`` shows one card per memory the session digest (or an
agent) stored unreviewed, with the person's original words it came from.
Keep marks it reviewed, Discard forgets it, Promote queues a knowledge
proposal (Rule or Info) quoting that original message — the proposal still
waits for Apply in the queue. Every stored string is escaped.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as w

from ..exceptions import JupyterMemoryError

KIND_OPTIONS = [("Rule", "rule"), ("Info", "info")]


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


class ReviewCard:
    """A card for one unreviewed memory (a row of ``Memory.unreviewed()``)."""

    def __init__(self, session: Any, row: dict[str, Any]) -> None:
        self.session = session
        self.row = row
        self.id = str(row["id"])
        self.keep_button = w.Button(description="Keep", tooltip="Keep it as a reviewed memory")
        self.discard_button = w.Button(description="Discard", tooltip="Forget this memory")
        self.promote_button = w.Button(
            description="Promote to knowledge",
            tooltip="Queue a knowledge proposal quoting your original message",
            layout=w.Layout(width="auto"),
        )
        self.kind = w.Dropdown(options=KIND_OPTIONS, value="rule", layout=w.Layout(width="90px"))
        self.body = w.HTML(self.body_html())
        self.message = w.HTML()
        self.buttons = w.HBox(
            [self.keep_button, self.discard_button, self.promote_button, self.kind]
        )
        self.widget = w.VBox(
            [self.body, self.buttons, self.message],
            layout=w.Layout(border="1px solid #d0d7de", padding="4px 8px"),
        )
        self.keep_button.on_click(lambda _: self.keep())
        self.discard_button.on_click(lambda _: self.discard())
        self.promote_button.on_click(lambda _: self.promote())
        self.status = "unreviewed"
        self.note = ""

    def body_html(self) -> str:
        r = self.row
        what = " · ".join(_e(x) for x in (r.get("work_type") or r.get("type"), r.get("tier")) if x)
        scene = f" · scene {_e(r['scene'])}" if r.get("scene") else ""
        quotes = "".join(
            f'<div style="color:#57606a">“{_e(q.get("quote"))}” — {_e(q.get("source"))}</div>'
            for q in r.get("evidence", [])[:3]
        )
        if not quotes:
            quotes = '<div style="color:#57606a">(no words of yours: from agent replies)</div>'
        return (
            f'<div><span style="font-weight:600">{_e(r.get("title"))}</span>'
            f' <span style="color:#57606a">{what}{scene} · {_e(r.get("source"))}</span></div>'
            f"<div>{_e(r.get('text'))}</div>{quotes}"
        )

    # -- acting -----------------------------------------------------------------------

    def _act(self, call: Any) -> dict[str, Any] | None:
        try:
            with self.session.lock:
                result: dict[str, Any] = call(self.session.memory).to_dict()
        except JupyterMemoryError as exc:
            self._say(f"Error: {exc}", error=True)
            return None
        return result

    def _decided(self, status: str, note: str) -> None:
        self.status = status
        self.buttons.children = []
        self._say(note)

    def keep(self) -> None:
        if self._act(lambda mem: mem.keep_memory(self.id)) is not None:
            self._decided("kept", "Kept: reviewed, agents may recall it")

    def discard(self) -> None:
        if self._act(lambda mem: mem.discard_memory(self.id)) is not None:
            self._decided("discarded", "Discarded: forgotten")

    def promote(self) -> None:
        kind = self.kind.value
        result = self._act(lambda mem: mem.promote_memory(self.id, kind=kind))
        if result is None:
            return
        if result["status"] == "skipped":
            self._say(f"Not queued: {result.get('reason') or 'the queue already has it'}")
            return
        pid = result["proposal"]["id"]
        self._decided("promoted", f"Promoted: proposal {pid} waits in the queue (%memory queue)")

    def _say(self, text: str, *, error: bool = False) -> None:
        self.note = text
        style = "color:#cf222e" if error else "font-weight:600"
        self.message.value = f'<span style="{style}">{_e(text)}</span>'

    # -- display ----------------------------------------------------------------------

    def plain_text(self) -> str:
        r = self.row
        quote = next((q.get("quote") for q in r.get("evidence", [])), None)
        lines = [f"[{r.get('work_type') or r.get('type')}] {r.get('title')}  ({self.id})"]
        if quote:
            lines.append(f"  “{quote}”")
        lines.append(f"  {self.note or 'unreviewed: Keep / Discard / Promote to knowledge'}")
        return "\n".join(lines)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = self.plain_text()
        return bundle


class ReviewCards:
    """The cards of ``%memories --review``, shown together."""

    def __init__(self, session: Any, rows: list[dict[str, Any]]) -> None:
        self.cards = [ReviewCard(session, row) for row in rows]
        self.widget = w.VBox([c.widget for c in self.cards])

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, index: int) -> ReviewCard:
        return self.cards[index]

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = "\n".join(c.plain_text() for c in self.cards)
        return bundle
