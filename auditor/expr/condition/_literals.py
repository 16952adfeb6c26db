"""Reading the typed values conditions compare: date-times, GUIDs, 64-bit integers."""

from __future__ import annotations

import calendar
import datetime as _dt
import re

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

_DATETIME = re.compile(
    r"""^\s*
    (?P<y>[0-9]{4})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})
    (?:[Tt\ ](?P<h>[0-9]{2}):(?P<mi>[0-9]{2})
        (?::(?P<s>[0-9]{2})(?:[.,](?P<f>[0-9]+))?)?
    )?
    (?P<tz>[Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)?
    \s*$""",
    re.VERBOSE,
)

_GUID = re.compile(r"^\s*\{?([0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12})\}?\s*$")


def parse_instant(text: str) -> int | None:
    """An ISO 8601 date-time as nanoseconds since 1970-01-01T00:00:00Z, or ``None``.

    Accepts ``yyyy-mm-dd``, ``yyyy-mm-ddThh:mm[:ss[.fffffffff]]`` with ``Z`` or ``±hh:mm``; no
    offset means UTC. Fractions keep nanosecond precision (the vendor writes seven digits);
    digits past the ninth are ignored.
    """
    match = _DATETIME.match(text)
    if not match:
        return None
    parts = match.groupdict()
    try:
        year, month, day = int(parts["y"]), int(parts["mo"]), int(parts["d"])
        hour = int(parts["h"] or 0)
        minute = int(parts["mi"] or 0)
        second = int(parts["s"] or 0)
        _dt.datetime(year, month, day, hour, minute, second)  # range checks
    except ValueError:
        return None
    seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    tz = parts["tz"]
    if tz and tz not in ("Z", "z"):
        sign = -1 if tz[0] == "-" else 1
        digits = tz[1:].replace(":", "")
        off_h, off_m = int(digits[:2]), int(digits[2:4] or 0)
        if off_h > 23 or off_m > 59:
            return None
        seconds -= sign * (off_h * 3600 + off_m * 60)
    fraction = (parts["f"] or "")[:9].ljust(9, "0")
    return seconds * 1_000_000_000 + int(fraction)


def parse_guid(text: str) -> str | None:
    """A GUID (``8-4-4-4-12`` hex digits, braces allowed) in lower case, or ``None``."""
    match = _GUID.match(text)
    return match.group(1).lower() if match else None
