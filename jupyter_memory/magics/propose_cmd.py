"""``%memory propose TEXT [--quote Q] [--kind rule|info] [--to user|project]``.

The person's explicit request for one proposal card (issue 32 item 1). The
evidence is the text itself, typed in this very cell (its source), or a
``--quote`` of the person's own words: in the text, or in a recent cell or the
markdown above it; a quote found in none is refused. Like every proposal it
goes through the secret guard (service ``propose``) and, like an agent's,
refuses a control, escape or direction character, naming it. It makes exactly
one card, or says why none (a repeat of an approved, pending or dismissed entry).
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from .._i18n import localized, tr
from ..agents.ask_magic import running_cell_id
from ..core.knowledge.extract import classify, note_of
from ..core.visible import refuse_hidden
from ..service.knowledge.notebook_evidence import round_messages
from .args import argument, joined, magic_arguments, parse_with_text
from .host import MagicsHost
from .render import TextBlock


@magic_arguments()
@argument("text", nargs="*", help=tr("the rule or fact to propose"))
@argument("--quote", help=tr("the words of yours it rests on (default: the text itself)"))
@argument(
    "--kind",
    choices=["rule", "info"],
    help=tr("Rule or Info (default: from a note marker, else from the wording, else info)"),
)
@argument(
    "--to",
    choices=["user", "project"],
    help=tr("the layer it is suggested for (default: the focused project, else user)"),
)
def propose(self: MagicsHost, line: str) -> Any:
    """Propose one knowledge entry for review (a card under this cell). Examples::

    %memory propose Revenue excludes refunds
    %memory propose Refunds older than 90 days are write-offs --kind info --to project
    %memory propose "Revenue excludes refunds" --quote "refunds are not revenue"
    """
    args = parse_with_text(propose, line, "text")
    text = joined(args.text)
    if not text:
        raise UsageError(tr("%memory propose needs text: %memory propose Revenue excludes refunds"))
    note = note_of(text)  # "%memory propose rule: …": the marker picks the kind, as in a cell
    kind = args.kind or (note.kind if note else classify(text) or "info")
    body = note.text if note else text
    quote = args.quote if args.quote is not None else text
    notebook = self._locate_notebook()
    nb_path = str(notebook) if notebook else None
    this_cell = {
        "role": "code",
        "text": text,
        "cell_id": running_cell_id(self.shell) or f"In[{self.shell.execution_count}]",
        "notebook_path": nb_path,
    }
    # A quote is the person's words: this cell's text, else a recent cell or its markdown.
    messages = [this_cell, *round_messages(tuple(self.capture.cells), notebook, self.recent_cells)]
    # Reviewed later as a card: what it shows must be what it is, as for an
    # agent's proposal (propose_knowledge refuses hidden characters the same way).
    refuse_hidden(body, field="text")
    refuse_hidden(quote, field="evidence_quote")
    with self.session.lock:
        result = self.service.propose(
            body, kind, quote, layer=args.to, source="manual", messages=messages
        )
    if result.proposal is None:
        return TextBlock(tr("No proposal: {reason}").format(reason=localized(result.reason)))
    from ..widgets import ProposalCards

    return ProposalCards(self.session, [result.proposal.id])
