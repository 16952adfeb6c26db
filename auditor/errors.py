"""Exceptions every layer may raise; the CLI maps them to messages and exit codes.

No exception here ever carries a secret: messages are built from paths, types and shapes only. Values
an input held are described with :func:`describe_value`, which shows a value only when it cannot be a
secret, and every message is bounded in length (:func:`bounded`).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from typing import Any

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_INPUT = 2
EXIT_INCOMPLETE = 3
EXIT_INTERNAL = 70

ELLIPSIS = "…"
LINE_LIMIT = 500
"""Characters of one line of an error message, at most (a longer line ends with an ellipsis)."""
MESSAGE_LIMIT = 2_000
"""Characters of a whole error message, at most."""
_CARET_CONTEXT = 10_000
"""A line followed by a caret line (``   ^``: a syntax error pointing into an expression) is kept
up to this length, so the caret still points at its character; the terminal shows a window of it."""
_CARET = re.compile(r"[ \t]*\^")

SHOWN_VALUE = 40
"""Characters of a quoted string value, at most."""


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, the cut marked with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + ELLIPSIS


def bounded(message: str) -> str:
    """``message`` with each line at most :data:`LINE_LIMIT` characters and the whole at most
    :data:`MESSAGE_LIMIT` (plus the one expression line a caret points into)."""
    if len(message) <= LINE_LIMIT and "\n" not in message:
        return message
    lines = message.split("\n")
    out: list[str] = []
    extra = 0
    for i, line in enumerate(lines):
        caret_pair = (i + 1 < len(lines) and _CARET.fullmatch(lines[i + 1]) is not None) or (
            i > 0 and _CARET.fullmatch(line) is not None
        )
        shown = clip(line, _CARET_CONTEXT if caret_pair else LINE_LIMIT)
        if caret_pair:
            extra += len(shown)
        out.append(shown)
    return clip("\n".join(out), MESSAGE_LIMIT + extra)


# --- values in messages: shown only when they cannot be a secret ----------------------------------

_SECRET_NAME = re.compile(
    r"pass(?:word|wd|phrase)?|pwd|secret|token|credential|certificate|connection[ _.-]?string"
    r"|key|signature|\bsas\b|private",
    re.IGNORECASE,
)
_KEY_MATERIAL = re.compile(
    r"-----BEGIN|PRIVATE KEY|PuTTY-User-Key|(?:^|\s)(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-\S+|"
    r"sk-(?:ssh|ecdsa)-\S+)(?:\s|$)|AAAA[0-9A-Za-z+/]{16}|\beyJ[0-9A-Za-z_-]{8,}|"
    r"(?i:\b(?:bearer|basic)\s+\S{8})",
)
_SEPARATORS = frozenset("-_./:")


def is_secret_name(name: str) -> bool:
    """True when a field name suggests a secret (password, key, token, secret, credential,
    certificate, connection string, ...; case-insensitive): its value is never quoted."""
    return _SECRET_NAME.search(name) is not None


def looks_secret(text: str) -> bool:
    """True for text that may be a secret wherever it sits: key material (``-----BEGIN``,
    ``ssh-rsa AAAA...``, a JWT, a bearer token), a password-like word (8 characters or more, no
    space, a symbol and three of lower case, upper case, digits and symbols) or a long random-looking
    token (20 characters or more, letters and digits, high entropy: API tokens, keys, GUIDs)."""
    if _KEY_MATERIAL.search(text) is not None:
        return True
    word = text.strip()
    if len(word) < 8 or any(c.isspace() for c in word):
        return False
    lower = any(c.islower() for c in word)
    upper = any(c.isupper() for c in word)
    digit = any(c.isdigit() for c in word)
    symbol = any(not c.isalnum() and c not in _SEPARATORS for c in word)
    if symbol and lower + upper + digit >= 2:
        return True
    return len(word) >= 20 and digit and (lower or upper) and _entropy(word) >= 3.5


def _entropy(text: str) -> float:
    counts = Counter(text)
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def describe_value(value: Any, *, secret: bool = False, quote: bool = True) -> str:
    """A short description of a value an input held, for an error message: the value itself only
    when it is short and cannot be a secret; else its type (and a string's length).

    ``secret``: the value sits at a secret path (whatever its type, it is not shown). ``quote``:
    False where an object or an array was expected, so a string is described by its length only
    (a secret moved where an object belongs need not look like one: ``samplepass``).
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean" if secret else ("true" if value else "false")
    if isinstance(value, int):
        if secret:
            return "a number"
        if value.bit_length() > 64:  # str() of a 5,000-digit number raises; nobody reads it
            return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
        return f"a number ({value})"
    if isinstance(value, float):
        return "a number" if secret else f"a number ({value!r})"
    if isinstance(value, str):
        if secret or not quote or looks_secret(value):
            return f"a string of {len(value):,} characters"
        shown = clip(value, SHOWN_VALUE).replace("\\", "\\\\").replace('"', '\\"')
        return f'a string ("{shown}")'
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, dt.datetime):
        return "a timestamp"
    if isinstance(value, dt.date):
        return "a date"
    if isinstance(value, bytes | bytearray):
        return f"binary data of {len(value):,} bytes"
    return "a value"


def shown_name(name: str, limit: int = 60) -> str:
    """A key or name from an input as it may appear in a message or a JSON path: the name, cut to
    ``limit`` characters, or ``<N characters>`` when the name itself looks like a secret."""
    if looks_secret(name):
        return f"<{len(name):,} characters>"
    return clip(name, limit)


class AuditorError(Exception):
    """Base of every error the tool reports to a user (never with a traceback).

    The message is bounded (:func:`bounded`): no input can make an error message large.
    """

    exit_code: int = EXIT_INPUT

    def __init__(self, message: str) -> None:
        message = bounded(message)
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InputError(AuditorError):
    """Unusable input: a file, an argument or a value the user gave (exit code 2).

    ``source`` names the file (or argument), ``location`` the JSON path, ``line:column`` or column.
    """

    exit_code = EXIT_INPUT

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        location: str | None = None,
    ) -> None:
        self.source = source
        self.location = location
        self.detail = message
        prefix = ""
        if source and location:
            prefix = f"{clip(source, LINE_LIMIT // 2)}: {clip(location, LINE_LIMIT // 2)}: "
        elif source:
            prefix = f"{clip(source, LINE_LIMIT // 2)}: "
        elif location:
            prefix = f"{clip(location, LINE_LIMIT // 2)}: "
        super().__init__(prefix + message)


class IncompleteError(AuditorError):
    """A source could not be read in full; the evaluation is incomplete (exit code 3)."""

    exit_code = EXIT_INCOMPLETE
