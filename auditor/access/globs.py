"""Operation globs (semantics §1.5): case-insensitive, ``*`` matches any run of characters (``/``
included) and may appear several times; every other character is literal.

Besides matching one operation, the queries need to reason about patterns against patterns:
:func:`intersects` (some operation matches both) and :func:`covers` (every operation the second
matches, the first matches too).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["compile_globs", "covers", "intersects", "matches"]


def _regex_body(pattern: str) -> str:
    return ".*".join(re.escape(part) for part in pattern.lower().split("*"))


@lru_cache(maxsize=8192)
def _compiled(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    body = "|".join(sorted({_regex_body(p) for p in patterns}))
    return re.compile(f"(?:{body})", re.DOTALL)


def compile_globs(patterns: Iterable[str]) -> re.Pattern[str] | None:
    """One regex matching (``fullmatch``, on the lower-cased operation) any of ``patterns``; None
    when there are none. Identical pattern lists share one compiled regex."""
    return _compiled(tuple(patterns))


def matches(pattern: str, operation: str) -> bool:
    """True when ``operation`` matches the glob ``pattern`` (case-insensitive)."""
    rx = _compiled((pattern,))
    return rx is not None and rx.fullmatch(operation.lower()) is not None


@lru_cache(maxsize=65536)
def intersects(first: str, second: str) -> bool:
    """True when some operation matches both globs.

    The product of the two patterns' automata, explored from the start: a ``*`` may be skipped, a
    ``*`` may swallow a literal of the other pattern, two literals advance together when equal.
    """
    a, b = first.lower(), second.lower()
    n, m = len(a), len(b)
    seen: set[tuple[int, int]] = set()
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if i == n and j == m:
            return True
        ai = a[i] if i < n else None
        bj = b[j] if j < m else None
        if ai == "*":
            stack.append((i + 1, j))
        if bj == "*":
            stack.append((i, j + 1))
        if ai is None or bj is None:
            continue
        if ai == "*" and bj != "*":
            stack.append((i, j + 1))
        elif bj == "*" and ai != "*":
            stack.append((i + 1, j))
        elif ai == bj and ai != "*":
            stack.append((i + 1, j + 1))
    return False


@lru_cache(maxsize=65536)
def covers(outer: str, inner: str) -> bool:
    """True when every operation matching ``inner`` matches ``outer``.

    Sound, and exact for the patterns roles use: ``outer`` must match the text of ``inner`` with the
    ``*`` of ``inner`` read as literal characters, which only a ``*`` of ``outer`` can swallow.
    """
    body = ".*".join(re.escape(part) for part in outer.lower().split("*"))
    return re.fullmatch(body, inner.lower(), re.DOTALL) is not None
