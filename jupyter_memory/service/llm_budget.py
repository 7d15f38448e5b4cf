"""One daily budget for every background LLM use: extraction, digests, reorganize (issue 32).

Settings ``llm_budget`` = ``{"calls_per_day": 40, "tokens_per_day": 200000}``
(the defaults, docs/knowledge.md "LLM budget"); what was spent today is in
the memory home (:mod:`jupyter_memory.store.llm_spend`), shared by every
process. A *background* call (an automatic extraction at a conversation
boundary, an automatic digest, the pre-inject reorganize) is refused with
:class:`~jupyter_memory.exceptions.LLMBudgetSpentError` once the budget is
spent — the caller says so (kernel output, log), never silently. A person's
explicit request (``%memory suggest``, Reorganize, ``%memory digest``) runs
anyway and its result says that it went over.

Tokens are the server's ``usage.total_tokens`` when the client reports it
(``last_usage``), else an estimate from the text (:func:`~jupyter_memory.core.llm.estimate_tokens`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .._i18n import M_
from ..core.llm import ChatMessage, LLMClient, estimate_tokens
from ..exceptions import LLMBudgetSpentError, ValidationError
from ..store.llm_spend import LLMSpendFile

DEFAULT_LLM_BUDGET: dict[str, int] = {"calls_per_day": 40, "tokens_per_day": 200_000}
USES = ("extraction", "digest", "reorganize")
_USE_WORDS = {
    "extraction": M_("extraction"),
    "digest": M_("digests"),
    "reorganize": M_("reorganizing"),
}


def check_llm_budget(value: Any) -> dict[str, int]:
    """``{"calls_per_day": n, "tokens_per_day": n}`` (either may be left out: the default)."""
    if not isinstance(value, Mapping):
        raise ValidationError(
            M_("must be an object with calls_per_day and tokens_per_day"), field="llm_budget"
        )
    unknown = sorted(set(value) - set(DEFAULT_LLM_BUDGET))
    if unknown:
        raise ValidationError(M_("unknown keys {unknown}", unknown=unknown), field="llm_budget")
    out = dict(DEFAULT_LLM_BUDGET)
    for key in DEFAULT_LLM_BUDGET:
        if key in value:
            n = value[key]
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise ValidationError(
                    M_("must be a whole number of 0 or more"), field=f"llm_budget.{key}"
                )
            out[key] = n
    return out


@dataclass(frozen=True)
class LLMSpend:
    """Today's LLM spend against the budget."""

    day: str
    calls: int
    tokens: int
    calls_per_day: int
    tokens_per_day: int
    uses: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def spent(self) -> bool:
        return self.calls >= self.calls_per_day or self.tokens >= self.tokens_per_day

    def describe(self) -> str:
        return M_(
            "{calls} of {calls_limit} calls, {tokens:,} of {tokens_limit:,} tokens today",
            calls=self.calls,
            calls_limit=self.calls_per_day,
            tokens=self.tokens,
            tokens_limit=self.tokens_per_day,
        )

    def notice(self, use: str) -> str:
        """The line a person sees when background LLM work stops."""
        return M_(
            "today's LLM budget is spent ({spend}): no more background {use} until tomorrow"
            " (change llm_budget with %memory settings or in settings.json)",
            spend=self.describe(),
            use=_USE_WORDS.get(use, use),
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "spent": self.spent}


@dataclass(frozen=True)
class MeteredReply:
    text: str
    over_budget: bool  # an explicit request that went over today's budget
    spend: LLMSpend


class LLMBudget:
    def __init__(
        self,
        home: Path,
        read_settings: Callable[[], Mapping[str, Any]],
        clock: Callable[[], datetime],
    ) -> None:
        self.file = LLMSpendFile(home)
        self.read_settings = read_settings  # the person's settings (the budget's limits)
        self.clock = clock

    def _day(self) -> str:
        return self.clock().astimezone().date().isoformat()

    def spend(self) -> LLMSpend:
        """Today's background-and-explicit LLM spend against the ``llm_budget`` setting."""
        limits = check_llm_budget(self.read_settings().get("llm_budget") or {})
        data = self.file.read(self._day())
        return LLMSpend(data["day"], data["calls"], data["tokens"], **limits, uses=data["uses"])

    def complete(
        self,
        client: LLMClient,
        messages: Sequence[ChatMessage],
        *,
        use: str,
        background: bool,
        max_tokens: int = 2_000,
    ) -> MeteredReply:
        """One LLM call, counted; refused when ``background`` and today's budget is spent."""
        before = self.spend()
        if before.spent and background:
            raise LLMBudgetSpentError(before.notice(use))
        reply = client.complete(messages, max_tokens=max_tokens)
        usage = getattr(client, "last_usage", None)
        tokens = usage if isinstance(usage, int) and usage >= 0 else None
        if tokens is None:
            tokens = sum(estimate_tokens(m.get("content", "")) for m in messages)
            tokens += estimate_tokens(reply)
        data = self.file.add(self._day(), use, tokens)
        after = LLMSpend(
            data["day"],
            data["calls"],
            data["tokens"],
            before.calls_per_day,
            before.tokens_per_day,
            data["uses"],
        )
        over = (
            before.spent or after.calls > after.calls_per_day or after.tokens > after.tokens_per_day
        )
        return MeteredReply(reply, over, after)

    def client(self, client: LLMClient, *, use: str, background: bool) -> MeteredClient:
        """``client`` behind this budget, for code that takes an :class:`LLMClient`."""
        return MeteredClient(self, client, use=use, background=background)


class MeteredClient:
    """An :class:`LLMClient` whose every call is counted (and refused when spent, in background)."""

    def __init__(self, budget: LLMBudget, inner: LLMClient, *, use: str, background: bool) -> None:
        self.budget = budget
        self.inner = inner
        self.use = use
        self.background = background
        self.went_over = False
        self.spend: LLMSpend | None = None

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 2_000) -> str:
        got = self.budget.complete(
            self.inner, messages, use=self.use, background=self.background, max_tokens=max_tokens
        )
        self.went_over = self.went_over or got.over_budget
        self.spend = got.spend
        return got.text


def going_over_note(spend: LLMSpend) -> str:
    """Said before a person's request that will go over today's already spent budget."""
    return M_(
        "today's LLM budget is already spent ({spend}): this request runs anyway, past it",
        spend=spend.describe(),
    )


def over_budget_note(spend: LLMSpend) -> str:
    """What an explicit request says when it went over today's budget."""
    return M_("this request went over today's LLM budget ({spend})", spend=spend.describe())


__all__ = [
    "DEFAULT_LLM_BUDGET",
    "USES",
    "LLMBudget",
    "LLMSpend",
    "MeteredClient",
    "MeteredReply",
    "check_llm_budget",
    "going_over_note",
    "over_budget_note",
]
