"""JSON inputs decoded with limits: one error path for every way a JSON document can be unusable.

:func:`decode_json` decodes a whole document (a plan, a baseline, a request) and refuses, with exit
code 2 and a message naming the file and the JSON path or line and column:

- invalid JSON and text that is not UTF-8 (line and column);
- nesting deeper than :data:`MAX_DEPTH` objects and arrays (no input of the seed nests past 10; deeper
  nesting only exhausts recursive code further on);
- numbers out of range: ``1e999`` (not finite) and integers beyond 64 bits.

:func:`check_value` applies the same limits to a value decoded some other way (YAML, TOML).
:func:`nesting_error` names where a document nests too deeply when a decoder gave up with a
``RecursionError`` (msgspec does at about 1,000 levels, without saying where).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import msgspec

from auditor.errors import ELLIPSIS, InputError, clip, shown_name
from auditor.estate._files import InputData, check_utf8, line_column

MAX_DEPTH = 64
"""Objects and arrays nested in one another, at most, in any JSON (or YAML, TOML) input."""
INT_MIN, INT_MAX = -(2**63), 2**64 - 1
"""Integers an input may hold (64-bit, signed or not)."""

_DECODER = msgspec.json.Decoder()
_TOKENS = re.compile(
    rb'"(?:[^"\\]|\\.)*"|[\[\]{},:]|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?',
    re.DOTALL,
)
_SHOWN_PARTS = 8


def decode_json(data: InputData, *, source: str, what: str = "JSON document") -> Any:
    """The value of the JSON document ``data``, checked against the limits above."""
    try:
        value = _DECODER.decode(data)
    except RecursionError:
        raise nesting_error(data, source) from None
    except msgspec.ValidationError:  # "Number out of range", "Integer value out of range"
        raise number_error(data, source) from None
    except msgspec.DecodeError as exc:
        raise syntax_error(exc, data, source, what=what) from None
    except UnicodeDecodeError:
        check_utf8(data, source)
        raise InputError("the file is not UTF-8 text", source=source) from None
    check_value(value, source=source)
    return value


def check_value(value: Any, *, source: str, prefix: str = "", limit: int = MAX_DEPTH) -> None:
    """Refuse ``value`` (decoded JSON, YAML or TOML) when it nests deeper than ``limit`` or holds
    a number out of range. Iterative: a value nested a million levels deep is refused, not
    recursed into (a value that contains itself, as YAML aliases can make, too)."""
    if type(value) is not dict and type(value) is not list:
        _check_scalar(value, source, prefix, None)
        return
    # (node, depth, link); a link is (parent link, key): the path, built only for a message
    stack: list[tuple[Any, int, Any]] = [(value, 1, None)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth, link = pop()
        if depth > limit:
            raise InputError(_too_deep(limit), source=source, location=_path(prefix, _parts(link)))
        deeper = depth + 1
        for key, child in node.items() if isinstance(node, dict) else enumerate(node):
            kind = type(child)
            if kind is dict or kind is list:
                push((child, deeper, (link, key)))
            elif kind is int:
                if not INT_MIN <= child <= INT_MAX:
                    _check_scalar(child, source, prefix, (link, key))
            elif kind is float and not math.isfinite(child):
                _check_scalar(child, source, prefix, (link, key))
            elif kind is not str and isinstance(child, dict | list):  # subclasses (YAML, TOML)
                push((child, deeper, (link, key)))


def _parts(link: Any) -> list[Any]:
    parts: list[Any] = []
    while link is not None:
        link, key = link
        parts.append(key)
    return parts[::-1]


def _check_scalar(value: Any, source: str, prefix: str, link: Any) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, int) and not INT_MIN <= value <= INT_MAX:
        digits = int(value.bit_length() * 0.30103) + 1
        raise InputError(
            f"a number out of range: an integer of about {digits:,} digits (at most 64 bits)",
            source=source,
            location=_path(prefix, _parts(link)),
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(
            "a number out of range: it is not finite (expected a number a 64-bit float holds)",
            source=source,
            location=_path(prefix, _parts(link)),
        )


def _too_deep(limit: int) -> str:
    return f"nested deeper than {limit} levels of objects and arrays (the limit)"


_P = ParamSpec("_P")
_R = TypeVar("_R")


def refuses_deep_nesting(load: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate a loader ``load(data, *, source=...)``: what escapes it while it decodes ``data``
    becomes the InputError :func:`decode_json` gives for the same document: a ``RecursionError``
    (msgspec's and pydantic's decoders, recursive code on what they built) the one of
    :func:`nesting_error`, naming where the document nests too deeply; a number out of range
    (``1e999`` inside a field the fast path does not type) the one of :func:`number_error`; bytes
    that are not UTF-8 inside a string the line and column of the first one."""

    @functools.wraps(load)
    def guarded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return load(*args, **kwargs)
        except (RecursionError, msgspec.ValidationError, UnicodeDecodeError) as exc:
            data: Any = args[0] if args else kwargs.get("data", b"")
            source = str(kwargs.get("source", "<input>"))
            if isinstance(exc, RecursionError):
                raise nesting_error(data, source) from None
            if isinstance(exc, UnicodeDecodeError):
                check_utf8(data, source)
                raise InputError("the file is not UTF-8 text", source=source) from None
            if "out of range" not in str(exc):
                raise
            raise number_error(data, source) from None

    return guarded


def nesting_error(data: InputData, source: str, *, limit: int = MAX_DEPTH) -> InputError:
    """The error for a document a decoder refused with ``RecursionError``: where it first nests
    deeper than ``limit`` (JSON path, line and column), found by a scan that does not recurse."""
    found = _scan(data, limit=limit)
    if found is None:
        return InputError(_too_deep(limit), source=source)
    return InputError(_too_deep(limit), source=source, location=found)


def number_error(data: InputData, source: str) -> InputError:
    """The error for a document holding a number out of range (``1e999``, 10,000 digits)."""
    found = _scan(data, numbers=True)
    return InputError(
        "a number out of range (expected a finite number, integers of at most 64 bits)",
        source=source,
        location=found,
    )


def syntax_error(
    exc: msgspec.DecodeError, data: InputData, source: str, *, what: str = "JSON document"
) -> InputError:
    """Invalid JSON, with the line and column msgspec's byte offset points at."""
    text = str(exc)
    if "truncated" in text:
        line, column = line_column(data, len(data))
        return InputError(
            f"the {what} ends too early (truncated?); expected more JSON",
            source=source,
            location=f"line {line}, column {column}",
        )
    m = re.search(r"byte (\d+)", text)
    offset = int(m.group(1)) if m else 0
    line, column = line_column(data, offset)
    near = bytes(data[offset : offset + 1]).decode("utf-8", errors="replace")
    what_found = (
        f"unexpected {near!r}" if near.strip() and near.isprintable() else "unexpected input"
    )
    return InputError(
        f"invalid JSON: {what_found}; expected a JSON value, a comma or a closing bracket",
        source=source,
        location=f"line {line}, column {column}",
    )


class _Frame:
    __slots__ = ("expects_key", "is_object", "key")

    def __init__(self, is_object: bool) -> None:
        self.is_object = is_object
        self.key: Any = None if is_object else 0
        self.expects_key = is_object


def _scan(data: InputData, *, limit: int = MAX_DEPTH, numbers: bool = False) -> str | None:
    """``PATH (line L, column C)`` of the first place ``data`` nests deeper than ``limit`` or, with
    ``numbers``, holds a number out of range; None when there is none (or the JSON is invalid)."""
    stack: list[_Frame] = []
    for m in _TOKENS.finditer(data):
        token: bytes = m.group()
        head = token[:1]
        if head == b'"':
            if stack and stack[-1].expects_key:
                stack[-1].key = token[1:-1].decode("utf-8", errors="replace")
        elif head in b"{[":
            stack.append(_Frame(head == b"{"))
            if len(stack) > limit:
                return _located([f.key for f in stack[:-1]], data, m.start())
        elif head in b"}]":
            if not stack:
                return None
            stack.pop()
        elif head == b":":
            if stack:
                stack[-1].expects_key = False
        elif head == b",":
            if stack and stack[-1].is_object:
                stack[-1].expects_key = True
            elif stack:
                stack[-1].key += 1
        elif numbers and _out_of_range(token):
            return _located([f.key for f in stack], data, m.start())
    return None


def _out_of_range(token: bytes) -> bool:
    if any(c in token for c in b".eE"):
        return not math.isfinite(float(token))
    digits = len(token.lstrip(b"-"))
    return digits > 20 or not INT_MIN <= int(token) <= INT_MAX


def _located(parts: list[Any], data: InputData, offset: int) -> str:
    line, column = line_column(data, offset)
    return f"{_path('', parts)} (line {line}, column {column})"


def _path(prefix: str, parts: list[Any]) -> str:
    """A JSON path, its keys shown only when they cannot be secrets, at most a few levels of it."""
    shown = parts if len(parts) <= _SHOWN_PARTS else parts[:_SHOWN_PARTS]
    out = prefix
    for part in shown:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            name = shown_name(str(part), 40)
            out += f".{name}" if out else name
    if len(parts) > len(shown):
        out += f"{ELLIPSIS} ({len(parts):,} levels)"
    return clip(out or "(top level)", 400)
