"""Proposal cards: one card per queued proposal with **User**, **Project**, **Dismiss**.

A card always reflects the queue, never its own memory: it reads the
proposal's status from the service before rendering and before acting, so a
card for a proposal decided elsewhere (another card, the CLI, the lab panel)
shows the decided state, and a click on it says "already saved / already
dismissed" without writing again. Every stored string is escaped.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as w

from ..exceptions import JupyterMemoryError
from ..service.knowledge.results import DecisionResult

KIND_LABEL = {"rule": "Rule", "info": "Info"}
LAYER_LABEL = {"user": "User", "project": "Project"}
CARD_CSS = "border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:4px 0"


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def origin_label(proposal: Any, labels: dict[str, str] | None = None) -> str:
    """Where the quote came from: "cell 12", "message m-7", the notebook's name.

    ``labels`` maps cell ids captured in this kernel to their execution count;
    other cells (markdown, earlier sessions) show a short id.
    """
    origin = getattr(proposal, "quote_origin", None)
    cell = getattr(origin, "cell_id", None)
    parts = []
    if cell and labels and cell in labels:
        parts.append(labels[cell])
    elif cell:
        parts.append(f"cell {cell[3:-1]}" if cell.startswith("In[") else f"cell {cell[:8]}")
    msg = getattr(origin, "message_id", None)
    if msg:
        parts.append(f"message {msg}")
    nb = getattr(origin, "notebook_path", None)
    if nb:
        parts.append(str(nb).rsplit("/", 1)[-1])
    return " · ".join(parts) or str(getattr(proposal, "source", ""))


class ProposalCard:
    """A card bound to one proposal id; the queue is the source of truth."""

    def __init__(self, session: Any, proposal_id: str) -> None:
        self.session = session
        self.id = proposal_id
        self.user_button = w.Button(description="User", tooltip="Apply to your User knowledge")
        self.project_button = w.Button(description="Project", tooltip="Apply to Project knowledge")
        self.dismiss_button = w.Button(description="Dismiss", tooltip="Never suggest this again")
        self.project_picker = w.Dropdown(description="Project:", layout=w.Layout(width="260px"))
        self.body = w.HTML()
        self.message = w.HTML()
        self.widget = w.VBox(layout=w.Layout(border="1px solid #d0d7de", padding="4px 8px"))
        self.user_button.on_click(lambda _: self.apply("user"))
        self.project_button.on_click(lambda _: self.apply("project"))
        self.dismiss_button.on_click(lambda _: self.dismiss())
        self.proposal: Any = None
        self.note = ""  # the last confirmation or error as plain text
        self.refresh()

    # -- reading the queue ------------------------------------------------------------

    def _load(self) -> Any:
        with self.session.lock:
            return self.session.memory.proposal(self.id)

    def refresh(self) -> None:
        """Re-read the proposal and redraw (decided proposals lose their buttons)."""
        try:
            self.proposal = self._load()
        except JupyterMemoryError as exc:
            self.body.value = f"<b>Proposal {_e(self.id)}</b>"
            self._error(exc)
            self.widget.children = [self.body, self.message]
            return
        self._draw_body()
        if self.proposal.status == "pending":
            self._draw_pending()
        else:
            self.widget.children = [self.body, self.message]
            self._say(self.decided_text(), bold=True)

    def _draw_body(self) -> None:
        p = self.proposal
        kind = KIND_LABEL.get(p.kind, p.kind)
        self.body.value = (
            f'<div><span style="font-weight:600">{_e(kind)}</span> · '
            f"<span>{_e(p.text)}</span></div>"
            f'<div style="color:#57606a">“{_e(p.evidence_quote)}” — {_e(self.origin())}'
            f" · {_e(p.source)}</div>"
        )

    def _project_choice(self) -> tuple[str | None, list[str]]:
        with self.session.lock:
            mem = self.session.memory
            focused = mem.project_id
            known = sorted(mem.known_projects())
        return self.proposal.project or focused, known

    def _draw_pending(self) -> None:
        preset, known = self._project_choice()
        buttons = [self.user_button, self.project_button, self.dismiss_button]
        for b in buttons:
            b.button_style = ""
        children: list[Any] = [self.body, w.HBox(buttons)]
        if preset:
            self.project_button.button_style = "primary"  # preselected: the focused project
            self.project_button.description = "Project"
            self.project_button.tooltip = f"Apply to Project knowledge of {preset}"
        else:
            self.project_picker.options = [("Pick a project…", None)] + [(k, k) for k in known]
            self.project_picker.value = None
            children.append(self.project_picker)
        children.append(self.message)
        self.widget.children = children

    # -- acting -----------------------------------------------------------------------

    def decided_text(self) -> str:
        p = self.proposal
        if p.status == "applied":
            where = LAYER_LABEL.get(p.applied_to or "", p.applied_to or "")
            if p.applied_to == "project" and p.applied_project:
                return f"Saved to Project · {p.applied_project}"
            return f"Saved to {where}"
        if p.status == "dismissed":
            return "Dismissed"
        if p.status == "superseded":
            return f"Superseded by {p.superseded_by}" if p.superseded_by else "Superseded"
        return str(p.status)

    def _stale(self) -> bool:
        """True (and the card redrawn) when the queue says it was already decided."""
        try:
            self.proposal = self._load()
        except JupyterMemoryError as exc:
            self._error(exc)
            return True
        if self.proposal.status == "pending":
            return False
        already = "Already dismissed" if self.proposal.status == "dismissed" else "Already saved"
        if self.proposal.status == "superseded":
            already = "Already replaced"
        self.refresh()
        self._say(f"{self.decided_text()} ({already}; nothing written)", bold=True)
        return True

    def apply(self, to: str) -> None:
        if self._stale():
            return
        project = None
        if to == "project":
            preset, _ = self._project_choice()
            project = preset or self.project_picker.value
            if project is None:
                self._say("Pick a project first (or focus one with %memory focus)", bold=True)
                return
        try:
            with self.session.lock:
                result = self.session.memory.apply(self.id, to=to, project=project)
        except JupyterMemoryError as exc:
            self._error(exc)
            return
        self._decided(result)

    def dismiss(self) -> None:
        if self._stale():
            return
        try:
            with self.session.lock:
                result = self.session.memory.dismiss(self.id)
        except JupyterMemoryError as exc:
            self._error(exc)
            return
        self._decided(result)

    def _decided(self, result: DecisionResult) -> None:
        """Redraw from the queue and add the short confirmation (or "already …")."""
        self.refresh()
        if result.status.startswith("already_"):
            note = result.status.replace("_", " ").capitalize() + "; nothing written"
        elif result.path:
            note = f"written to {result.path}"
        else:
            note = ""
        self._say(f"{self.decided_text()} — {note}" if note else self.decided_text(), bold=True)

    def _say(self, text: str, *, bold: bool = False) -> None:
        self.note = text
        self.message.value = f"<b>{_e(text)}</b>" if bold else _e(text)

    def _error(self, exc: Exception) -> None:
        self.note = f"Error: {exc}"
        self.message.value = f'<span style="color:#cf222e">{_e(self.note)}</span>'

    # -- display ----------------------------------------------------------------------

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        self.refresh()  # re-rendering shows what the queue says now
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = self.plain_text()
        return bundle

    def plain_text(self) -> str:
        p = self.proposal
        if p is None:
            return f"proposal {self.id}"
        state = (
            "pending: User / Project / Dismiss" if p.status == "pending" else self.decided_text()
        )
        kind = KIND_LABEL.get(p.kind, p.kind)
        text = f"[{kind}] {p.text}\n  “{p.evidence_quote}” — {self.origin()}\n  {state}"
        return f"{text}\n  {self.note}" if self.note and self.note != state else text

    def origin(self) -> str:
        return origin_label(self.proposal, getattr(self.session, "cell_labels", None))


class ProposalCards:
    """Several cards shown together; also refreshed on the service's queue-change event."""

    def __init__(self, session: Any, ids: list[str]) -> None:
        self.cards = [ProposalCard(session, pid) for pid in ids]
        self.widget = w.VBox([c.widget for c in self.cards])
        self._unsubscribe = session.memory.on_queue_change(self._on_change)

    def _on_change(self, event: dict[str, Any]) -> None:
        for card in self.cards:
            if card.id == event.get("id") and card.proposal is not None:
                card.refresh()

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, index: int) -> ProposalCard:
        return self.cards[index]

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        for card in self.cards:
            card.refresh()
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = "\n".join(c.plain_text() for c in self.cards)
        return bundle
