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

from auditor.expr.glob import Dialect, compile_glob

__all__ = ["compile_globs", "covers", "intersects", "matches"]


@lru_cache(maxsize=8192)
def _compiled(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return compile_glob(tuple(p.lower() for p in patterns), Dialect.ACTION)


class _OnFirstMatch:
    """The regex of :func:`compile_globs`, compiled the first time it matches: a question looks at
    few of the catalogue's patterns (the other plane's and the exclusions of roles that do not
    grant the operation never), and compiling them all was a fifth of a question's start-up."""

    __slots__ = ("_patterns", "_rx")

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self._patterns = patterns
        self._rx: re.Pattern[str] | None = None

    def fullmatch(self, operation: str) -> re.Match[str] | None:
        rx = self._rx
        if rx is None:
            rx = self._rx = _compiled(self._patterns)
            assert rx is not None  # patterns is not empty
        return rx.fullmatch(operation)


def compile_globs(patterns: Iterable[str]) -> re.Pattern[str] | None:
    """One regex matching (``fullmatch``, on the lower-cased operation) any of ``patterns``, in
    time linear in the operation whatever the patterns (:mod:`auditor.expr.glob`); None when there
    are none. Identical pattern lists share one compiled regex, compiled when it first matches
    (only ``fullmatch`` is offered)."""
    key = tuple(patterns)
    if not key:
        return None
    return _OnFirstMatch(key)  # type: ignore[return-value]  # the one method callers use


def matches(pattern: str, operation: str) -> bool:
    """True when ``operation`` matches the glob ``pattern`` (case-insensitive)."""
    rx = _compiled((pattern,))
    return rx is not None and rx.fullmatch(operation.lower()) is not None


def _collapse(pattern: str) -> str:
    """The lower-cased pattern with each run of ``*`` made one ``*`` (the same globs)."""
    return re.sub(r"\*+", "*", pattern.lower())


@lru_cache(maxsize=65536)
def intersects(first: str, second: str) -> bool:
    """True when some operation matches both globs.

    The product of the two patterns' automata, explored from the start: a ``*`` may be skipped, a
    ``*`` may swallow a literal of the other pattern, two literals advance together when equal.
    Each pair of positions is visited once: O(len(first) x len(second)).
    """
    a, b = _collapse(first), _collapse(second)
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
    rx = _compiled((outer,))
    return rx is not None and rx.fullmatch(inner.lower()) is not None
