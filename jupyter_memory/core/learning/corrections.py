"""Corrections and repeated gotchas → candidate rules with a confidence (spec 003, 自学习).

Pure: detection of a correction in the person's reply to the assistant, and the
confidence arithmetic of a candidate rule. Nothing here proposes or applies
anything; a caller turns a candidate into a queue proposal only when
:func:`ready` says so, and the person decides.

Confidence = evidence × recency (spec 003, "Score = evidence * recency"):

* ``evidence_factor(n) = 1 - FIRST_GAP × GAP_RATIO^(n-1)`` — chosen so one
  correction scores 0.30 and five score 0.95, the two points of the spec's
  example ("use npm not yarn": session 1 → 0.3, five times → 0.95);
* ``recency = 0.5^(days since the newest evidence / HALF_LIFE_DAYS)``;
* only evidence newer than the last dismissal counts: a dismissal drops the
  confidence to zero and the candidate needs new evidence to come back.

A candidate is ready when confidence > 0.9 with ≥ 5 pieces of evidence
(defaults; both configurable).

Repeated gotchas (spec 003: an error seen 3 times is a gotcha; a gotcha that
persists over 5+ sessions becomes a warning proposal): a session where the same
exception signature failed ``GOTCHA_REPEATS`` times in the person's own cells
is one piece of evidence for the candidate ``gotcha:<signature>`` — at most one
per session — and the same confidence and thresholds apply.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from ...exceptions import ValidationError
from ..knowledge.evidence import check_quote_shape
from ..text import normalize, squash_whitespace

FIRST_GAP = 0.7  # 1 - confidence of a single piece of evidence (0.3)
GAP_RATIO = 0.517  # makes five pieces of evidence 0.95
HALF_LIFE_DAYS = 30.0
MIN_CONFIDENCE = 0.9
MIN_EVIDENCE = 5
MAX_RULE_CHARS = 200
GOTCHA_REPEATS = 3  # failures of one signature in one session that make a gotcha
GOTCHA_RULE = "Watch out: `{line}` fails with {signature}."
GOTCHA_RULE_PLAIN = "Watch out: a step fails with {signature}."

_EN_USE_NOT = re.compile(
    r"^(?:no|nope|wrong)?[,.!\s]*(?:please\s+)?(?:use|we use|it should be|should be)\s+"
    r"(?P<x>[^,;]+?),?\s+(?:not|instead of)\s+(?P<y>[^,;.]+)",
    re.IGNORECASE,
)
_EN_DONT = re.compile(
    r"^(?:no|nope)?[,.!\s]*(?:don't|do not|never)\s+(?P<rule>[^,;.]{4,})", re.IGNORECASE
)
_ZH_USE_NOT = re.compile(
    r"(?:应该|要|请)?用(?P<x>[^，,。；;]+?)[，,]?\s*(?:而)?不(?:是用|要用|是|要|用)(?P<y>[^，,。；;]+)"
)
_ZH_WRONG = re.compile(r"^(?:不对|不是这样|错了)[，,。!！\s]*(?:应该|要|请)(?P<x>[^。！!？?]{2,})")
_ZH_DONT = re.compile(r"^(?:不要|别|禁止)(?P<rule>[^。！!？?]{3,})")


@dataclass(frozen=True)
class Correction:
    """A rule the person stated while correcting the assistant, in their words."""

    rule: str
    quote: str

    @property
    def key(self) -> str:
        return squash_whitespace(normalize(self.rule)).rstrip("。.!！")


def detect_correction(reply_to_assistant: str) -> Correction | None:
    """The rule in a person's reply that corrects the assistant, or None.

    Only explicit forms count: "no, use X not Y", "don't …", "不对，应该…",
    "用X不用Y", "不要…". The quote is the person's whole sentence, verbatim.
    """
    text = reply_to_assistant.strip()
    if not text or len(text) > 2 * MAX_RULE_CHARS or text.endswith(("?", "？")):
        return None
    first = re.split(r"(?<=[。！？!?])\s*|\n", text, maxsplit=1)[0].strip()
    match = _EN_USE_NOT.search(first)
    if match:
        return Correction(f"Use {match['x'].strip()}, not {match['y'].strip()}.", first)
    match = _ZH_USE_NOT.search(first)
    if match and re.match(r"^(?:不对|不是|错了|应该|要|请|用)", first):
        return Correction(f"用{match['x'].strip()}，不用{match['y'].strip()}。", first)
    match = _ZH_WRONG.match(first)
    if match:
        return Correction(f"应该{match['x'].strip().rstrip('。')}。", first)
    match = _EN_DONT.match(first)
    if match:
        return Correction(f"Don't {match['rule'].strip()}.", first)
    match = _ZH_DONT.match(first)
    if match:
        return Correction(f"不要{match['rule'].strip().rstrip('。')}。", first)
    return None


@dataclass(frozen=True)
class Evidence:
    session: str
    quote: str
    at: datetime


@dataclass
class LearningCandidate:
    """A candidate rule: its evidence and the person's dismissals."""

    key: str
    rule: str
    source: str  # "correction" or "gotcha"
    evidence: list[Evidence] = field(default_factory=list)
    dismissals: list[tuple[datetime, str]] = field(default_factory=list)

    def live_evidence(self) -> list[Evidence]:
        if not self.dismissals:
            return list(self.evidence)
        last = max(at for at, _ in self.dismissals)
        return [e for e in self.evidence if e.at > last]


def same_candidate(rule: str, candidates: Iterable[LearningCandidate]) -> LearningCandidate | None:
    """The correction candidate that is this rule in other words (issue 32), if any.

    "Don't use the legacy_orders table." and "Don't use legacy_orders." are one
    candidate collecting evidence, decided by the identity module like the queue.
    """
    # Imported here: the learning services are built with every kernel's first cell,
    # and only a correction to match needs the identity analysis loaded.
    from ..knowledge.identity import same_entry

    for cand in candidates:
        if cand.source == "correction" and same_entry(rule, cand.rule):
            return cand
    return None


def evidence_factor(count: int) -> float:
    if count <= 0:
        return 0.0
    return float(1.0 - FIRST_GAP * GAP_RATIO ** (count - 1))


def recency(newest: datetime, now: datetime) -> float:
    days = max(0.0, (now - newest).total_seconds() / 86400.0)
    return float(0.5 ** (days / HALF_LIFE_DAYS))


def confidence(candidate: LearningCandidate, now: datetime) -> float:
    live = candidate.live_evidence()
    if not live:
        return 0.0
    return evidence_factor(len(live)) * recency(max(e.at for e in live), now)


def ready(
    candidate: LearningCandidate,
    now: datetime,
    *,
    min_confidence: float = MIN_CONFIDENCE,
    min_evidence: int = MIN_EVIDENCE,
) -> bool:
    """Past both thresholds: the candidate may become a queue proposal (never applied)."""
    return (
        len(candidate.live_evidence()) >= min_evidence
        and confidence(candidate, now) > min_confidence
    )


def add_evidence(candidate: LearningCandidate, evidence: Evidence) -> bool:
    """Add a piece of evidence unless the same quote from the same session is there."""
    for known in candidate.evidence:
        if (
            known.session == evidence.session
            and known.quote == evidence.quote
            and (known.at == evidence.at)
        ):
            return False
    candidate.evidence.append(evidence)
    return True


def dismiss(candidate: LearningCandidate, at: datetime, reason: str) -> None:
    """The person said no: confidence drops to zero until new evidence arrives."""
    candidate.dismissals.append((at, reason))


@dataclass(frozen=True)
class Thresholds:
    """What a candidate must pass before it becomes a queue proposal (shown to the person)."""

    min_confidence: float = MIN_CONFIDENCE
    min_evidence: int = MIN_EVIDENCE
    half_life_days: float = HALF_LIFE_DAYS
    gotcha_repeats: int = GOTCHA_REPEATS

    def to_dict(self) -> dict[str, float | int]:
        return {
            "min_confidence": self.min_confidence,
            "min_evidence": self.min_evidence,
            "half_life_days": self.half_life_days,
            "gotcha_repeats": self.gotcha_repeats,
        }


def usable_quote(text: str) -> bool:
    """Long enough (and short enough) to be a proposal's evidence quote (invariant 4)."""
    try:
        check_quote_shape(text)
    except ValidationError:
        return False
    return True


def gotcha_quote(line: str | None, cell_text: str) -> str:
    """The quote of a repeated error: the failing line when it can stand as evidence,
    else the person's whole cell, verbatim (a one-token line such as ``x`` cannot)."""
    if line and usable_quote(line):
        return line
    return cell_text.strip() or (line or "")


def proposal_quote(candidate: LearningCandidate, *, live_only: bool = True) -> str | None:
    """The newest piece of evidence whose quote can back a proposal, or None."""
    pool = candidate.live_evidence() if live_only else list(candidate.evidence)
    for piece in sorted(pool, key=lambda e: e.at, reverse=True):
        if usable_quote(piece.quote):
            return piece.quote
    return None


def candidate_status(candidate: LearningCandidate, proposal_id: str | None, now: datetime) -> str:
    """``proposed``, ``ready``, ``blocked`` (ready, but no quote can back a proposal),
    ``rejected`` (dismissed, no evidence since) or ``collecting``."""
    if proposal_id is not None:
        return "proposed"
    live = candidate.live_evidence()
    if candidate.dismissals and not live:
        return "rejected"
    if ready(candidate, now):
        return "ready" if proposal_quote(candidate) is not None else "blocked"
    return "collecting"
