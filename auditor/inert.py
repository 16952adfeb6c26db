"""Inert text: untrusted strings made safe to show on a terminal or in a document.

Much of what auditor prints comes from the audited estate or from a server: display names, resource
names, descriptions, error messages. Such text may hold characters that act rather than show:
escape sequences (colours, cursor moves, a window title, a hyperlink), other control characters
(a carriage return overwrites the line, a backspace erases), and invisible format characters (the
bidirectional overrides and isolates that make one name read as another, a zero-width space that
splits a word). :func:`inert` makes each of them visible, removing nothing, so a reviewer sees that
the data held it:

- C0 controls, DEL and C1 controls as ``\\x1b``, ``\\x07``, ``\\x9b`` (tab, line feed and carriage
  return as ``\\t``, ``\\n``, ``\\r``, unless the caller keeps them: ``keep="\\t\\n"``). An escape
  sequence loses its ESC and shows as text: ``\\x1b[31m``, ``\\x1b]0;title\\x07``.
- Format characters (Unicode category Cf: the bidi marks, embeddings, overrides and isolates
  U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069; zero-width space, word joiner, byte-order
  mark, soft hyphen, tag characters, ...), the line and paragraph separators, lone surrogates and
  the non-characters U+FFFE and U+FFFF as ``<U+202E>``. The zero-width joiner and non-joiner stay:
  emoji sequences and several scripts need them, and they cannot reorder or hide text.

This module imports nothing of ours, so every layer that prints may use it (like ``errors``).
"""

from __future__ import annotations

import re
from functools import lru_cache

ELLIPSIS = "…"

MESSAGE_LIMIT = 2_000
"""Characters of an error message shown on the terminal (:func:`inert_message`)."""
LINE_LIMIT = 500
"""Characters of one line of such a message."""
TERMINAL_LIMIT = 1_000
"""Characters of one value (a name, an id, a reason) in a table or line on the terminal."""

_FORMAT_BMP = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f"
    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
)
_FORMAT_ASTRAL = (
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
"""Unicode's format characters (category Cf, as of Unicode 15) but U+200C and U+200D, and the line
and paragraph separators (Zl, Zp), in and beyond the Basic Multilingual Plane. A test checks them
against :mod:`unicodedata`."""

_OTHER_UNSAFE = "\ud800-\udfff\ufffe\uffff"
"""Lone surrogates (no encoding can write them) and the two non-characters XML cannot hold."""

_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

# Scanning for a class with ranges beyond U+FFFF is several times slower than for one within it
# (and compiling a class of every astral character takes milliseconds), so text is scanned in
# steps, cheapest first: ASCII text (known in constant time) for controls only; other text for the
# BMP's unsafe characters, then, only when it holds an astral character at all (its UTF-16 form is
# longer than two bytes a character), for the astral format characters.
_ASTRAL_UNSAFE = re.compile(f"[{_FORMAT_ASTRAL}]")


class _Patterns:
    def __init__(self, keep: str) -> None:
        controls = "".join(
            f"\\x{c:02x}" for c in [*range(0x20), *range(0x7F, 0xA0)] if chr(c) not in keep
        )
        ascii_controls = "".join(f"\\x{c:02x}" for c in [*range(0x20), 0x7F] if chr(c) not in keep)
        self.ascii = re.compile(f"[{ascii_controls}]")
        self.bmp = re.compile(f"[{controls}{_FORMAT_BMP}{_OTHER_UNSAFE}]")
        self.all = re.compile(f"[{controls}{_FORMAT_BMP}{_OTHER_UNSAFE}{_FORMAT_ASTRAL}]")

    def unsafe(self, s: str) -> re.Pattern[str] | None:
        """The pattern to substitute with when ``s`` holds an unsafe character, else None."""
        if s.isascii():
            return self.ascii if self.ascii.search(s) is not None else None
        if s.isprintable():  # no control, format, separator or surrogate character at all
            return None
        if self.bmp.search(s) is not None:
            return self.all
        astral = len(s.encode("utf-16-le", "surrogatepass")) > 2 * len(s)
        if astral and _ASTRAL_UNSAFE.search(s) is not None:
            return self.all
        return None


@lru_cache(maxsize=16)
def _patterns(keep: str) -> _Patterns:
    return _Patterns(keep)


@lru_cache(maxsize=1024)
def visible(char: str) -> str:
    """How :func:`inert` shows one unsafe character: ``\\x1b``, ``\\n`` or ``<U+202E>``."""
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    if code < 0x20 or 0x7F <= code < 0xA0:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def _show(match: re.Match[str]) -> str:
    return visible(match.group())


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, marked with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + ELLIPSIS


def inert(text: object, *, limit: int | None = None, keep: str = "") -> str:
    """``text`` (anything: shown by ``str()``) with every control and invisible format character
    made visible; at most ``limit`` characters (an ellipsis marks a cut). ``keep`` names the
    whitespace controls a multi-line format may keep as they are: any of tab, LF and CR."""
    s = text if isinstance(text, str) else str(text)
    if (limit is None or len(s) <= limit) and s.isprintable():
        return s  # the common case, decided in C: nothing acts, nothing to cut
    cut = False
    if limit is not None and len(s) > limit:
        s, cut = s[:limit], True  # an 800 KB name is not scanned whole to show its start
    if "\n" in keep and "\r" not in keep and "\r\n" in s:
        s = s.replace("\r\n", "\n")  # a line break written CRLF; a lone CR stays visible
    pattern = _patterns(keep).unsafe(s)
    if pattern is not None:
        s = pattern.sub(_show, s)
    if limit is not None and (cut or len(s) > limit):
        s = s[: max(0, limit - 1)] + ELLIPSIS
    return s


def inert_message(text: object, *, limit: int = MESSAGE_LIMIT, line_limit: int = LINE_LIMIT) -> str:
    """An error or warning for the terminal: inert (tabs and line breaks kept), each line at most
    ``line_limit`` characters, the whole at most ``limit``.

    A line followed by a caret line (spaces and tabs, then ``^``: a syntax error pointing into an
    expression) is shown as a window around the caret, and the caret still points at the same
    character, however long the expression and whatever it holds."""
    s = text if isinstance(text, str) else str(text)
    if len(s) > _MESSAGE_SCAN:
        s = s[:_MESSAGE_SCAN]
    lines = s.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    size = 0
    i = 0
    while i < len(lines) and size <= limit:
        after = lines[i + 1] if i + 1 < len(lines) else None
        if after is not None and _CARET_LINE.fullmatch(after):
            shown = _caret_window(lines[i], len(after) - 1, line_limit)
            i += 2
        else:
            shown = [inert(lines[i], limit=line_limit, keep="\t")]
            i += 1
        out.extend(shown)
        size += sum(len(x) + 1 for x in shown)
    return clip("\n".join(out), limit)


_MESSAGE_SCAN = 1 << 24  # a longer message is cut before it is split into lines
_CARET_LINE = re.compile(r"[ \t]*\^")


def _caret_window(line: str, column: int, width: int) -> list[str]:
    """``line`` made inert and cut to ``width`` characters around index ``column``, and a caret
    line pointing at the same character (tabs kept so both line up)."""
    unsafe = _patterns("\t").all
    start = max(0, column - width)
    end = min(len(line), column + width + 1)
    pieces = [visible(ch) if unsafe.match(ch) else ch for ch in line[start:end]]
    shown = "".join(pieces)
    pad = "".join("\t" if p == "\t" else " " * len(p) for p in pieces)
    caret = len("".join(pieces[: column - start]))
    left = max(0, min(caret - width // 2, len(shown) - width))
    right = min(len(shown), left + width)
    window = list(shown[left:right])
    if window and (left > 0 or start > 0):
        window[0] = ELLIPSIS
    if window and (right < len(shown) or end < len(line)):
        window[-1] = ELLIPSIS
    return ["".join(window), pad[left:caret] + "^"]


_JSON_KEEP = "".join(map(chr, range(0x20)))
"""JSON encoders escape the C0 controls themselves; the rest is for :func:`inert_json`."""


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # written as its UTF-16 surrogate pair, as JSON spells it
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def inert_json(text: str) -> str:
    """JSON text with DEL, the C1 controls and every invisible format character written as
    ``\\u`` escapes. The document means exactly the same (these characters can only occur inside
    strings), but its bytes show nothing raw in a terminal or an editor. JSON encoders already
    escape the C0 controls."""
    if text.isascii() and "\x7f" not in text:
        return text
    pattern = _patterns(_JSON_KEEP).unsafe(text)
    if pattern is None:
        return text
    return pattern.sub(_json_escape, text)


def inert_json_bytes(data: bytes) -> bytes:
    """:func:`inert_json` for UTF-8 JSON bytes (unchanged, not copied, when nothing is unsafe)."""
    if data.isascii() and b"\x7f" not in data:
        return data
    text = data.decode("utf-8")
    safe = inert_json(text)
    return data if safe is text else safe.encode("utf-8")
