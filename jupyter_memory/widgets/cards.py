"""Proposal cards that live in the document: one notebook output of our own MIME type.

A card is not a widget. The kernel displays one output whose bundle holds

- ``application/vnd.jupyter-memory.proposal+json``: the proposal ids and a
  snapshot of each (text, quote, origin, status when shown). The lab
  extension renders it (JupyterLab and Notebook 7), asks the server's REST API
  for the live state of each id, and follows the change feed: pending cards get
  **User**, **Project** and **Dismiss**; decided ones say what happened. This
  needs no kernel, so it reads the same after a save, a reload or a restart.
- ``text/html`` and ``text/plain``: the snapshot for viewers without our
  extension (nbviewer, GitHub, VS Code), with the ``%memory apply`` /
  ``%memory dismiss`` and CLI lines that decide it.

The kernel keeps no card object alive and subscribes to nothing: the old
ipywidgets cards added a queue listener per display that was never removed.
Every stored string is escaped in the HTML (Invariant 6).
"""

from __future__ import annotations

import html
from dataclasses import asdict, dataclass
from typing import Any

from .._i18n import N_, tr
from ..core.visible import visible, visible_html
from ..exceptions import JupyterMemoryError

PROPOSAL_MIME = "application/vnd.jupyter-memory.proposal+json"
PAYLOAD_VERSION = 1
# English msgids, translated where a card is drawn (the payload keeps the codes)
KIND_LABEL = {"rule": N_("Rule"), "info": N_("Info")}
LAYER_LABEL = {"user": N_("User"), "project": N_("Project")}
# One vocabulary with the panel (labextension/src/decided.ts, docs/design.md
# "Words on the screen"): an extracted proposal is "from a cell" when its quote
# is a notebook cell's, else "from a chat"; "from an agent", "from an import".
SOURCE_LABEL = {
    "chat-extraction": N_("from a chat"),
    "agent": N_("from an agent"),
    "import": N_("from an import"),
    **{source: source for source in (N_("correction"), N_("gotcha"), N_("manual"))},
    "session-digest": N_("session digest"),
}
FROM_A_CELL = N_("from a cell")


def from_cell(proposal: Any) -> bool:
    """Its quote came from a notebook cell (not a chat message)."""
    origin = getattr(proposal, "quote_origin", None)
    return bool(getattr(origin, "cell_id", None)) and not getattr(origin, "message_id", None)


def source_label(source: str, cell: bool) -> str:
    """A proposal's source as a person reads it, in the language."""
    if source == "chat-extraction" and cell:
        return tr(FROM_A_CELL)
    return _label(SOURCE_LABEL, source)


CARD_CSS = "border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:4px 0"
MUTED_CSS = "color:#57606a"


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _label(table: dict[str, str], code: str) -> str:
    """A code's label in the person's language; an unknown code as it is."""
    return tr(table[code]) if code in table else code


def _cell_label(label: str) -> str:
    """``cell 12`` as the capture names a cell (``magics/cells.py``), in the language."""
    number = label[len("cell ") :] if label.startswith("cell ") else None
    return tr("cell {n}").format(n=number) if number else label


def origin_label(proposal: Any, labels: dict[str, str] | None = None) -> str:
    """Where the quote came from: "cell 12", "message m-7", the notebook's name.

    ``labels`` maps cell ids captured in this kernel to their execution count;
    other cells (markdown, earlier sessions) show a short id. Empty when nothing
    was recorded (a proposal typed by hand): the card then names only its source.
    """
    origin = getattr(proposal, "quote_origin", None)
    cell = getattr(origin, "cell_id", None)
    parts = []
    if cell and labels and cell in labels:
        parts.append(_cell_label(labels[cell]))
    elif cell:
        short = cell[3:-1] if cell.startswith("In[") else cell[:8]
        parts.append(tr("cell {n}").format(n=short))
    msg = getattr(origin, "message_id", None)
    if msg:
        parts.append(tr("message {id}").format(id=msg))
    nb = getattr(origin, "notebook_path", None)
    if nb:
        parts.append(str(nb).rsplit("/", 1)[-1])
    return " · ".join(parts)


def replaces_text(proposal: Any) -> str | None:
    """What a proposal replaces, in words ("Replaces: “Revenue excludes refunds”"); None if nothing."""
    text = getattr(proposal, "supersedes_text", None)
    return tr("Replaces: “{text}”").format(text=text) if text else None


def neighbour_line(neighbour: Any) -> str:
    """One near entry as the card says it: "May conflict with: “…”" and the like."""
    kind = neighbour.relation.kind.value
    if kind == "contradicts":
        return tr("May conflict with: “{text}”").format(text=neighbour.text)
    if kind == "update":
        return tr("Updates: “{text}”").format(text=neighbour.text)
    if kind == "same":
        return tr("Same as: “{text}”").format(text=neighbour.text)
    return tr("Similar to: “{text}”").format(text=neighbour.text)


def decided_text(proposal: Any) -> str | None:
    """What happened to a decided proposal, as the card says it; None while pending."""
    status = proposal.status
    if status == "pending":
        return None
    if status == "applied":
        if proposal.applied_to == "project" and proposal.applied_project:
            return tr("Saved to Project · {project}").format(project=proposal.applied_project)
        if proposal.applied_to == "user":
            return tr("Saved to User")
        where = _label(LAYER_LABEL, proposal.applied_to or "")
        return tr("Saved to {where}").format(where=where)
    if status == "dismissed":
        return tr("Dismissed")
    if status == "superseded":
        by_text = getattr(proposal, "superseded_by_text", None)
        if by_text:  # in words: the person knows the rule, not its id (issue 32)
            return tr("Replaced by: “{text}”").format(text=by_text)
        if proposal.superseded_by:
            return tr("Superseded by {id}").format(id=proposal.superseded_by)
        return tr("Superseded")
    return str(status)


@dataclass(frozen=True)
class CardSnapshot:
    """One card as the kernel saw it when the output was made (the MIME payload's entry).

    ``project`` is where **Project** applies: the proposal's own project, else
    the project the kernel worked in. ``status`` is ``missing`` (with ``note``)
    when the proposal could not be read.
    """

    id: str
    kind: str = ""
    text: str = ""
    evidence_quote: str = ""
    origin: str = ""
    source: str = ""
    status: str = "missing"
    outcome: str | None = None
    project: str | None = None
    note: str | None = None
    from_cell: bool = False  # its quote is a notebook cell's: "from a cell"
    replaces: str | None = None  # "Replaces: “…”" when it supersedes a pending proposal
    # The nearest approved and pending entries while pending ("May conflict with: “…”").
    context: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "context": list(self.context)}

    def plain_text(self) -> str:
        if self.status == "missing":
            note = self.note or tr("not found")
            return tr("proposal {id}: {note}").format(id=self.id, note=note)
        kind = _label(KIND_LABEL, self.kind)
        state = self.outcome or tr("pending · {how}").format(how=decide_line(self.id))
        replaces = "".join(f"\n  {line}" for line in (self.replaces, *self.context) if line)
        return (
            f"[{kind}] {self.text}\n  “{self.evidence_quote}” — {self.where()}{replaces}\n  {state}"
        )

    def where(self) -> str:
        """Where the quote came from, then the proposal's source."""
        source = source_label(self.source, self.from_cell) if self.source else ""
        return " · ".join(part for part in (self.origin, source) if part)

    def html(self) -> str:
        head = f'<div style="{MUTED_CSS}">{_e(tr("proposal"))} <code>{_e(self.id)}</code></div>'
        if self.status == "missing":
            return f'<div style="{CARD_CSS}">{head}<div>{_e(self.note)}</div></div>'
        kind = _label(KIND_LABEL, self.kind)
        body = (
            f'<div><span style="font-weight:600">{_e(kind)}</span> · <span>{visible_html(self.text)}</span></div>'
            f'<div style="{MUTED_CSS}">“{visible_html(self.evidence_quote)}” — {visible_html(self.where())}</div>'
        )
        for line in (self.replaces, *self.context):  # they quote stored texts: shown visibly
            if line:
                body += f'<div style="{MUTED_CSS}">{visible_html(line)}</div>'
        if self.outcome:
            state = f"<div><b>{_e(self.outcome)}</b></div>"
        else:
            # the translation is escaped as a whole; the code lines go in as <code>
            how = _e(
                tr(
                    "Decide it in the Agent Memory panel, or in a cell with {cell},"
                    " or in a terminal with {terminal}."
                )
            ).format(
                cell=f"<code>{_e(decide_line(self.id))}</code>",
                terminal=f"<code>{_e(cli_line(self.id))}</code>",
            )
            state = f"<div><b>{_e(tr('Pending when this output was made.'))}</b> {how}</div>"
        return f'<div style="{CARD_CSS}">{body}{state}{head}</div>'


def decide_line(proposal_id: str) -> str:
    return f"%memory apply {proposal_id} --to user | --to project · %memory dismiss {proposal_id}"


def cli_line(proposal_id: str) -> str:
    return f"jupyter-memory apply {proposal_id} --to user · jupyter-memory dismiss {proposal_id}"


class ProposalCards:
    """Cards for ``ids`` as one notebook output (see the module docstring).

    The snapshot is read when the output is rendered, so ``%memory queue``
    shown again reflects the queue at that moment.
    """

    def __init__(self, session: Any, ids: list[str]) -> None:
        self.session = session
        self.ids = list(ids)

    def __len__(self) -> int:
        return len(self.ids)

    def snapshots(self) -> list[CardSnapshot]:
        with self.session.lock:
            mem = self.session.memory
            focused = mem.project_id
            labels = getattr(self.session, "cell_labels", None)
            return [_snapshot(mem, pid, focused, labels) for pid in self.ids]

    def __getitem__(self, index: int) -> CardSnapshot:
        return self.snapshots()[index]

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        return cards_bundle(self.snapshots())


def cards_bundle(cards: list[CardSnapshot]) -> dict[str, Any]:
    """The MIME bundle of these cards: our payload, and HTML and text for other viewers."""
    return {
        PROPOSAL_MIME: {"version": PAYLOAD_VERSION, "cards": [c.to_dict() for c in cards]},
        "text/html": "".join(c.html() for c in cards),
        "text/plain": visible("\n".join(c.plain_text() for c in cards)),
    }


def snapshots_of(mem: Any, ids: list[str], focused: str | None = None) -> list[CardSnapshot]:
    """The cards of ``ids`` as ``mem`` reads them now (a chat's cards, agents/chat_cards.py)."""
    return [_snapshot(mem, pid, focused, None) for pid in ids]


def _snapshot(
    mem: Any, proposal_id: str, focused: str | None, labels: dict[str, str] | None
) -> CardSnapshot:
    try:
        p = mem.proposal(proposal_id)
    except JupyterMemoryError as exc:
        return CardSnapshot(id=proposal_id, note=exc.localized())
    return CardSnapshot(
        id=p.id,
        kind=p.kind,
        text=p.text,
        evidence_quote=p.evidence_quote,
        origin=origin_label(p, labels),
        source=p.source,
        from_cell=from_cell(p),
        status=p.status,
        outcome=decided_text(p),
        project=p.project or focused,
        replaces=replaces_text(p),
        context=tuple(neighbour_line(n) for n in mem.hooks.decision_context([p]).get(p.id, [])),
    )


__all__ = [
    "PROPOSAL_MIME",
    "CardSnapshot",
    "ProposalCards",
    "cards_bundle",
    "decided_text",
    "origin_label",
    "replaces_text",
    "snapshots_of",
]
