"""Review cards that live in the document: ``%memories --review`` as one output of our MIME type.

A review card is not a widget (issue 15). The kernel displays one output whose bundle holds

- ``application/vnd.jupyter-memory.review+json``: the memory ids and a snapshot
  of each (title, text, the person's words it came from, where it lives). The
  lab extension renders it, asks ``GET /jupyter-memory/review`` for the live
  state and follows the change feed: an unreviewed memory gets **Keep**,
  **Discard** and **Promote to knowledge** (Rule or Info); a decided one says
  what happened, wherever it was decided. This needs no kernel, so it reads
  the same after a save, a reload or a restart.
- ``text/html`` and ``text/plain``: the snapshot for viewers without our
  extension (nbviewer, GitHub, VS Code), with the ``%memory keep`` /
  ``discard`` / ``promote`` lines that decide it.

The kernel keeps nothing per card. Every stored string is escaped in the HTML
(Invariant 6).
"""

from __future__ import annotations

import html
from dataclasses import asdict, dataclass, field
from typing import Any

from .._i18n import N_, tr
from ..core.visible import visible, visible_html
from ..service.learning.review_state import home_key
from .cards import source_label

REVIEW_MIME = "application/vnd.jupyter-memory.review+json"
PAYLOAD_VERSION = 1
CARD_CSS = "border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:4px 0"
MUTED_CSS = "color:#57606a"


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


# A memory's type and lifetime in words (the payload keeps the codes; the lab's
# labels.ts says the same): a digested memory's work type first.
KIND_LABEL = {
    "work_fact": N_("fact"),
    "work_method": N_("method"),
    "work_task": N_("task"),
    "work_artifact": N_("artifact"),
    "episodic": N_("episodic"),
    "semantic": N_("semantic"),
    "procedural": N_("procedural"),
    "reflective": N_("reflective"),
}
TIER_LABEL = {"session": N_("session"), "daily": N_("daily"), "durable": N_("durable")}


def _word(table: dict[str, str], code: str) -> str:
    return tr(table[code]) if code in table else code


def quote_source_label(source: str | None) -> str:
    """Where a quote came from as a person knows it: the session digest writes
    ``kernel-<session id>#<message>`` or ``mcp:<conversation>#<message>``."""
    if not source:
        return ""
    session = source.split("#", 1)[0]
    if session.startswith("kernel-"):
        return tr("a notebook session")
    if session.startswith("ipython-"):
        return tr("an IPython session")
    if session.startswith("mcp:"):
        return tr("agent chat {name}").format(name=session[len("mcp:") :])
    return source


def decide_line(memory_id: str) -> str:
    return (
        f"%memory keep {memory_id} · %memory discard {memory_id} · "
        f"%memory promote {memory_id} --kind rule|info"
    )


def outcome_text(state: str, promoted_to: str | None = None) -> str | None:
    """What happened to a reviewed memory, as the card says it; None while unreviewed."""
    if state == "kept":
        return tr("Kept")
    if state == "promoted":
        return tr("Promoted to proposal {id}").format(id=promoted_to or "")
    if state == "discarded":
        return tr("Discarded")
    return None


@dataclass(frozen=True)
class ReviewSnapshot:
    """One card as the kernel saw it when the output was made (the MIME payload's entry).

    ``state`` is ``missing`` (with ``note``) when the memory could not be found.
    ``home`` names the memory home (hashed) so the card can tell a memory
    discarded there from one kept in a home the Jupyter server does not read.
    """

    id: str
    home: str
    state: str = "missing"
    title: str = ""
    text: str = ""
    kind: str = ""
    tier: str = ""
    source: str = ""
    scene: str | None = None
    layer: str = "user"
    project: str | None = None
    quotes: list[dict[str, Any]] = field(default_factory=list)
    promotable: bool = False
    promoted_to: str | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def what(self) -> str:
        scene = tr("scene {scene}").format(scene=self.scene) if self.scene else ""
        words = (
            _word(KIND_LABEL, self.kind),
            _word(TIER_LABEL, self.tier),
            scene,
            source_label(self.source, False) if self.source else "",
        )
        return " · ".join(x for x in words if x)

    def plain_text(self) -> str:
        if self.state == "missing":
            return tr("memory {id}: {note}").format(id=self.id, note=self.note or "")
        lines = [f"[{_word(KIND_LABEL, self.kind)}] {self.title}  ({self.id})"]
        lines += [f"  “{q['quote']}”" for q in self.quotes]
        if not self.quotes:
            lines.append("  " + tr("(no words of yours: from agent replies)"))
        state = outcome_text(self.state, self.promoted_to)
        lines.append("  " + (state or tr("unreviewed · {how}").format(how=decide_line(self.id))))
        return "\n".join(lines)

    def html(self) -> str:
        head = f'<div style="{MUTED_CSS}">{_e(tr("memory"))} <code>{_e(self.id)}</code></div>'
        if self.state == "missing":
            return f'<div style="{CARD_CSS}">{head}<div>{_e(self.note)}</div></div>'
        quotes = (
            "".join(
                f'<div style="{MUTED_CSS}">“{visible_html(q.get("quote"))}” — '
                f"{visible_html(quote_source_label(q.get('source')))}</div>"
                for q in self.quotes
            )
            or f'<div style="{MUTED_CSS}">{_e(tr("(no words of yours: from agent replies)"))}</div>'
        )
        body = (
            f'<div><span style="font-weight:600">{visible_html(self.title)}</span>'
            f' <span style="{MUTED_CSS}">{_e(self.what())}</span></div>'
            f"<div>{visible_html(self.text)}</div>{quotes}"
        )
        outcome = outcome_text(self.state, self.promoted_to)
        if outcome:
            state = f"<div><b>{_e(outcome)}</b></div>"
        else:
            state = "<div><b>{}</b> {}</div>".format(
                _e(tr("Unreviewed when this output was made.")),
                _e(tr("Review it in a cell with:")) + f" <code>{_e(decide_line(self.id))}</code>",
            )
        return f'<div style="{CARD_CSS}">{body}{state}{head}</div>'


class ReviewCards:
    """Review cards for ``ids`` as one notebook output (see the module docstring).

    The snapshot is read when the output is rendered, so ``%memories --review``
    shown again reflects the memories at that moment.
    """

    def __init__(self, session: Any, ids: list[str]) -> None:
        self.session = session
        self.ids = list(ids)

    def __len__(self) -> int:
        return len(self.ids)

    def snapshots(self) -> list[ReviewSnapshot]:
        with self.session.lock:
            mem = self.session.memory
            home = home_key(mem.home)
            found = mem.hooks.review_states(self.ids)
        by_id = {s.id: s for s in found.states}
        out = []
        for memory_id in self.ids:
            s = by_id.get(memory_id)
            if s is None:
                note = tr("not found: discarded or forgotten, or in another memory home")
                out.append(ReviewSnapshot(id=memory_id, home=home, note=note))
                continue
            out.append(
                ReviewSnapshot(
                    id=s.id, home=home, state=s.state, title=s.title, text=s.text,
                    kind=s.kind, tier=s.tier, source=s.source, scene=s.scene,
                    layer=s.layer, project=s.project, quotes=[dict(q) for q in s.quotes],
                    promotable=s.promotable, promoted_to=s.promoted_to,
                )
            )  # fmt: skip
        return out

    def __getitem__(self, index: int) -> ReviewSnapshot:
        return self.snapshots()[index]

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        cards = self.snapshots()
        return {
            REVIEW_MIME: {"version": PAYLOAD_VERSION, "cards": [c.to_dict() for c in cards]},
            "text/html": "".join(c.html() for c in cards),
            "text/plain": visible("\n".join(c.plain_text() for c in cards)),
        }


__all__ = ["REVIEW_MIME", "ReviewCards", "ReviewSnapshot", "outcome_text"]
