"""JSON with comments, as the vendor's template engine reads it: ``//`` and ``/* */`` comments and
trailing commas are accepted (in ``.json`` and ``.jsonc`` files alike), and where every object and
array starts is found, so a resource's line can be named.

A document is decoded by the project's one JSON decoder (limits on nesting and numbers, errors with
line and column). Only when that fails does a small tokenizer go over the text (strings are tokens
of their own, so ``//`` inside a string is text) and blank the comments and trailing commas out,
keeping every character's line and column, before decoding again. The same tokenizer records the
offset of each object and array by its JSON path (a tuple of keys and indices), once, when a line
is first asked for; the position of a scalar (for an error message) is found by scanning again.
"""

from __future__ import annotations

import bisect
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from auditor.errors import InputError, shown_name

__all__ = ["MAX_BYTES", "JsoncDocument", "decode_jsonc", "format_path", "read_jsonc"]

#: Largest template or parameters file read (the vendor's engine refuses templates over 4 MB).
MAX_BYTES = 8 << 20

PathKey = tuple[str | int, ...]

# Every token but whitespace (skipped between matches): strings, comments, punctuation, literals,
# and any other character alone.
_TOKEN = re.compile(
    r"""
    (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<line>//[^\n]*)
  | (?P<block>/\*.*?\*/)
  | (?P<punct>[{}\[\],:])
  | (?P<lit>[^\s{}\[\],:"/]+)
  | (?P<bad>\S)
    """,
    re.VERBOSE | re.DOTALL,
)
_NOT_NEWLINE = re.compile(r"[^\n]")


@dataclass(slots=True)
class JsoncDocument:
    """A decoded JSON document and where its objects and arrays start."""

    source: str
    value: Any
    text: str = field(repr=False)
    _starts: dict[PathKey, int] | None = field(default=None, repr=False)
    _newlines: list[int] | None = field(default=None, repr=False)

    @property
    def starts(self) -> dict[PathKey, int]:
        """JSON path -> offset of every object and array (found on first use)."""
        if self._starts is None:
            starts: dict[PathKey, int] = {}
            _scan(self.text, starts)
            self._starts = starts
        return self._starts

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of a character offset."""
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_left(self._newlines, offset)
        start = self._newlines[line - 1] + 1 if line else 0
        return line + 1, offset - start + 1

    def line(self, path: PathKey) -> int | None:
        """The line where the value at ``path`` starts (objects and arrays from the recorded
        offsets; any other value by scanning the text again), or ``None`` when there is none."""
        offset = self.starts.get(path)
        if offset is None:
            offset = _find(self.text, path)
        return None if offset is None else self.position(offset)[0]

    def where(self, path: PathKey) -> str:
        """``line 12, resources[0].name`` for an error's location (the path alone when the value
        is not found)."""
        line = self.line(path)
        shown = format_path(path) or "the document"
        return f"line {line}, {shown}" if line is not None else shown


def read_jsonc(path: str | os.PathLike[str], *, what: str = "file") -> JsoncDocument:
    """Read and decode the JSON (with comments) file ``path``; errors name the file and the line
    and column (exit code 2)."""
    from auditor.estate import read_input_text

    name = os.fspath(path)
    text = read_input_text(name, what=what, limit=MAX_BYTES)
    return decode_jsonc(text, source=name, what=what)


def decode_jsonc(text: str, *, source: str, what: str = "file") -> JsoncDocument:
    """Decode JSON-with-comments ``text`` (see the module's description)."""
    from auditor.estate import decode_json

    if not text.strip():
        raise InputError(f"the {what} is empty; expected a JSON object", source=source)
    data = text.encode("utf-8")
    try:
        return JsoncDocument(source, decode_json(data, source=source, what=what), text)
    except InputError:
        if b"/" not in data and b"," not in data:
            raise  # no comment, no trailing comma: the error stands
    starts: dict[PathKey, int] = {}
    try:
        clean = _scan(text, starts)
    except _Unclosed as unclosed:
        line = text.count("\n", 0, unclosed.offset) + 1
        column = unclosed.offset - (text.rfind("\n", 0, unclosed.offset) + 1) + 1
        raise InputError(
            "a /* comment is not closed", source=source, location=f"line {line}, column {column}"
        ) from None
    value = decode_json(clean.encode("utf-8"), source=source, what=what)
    return JsoncDocument(source, value, text, starts)


def format_path(path: PathKey) -> str:
    """``("resources", 3, "properties")`` -> ``resources[3].properties`` (a key that looks like
    a secret is shown by its length)."""
    out: list[str] = []
    for key in path:
        if isinstance(key, int):
            out.append(f"[{key}]")
        elif out:
            out.append(f".{shown_name(key)}")
        else:
            out.append(shown_name(key))
    return "".join(out)


# ------------------------------------------------------------------------------------ the scanner


class _Unclosed(Exception):
    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


def _find(text: str, want: PathKey) -> int | None:
    try:
        found: int | None = _scan(text, None, want=want)[1]
    except _Unclosed:
        return None
    return found


def _key_text(token: str) -> str:
    if "\\" not in token:
        return token[1:-1]
    try:
        decoded = json.loads(token)
    except ValueError:
        return token[1:-1]
    return decoded if isinstance(decoded, str) else token[1:-1]


def _scan(text: str, starts: dict[PathKey, int] | None, *, want: PathKey | None = None) -> Any:
    """One pass over ``text``.

    With ``starts``: record where each object and array starts, and return the text with comments
    and trailing commas blanked out (same length, same line breaks). With ``want``: return
    ``(None, offset)`` of the value at that path (``None`` when there is none). Never raises for
    invalid JSON (the decoder reports that, at the same line and column), only for a ``/*``
    comment that is not closed.
    """
    blanks: list[tuple[int, int, str]] = []  # (start, end, replacement)
    comma = -1  # offset of a comma not yet followed by a value
    # one frame per open container: [is_object, key or index, expecting a key]
    stack: list[list[Any]] = []
    path: list[str | int] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "str":
            comma = -1
            if stack:
                top = stack[-1]
                if top[2]:  # an object's key
                    top[1] = _key_text(match.group())
                    top[2] = False
                    continue
                if want is not None and (*path, top[1]) == want:
                    return None, match.start()
            elif want == ():
                return None, match.start()
            continue
        offset = match.start()
        if kind == "punct":
            token = match.group()
            if token == ",":
                comma = offset
                if stack:
                    top = stack[-1]
                    if top[0]:
                        top[2] = True
                    else:
                        top[1] += 1
                continue
            if token == ":":
                continue
            if token == "}" or token == "]":
                if comma >= 0:
                    blanks.append((comma, comma + 1, " "))  # a trailing comma
                comma = -1
                if stack:
                    stack.pop()
                    if path:
                        path.pop()
                continue
            # { or [: a value starts here
            comma = -1
            if stack:
                top = stack[-1]
                if top[2]:
                    continue  # not a key: invalid JSON, reported by the decoder
                here: PathKey = (*path, top[1])
                path.append(top[1])
            else:
                here = ()
            if want is not None and here == want:
                return None, offset
            if starts is not None:
                starts[here] = offset
            is_object = token == "{"
            stack.append([is_object, None if is_object else 0, is_object])
            continue
        if kind == "line" or kind == "block":
            blanks.append((offset, match.end(), _NOT_NEWLINE.sub(" ", match.group())))
            continue
        if kind == "bad" and text.startswith("/*", offset):
            raise _Unclosed(offset)
        comma = -1  # a literal (or a stray character) is a value
        if want is not None:
            if stack and not stack[-1][2] and (*path, stack[-1][1]) == want:
                return None, offset
            if not stack and want == ():
                return None, offset
    if want is not None:
        return None, None
    if not blanks:
        return text
    pieces: list[str] = []
    position = 0
    for start, end, replacement in sorted(blanks):
        pieces.append(text[position:start])
        pieces.append(replacement)
        position = end
    pieces.append(text[position:])
    return "".join(pieces)
