"""Bounded memos that make room a little at a time.

A memo emptied whole when it fills makes one unlucky decision pay for freeing every entry (a few
milliseconds for thousands of them); :func:`make_room` drops the oldest few entries instead, so no
single decision pays more than a small, fixed amount (issue 16: every decision within 1 ms, however
many distinct operations a hostile estate asks about).
"""

from __future__ import annotations

from itertools import islice
from typing import Any

__all__ = ["make_room"]

BATCH = 64
"""Entries dropped at a time: the oldest (a dict keeps insertion order)."""


def make_room(memo: dict[Any, Any], limit: int) -> None:
    """Drop the oldest :data:`BATCH` entries of ``memo`` when it holds ``limit`` or more."""
    if len(memo) >= limit:
        for key in list(islice(memo, BATCH)):
            del memo[key]
