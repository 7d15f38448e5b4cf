"""ipywidgets proposal cards (spec 002 §4.4). ipywidgets is imported only here."""

from __future__ import annotations

from .cards import ProposalCard, ProposalCards

__all__ = ["ProposalCard", "ProposalCards"]
