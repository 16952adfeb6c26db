"""Wildcard matching in linear time: every glob of the estate and of the command line.

Three dialects share one matcher:

- :attr:`Dialect.ACTION`: operation globs of roles and deny assignments and ``ActionMatches``
  (semantics §1.5): ``*`` matches any run of characters (``/`` included); everything else is literal.
- :attr:`Dialect.LIKE`: ``StringLike`` (semantics §2): ``*`` any run, ``?`` one character, ``\\*``
  and ``\\?`` a literal ``*`` and ``?``; any other backslash is literal.
- :attr:`Dialect.SHELL`: waiver and ``--check`` globs, the shell's (``fnmatch``'s) syntax: ``*``,
  ``?``, ``[abc]``, ``[a-z]``, ``[!abc]``; an unclosed ``[`` is literal.

Patterns come from whoever can write a custom role, a deny assignment, a condition or a waiver, so
the time of a match must not depend on how a pattern is crafted beyond its length. A pattern is read as
fixed-length segments between runs of ``*``. With the first segment a prefix and the last a suffix,
the greedy rule (each middle segment at its leftmost occurrence after the previous one) is exact: an
earlier occurrence leaves more text to the segments after it. The compiled regular expression says
exactly that: ``A(?>.*?B)(?>.*?C).*D``, where the atomic groups ``(?>...)`` forbid the engine to
return to an earlier segment to try a later occurrence, which is what makes a naive ``.*``-joined
expression backtrack catastrophically (``.*a.*a.*a.*b`` over a long run of ``a``). A match takes
O(len(pattern) x len(text)) steps at worst; the regex engine runs it in C.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["Dialect", "compile_glob", "glob_match", "glob_regex"]


class Dialect(enum.Enum):
    """Which wildcard syntax a pattern is written in."""

    ACTION = "action"
    LIKE = "like"
    SHELL = "shell"


_ANY = "."  # one character (the expressions are compiled with DOTALL)
_NEVER = "(?!)"


def _char(c: str) -> str:
    """A literal character as a regex escape that is valid inside and outside a class."""
    code = ord(c)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


def _shell_class(pattern: str, start: int) -> tuple[str, int] | None:
    """The class opened by ``[`` at ``start``: (regex, index after ``]``), or None when unclosed
    (the ``[`` is then literal), as ``fnmatch`` reads it."""
    n = len(pattern)
    j = start + 1
    negate = j < n and pattern[j] == "!"
    if negate:
        j += 1
    first = j
    if j < n and pattern[j] == "]":
        j += 1
    while j < n and pattern[j] != "]":
        j += 1
    if j >= n:
        return None
    body = pattern[first:j]
    items: list[str] = []
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            low, high = body[k], body[k + 2]
            if low <= high:  # an empty range matches nothing
                items.append(f"{_char(low)}-{_char(high)}")
            k += 3
        else:
            items.append(_char(body[k]))
            k += 1
    if not items:
        return (_ANY if negate else _NEVER), j + 1
    return f"[{'^' if negate else ''}{''.join(items)}]", j + 1


def _segments(pattern: str, dialect: Dialect = Dialect.ACTION) -> list[list[str]]:
    """The pattern as its fixed-length segments between runs of ``*`` (one more than the runs),
    each a list of one-character regex pieces."""
    segments: list[list[str]] = [[]]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            segments.append([])
            while i < n and pattern[i] == "*":
                i += 1
            continue
        if dialect is not Dialect.ACTION and c == "?":
            segments[-1].append(_ANY)
        elif dialect is Dialect.LIKE and c == "\\" and i + 1 < n and pattern[i + 1] in "*?":
            i += 1
            segments[-1].append(_char(pattern[i]))
        elif dialect is Dialect.SHELL and c == "[":
            parsed = _shell_class(pattern, i)
            if parsed is not None:
                piece, i = parsed
                segments[-1].append(piece)
                continue
            segments[-1].append(_char(c))
        else:
            segments[-1].append(_char(c))
        i += 1
    return segments


def glob_regex(pattern: str, dialect: Dialect = Dialect.ACTION) -> str:
    """The regular expression (for ``fullmatch``, with DOTALL) of one glob: the first segment
    anchored, each middle one in an atomic group at its leftmost occurrence, the last a suffix."""
    segments = ["".join(s) for s in _segments(pattern, dialect)]
    if len(segments) == 1:
        return segments[0]
    middle = "".join(f"(?>.*?{s})" for s in segments[1:-1])
    return f"{segments[0]}{middle}.*{segments[-1]}"


@lru_cache(maxsize=8192)
def _compiled(patterns: tuple[str, ...], dialect: Dialect, ignore_case: bool) -> re.Pattern[str]:
    if not patterns:
        return re.compile(_NEVER)
    bodies = sorted({glob_regex(p, dialect) for p in patterns})
    flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    return re.compile(bodies[0] if len(bodies) == 1 else f"(?:{'|'.join(bodies)})", flags)


def compile_glob(
    patterns: str | Iterable[str],
    dialect: Dialect = Dialect.ACTION,
    *,
    ignore_case: bool = False,
) -> re.Pattern[str]:
    """One regular expression whose ``fullmatch`` tells whether a text matches any of ``patterns``
    (none: it matches nothing), in time linear in the text for each pattern. Cached."""
    key = (patterns,) if isinstance(patterns, str) else tuple(patterns)
    return _compiled(key, dialect, ignore_case)


def glob_match(
    pattern: str, text: str, dialect: Dialect = Dialect.ACTION, *, ignore_case: bool = False
) -> bool:
    """True when the whole of ``text`` matches the glob ``pattern``."""
    return _compiled((pattern,), dialect, ignore_case).fullmatch(text) is not None
