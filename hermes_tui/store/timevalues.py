"""Time values of the prune/archive/export filters: durations, bare days, ISO timestamps.

Accepted forms (SPEC §7, as Hermes' ``session_filters``):

* a bare number of days, integer or decimal (``90``, ``0.5``);
* a number and a unit, optional space, any case: ``s sec secs second seconds``,
  ``m min mins minute minutes``, ``h hr hrs hour hours``, ``d day days``,
  ``w wk wks week weeks`` (no months or years: their length is ambiguous);
  a duration means "that long before now";
* an ISO timestamp (``2026-07-05``, ``2026-07-05 14:30``, ``2026-07-05T14:30:00+02:00``);
  a naive one is local time, an offset is honoured.

Every value becomes epoch seconds once, when the filter is built, so a preview and the
execution that re-checks it use exactly the same bounds.
"""

from __future__ import annotations

import math
import re
from datetime import datetime

ACCEPTED_FORMS = (
    "Use a duration like '5h', '30m', '2d', '1w', a bare number of days, or an ISO "
    "timestamp like '2026-07-05' or '2026-07-05 14:30'."
)

_UNIT_SECONDS = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1.0),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60.0),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600.0),
    **dict.fromkeys(("d", "day", "days"), 86_400.0),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), 604_800.0),
}
_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)")


class FilterError(ValueError):
    """A filter the user gave cannot be used; the message is one line for the user."""


def invalid(flag: str, value: object, forms: str = ACCEPTED_FORMS) -> FilterError:
    return FilterError(f"Invalid value for {flag}: {str(value)!r}. {forms}")


def parse_duration(text: str) -> float | None:
    """Seconds for a duration or a bare number of days; None if *text* is not one."""
    match = _DURATION.fullmatch(text.strip().lower())
    if match is None:
        return None
    number, unit = match.groups()
    if unit and unit not in _UNIT_SECONDS:
        return None
    seconds = float(number) * (_UNIT_SECONDS[unit] if unit else 86_400.0)
    return seconds if math.isfinite(seconds) else None


def parse_timestamp(text: str) -> float | None:
    """Epoch seconds of an ISO timestamp (naive = local time); None if it is not one."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    try:
        return moment.timestamp()  # a naive datetime is taken as local time
    except (OverflowError, OSError, ValueError):
        return None


def parse_time_value(flag: str, value: str | float, now: float) -> float:
    """The epoch-seconds bound *value* stands for; raises FilterError naming *flag*."""
    if isinstance(value, bool):
        raise invalid(flag, value)
    if isinstance(value, int | float):
        if not math.isfinite(value) or value < 0:
            raise invalid(flag, value)
        return now - float(value) * 86_400.0
    text = str(value)
    seconds = parse_duration(text)
    if seconds is not None:
        return now - seconds
    moment = parse_timestamp(text)
    if moment is None:
        raise invalid(flag, value)
    return moment
