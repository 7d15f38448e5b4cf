"""Cards in notebooks (spec 002 §4.4).

Proposal cards (``cards.py``) and the review cards of ``%memories --review``
(``review_cards.py``) are outputs of our own MIME types rendered by the lab
extension from the live state over REST, with an HTML fallback; neither
imports ipywidgets (issue 15).
"""

from __future__ import annotations

from .cards import PROPOSAL_MIME, CardSnapshot, ProposalCards
from .review_cards import REVIEW_MIME, ReviewCards, ReviewSnapshot

__all__ = [
    "PROPOSAL_MIME",
    "REVIEW_MIME",
    "CardSnapshot",
    "ProposalCards",
    "ReviewCards",
    "ReviewSnapshot",
]
