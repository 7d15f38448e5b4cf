"""Event times for session digests (spec 001, "输入时间与出处").

A message's ``timestamp`` is the event time in epoch milliseconds or null; only
a *valid* number becomes an ISO 8601 time. ``recorded_at`` is when the message
was archived and never stands in for the event time, so nothing here reads it.

Validity is deliberately narrow: a finite number (not a bool, not a string)
between 2000-01-01 and the year 9999. The floor catches the most common unit
error — epoch *seconds* read as milliseconds land in January 1970 — instead of
recording a wrong date that looks plausible.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime, timedelta, timezone
from typing import Any

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
MIN_EPOCH_MS = 946_684_800_000  # 2000-01-01T00:00:00Z
MAX_EPOCH_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z

_ISO_RE = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:T(?P<time>\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(?P<offset>Z|[+-]\d{2}:\d{2})?)?$"
)


def event_datetime(value: Any) -> datetime | None:
    """The UTC datetime of an epoch-millisecond ``timestamp``, or None when invalid."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if not MIN_EPOCH_MS <= value <= MAX_EPOCH_MS:
        return None
    # timedelta arithmetic is exact for integers; value / 1000 as a float is not.
    return EPOCH + timedelta(milliseconds=value)


def to_iso(moment: datetime) -> str:
    """ISO 8601 in UTC with millisecond precision and a ``Z`` suffix."""
    text = moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def event_iso(value: Any) -> str | None:
    """ISO 8601 of a valid epoch-millisecond ``timestamp``; None otherwise (never a guess)."""
    moment = event_datetime(value)
    return None if moment is None else to_iso(moment)


def parse_iso8601(value: Any, *, allow_date: bool) -> date | datetime | None:
    """A strict ISO 8601 date or date-time; None when the value is not one.

    A date-time must carry its UTC offset (``Z`` or ``±HH:MM``): a local time
    without one cannot be placed on the time line, and the spec forbids guessing.
    A bare date (``2026-03-06``) is accepted only when ``allow_date`` is true
    (deadlines), never for activity times.
    """
    if not isinstance(value, str):
        return None
    match = _ISO_RE.match(value.strip())
    if match is None:
        return None
    try:
        day = date.fromisoformat(match.group("date"))
    except ValueError:
        return None
    if match.group("time") is None:
        return day if allow_date else None
    offset = match.group("offset")
    if offset is None:
        return None
    offset = "+00:00" if offset == "Z" else offset
    clock = match.group("time")
    if "." in clock:  # Python 3.10 only parses 3 or 6 fraction digits
        whole, fraction = clock.split(".")
        clock = f"{whole}.{fraction.ljust(6, '0')}"
    try:
        moment = datetime.fromisoformat(f"{match.group('date')}T{clock}{offset}")
    except ValueError:
        return None
    return moment
