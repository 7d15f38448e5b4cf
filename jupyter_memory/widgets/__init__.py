"""Cards in notebooks (spec 002 §4.4).

Proposal cards (``cards.py``) are outputs of our own MIME type rendered by the
lab extension, with an HTML fallback; they import no ipywidgets. The review
cards of ``%memories --review`` (``review_cards.py``) are still ipywidgets and
import it themselves, when built.
"""

from __future__ import annotations

from .cards import PROPOSAL_MIME, CardSnapshot, ProposalCards

__all__ = ["PROPOSAL_MIME", "CardSnapshot", "ProposalCards"]
