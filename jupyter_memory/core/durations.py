"""Parse relative windows such as ``7d``, ``12h``, ``2w`` (``--recent 7d``)."""

from __future__ import annotations

import re
from datetime import timedelta

from .._i18n import M_
from ..exceptions import ValidationError

_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_RE = re.compile(r"^\s*(\d{1,5})\s*([mhdw])\s*$")


def parse_duration(value: str, *, field: str = "recent") -> timedelta:
    m = _RE.match(value or "")
    if not m:
        raise ValidationError(
            M_("{value!r} is not a duration like 30m, 12h, 7d or 2w", value=value), field=field
        )
    return timedelta(**{_UNITS[m.group(2)]: int(m.group(1))})
