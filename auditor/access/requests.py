"""Reading access requests (contracts §4): one JSON object, or JSON Lines (one request a line), with
strict validation. Errors are :class:`~auditor.errors.InputError` naming the source, the line and the
field (and the column of a byte that is not UTF-8); a line is at most :data:`MAX_LINE_BYTES` long and
nests at most :data:`~auditor.estate.MAX_DEPTH` levels, so no input makes reading it stall."""

from __future__ import annotations

import operator
import os
import re
import sys
from collections.abc import Iterable, Iterator
from itertools import repeat
from typing import Any

import msgspec

from auditor.access.decision import AccessRequest
from auditor.errors import InputError, describe_value
from auditor.estate import MAX_DEPTH, check_utf8, open_input

__all__ = [
    "MAX_LINE_BYTES",
    "parse_request",
    "parse_requests",
    "read_request_lines",
    "request_lines",
]

MAX_LINE_BYTES = 1 << 20
"""Bytes of one JSON Lines request, at most (a request is a few hundred)."""

_FIELDS = ("principalId", "action", "dataAction", "scope", "subOperation", "attributes")
_DECODER = msgspec.json.Decoder()
_TYPED = msgspec.json.Decoder(AccessRequest)


def _where(line: int | None, field: str | None) -> str | None:
    parts = []
    if line is not None:
        parts.append(f"line {line}")
    if field is not None:
        parts.append(f"field {field}")
    return ", ".join(parts) or None


def _fail(message: str, source: str, line: int | None, field: str | None) -> InputError:
    return InputError(message, source=source, location=_where(line, field))


def _text(obj: dict[str, Any], key: str, source: str, line: int | None) -> str:
    if key not in obj:
        raise _fail("expected a value (the field is required), found nothing", source, line, key)
    value = obj[key]
    if not isinstance(value, str):
        raise _fail(f"expected a string, found {describe_value(value)}", source, line, key)
    if not value.strip():
        raise _fail("expected a non-empty string, found an empty one", source, line, key)
    return value


def _attribute_value(value: Any) -> bool:
    if isinstance(value, str | bool | int) and not isinstance(value, float):
        return True
    if isinstance(value, list):
        return all(isinstance(v, str | bool | int) for v in value)
    return False


def parse_request(obj: Any, *, source: str = "<request>", line: int | None = None) -> AccessRequest:
    """Validate one decoded JSON request."""
    if not isinstance(obj, dict):
        raise _fail(
            f"expected a JSON object, found {describe_value(obj, quote=False)}", source, line, None
        )
    for key in obj:
        if key not in _FIELDS:
            raise _fail(
                f"unknown field {key!r}; expected one of {', '.join(_FIELDS)}", source, line, key
            )
    principal = _text(obj, "principalId", source, line)
    action = _text(obj, "action", source, line)
    scope = _text(obj, "scope", source, line)
    if not scope.startswith("/"):
        raise _fail(
            f'expected a scope starting with "/", found {describe_value(scope)}',
            source,
            line,
            "scope",
        )
    data = obj.get("dataAction")
    if data is None:
        data = False
    elif not isinstance(data, bool):
        raise _fail(
            f"expected true or false, found {describe_value(data)}", source, line, "dataAction"
        )
    sub = obj.get("subOperation")
    if sub is not None and not isinstance(sub, str):
        raise _fail(
            f"expected a string or null, found {describe_value(sub)}", source, line, "subOperation"
        )
    attributes = obj.get("attributes")
    if attributes is not None:
        if not isinstance(attributes, dict):
            raise _fail(
                f"expected an object or null, found {describe_value(attributes, quote=False)}",
                source,
                line,
                "attributes",
            )
        for key, value in attributes.items():
            if not _attribute_value(value):
                raise _fail(
                    "expected a string, an integer, true or false, or an array of those, "
                    f"found {describe_value(value)}",
                    source,
                    line,
                    f"attributes.{key}",
                )
    return AccessRequest(
        principalId=principal,
        action=action,
        scope=scope,
        dataAction=data,
        subOperation=sub,
        attributes=attributes,
    )


def _typed(data: bytes | str) -> AccessRequest | None:
    """A line decoded straight into a request by ``msgspec`` (types and unknown fields checked
    as it goes, about half the time of decoding to a dict and checking that), or None when the
    line is not a valid request in its plainest form: then :func:`parse_request` reads it again,
    accepts what the plain form does not (``"dataAction": null``) or names what is wrong."""
    try:
        request = _TYPED.decode(data)
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):  # ValidationError included
        return None
    if not (
        request.principalId.strip() and request.action.strip() and request.scope.startswith("/")
    ):
        return None
    attributes = request.attributes
    if attributes is not None and not all(map(_attribute_value, attributes.values())):
        return None
    return request


def _decode(data: bytes | str, source: str, line: int | None) -> Any:
    """One request's JSON; every way it can be unusable is an InputError naming line and column."""
    try:
        return _DECODER.decode(data)
    except RecursionError:
        raise _fail(
            f"nested deeper than {MAX_DEPTH} levels of objects and arrays (the limit)",
            source,
            line,
            None,
        ) from None
    except UnicodeDecodeError as exc:
        raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        offset = _first_bad_utf8(raw, exc)
        raise InputError(
            f"the request is not UTF-8 text: byte 0x{raw[offset]:02x} cannot be decoded",
            source=source,
            location=_line_column(raw, line, offset),
        ) from None
    except msgspec.DecodeError as exc:  # a ValidationError too: a number out of range
        text = str(exc)
        m = _BYTE.search(text)
        raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        location = _line_column(raw, line, int(m.group(1))) if m else _where(line, None)
        text = _BYTE.sub("", text)
        raise InputError(
            f"invalid JSON: {text[:1].lower() + text[1:]}", source=source, location=location
        ) from None


_BYTE = re.compile(r" \(byte (\d+)\)")


def _first_bad_utf8(raw: bytes, exc: UnicodeDecodeError) -> int:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as whole:
        return int(whole.start)
    return max(0, min(int(exc.start), len(raw) - 1))


def _line_column(raw: bytes, line: int | None, offset: int) -> str:
    column = len(raw[:offset].decode("utf-8", errors="replace")) + 1
    return f"line {line}, column {column}" if line is not None else f"column {column}"


def request_lines(path: str, *, limit: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """The lines of the requests file ``path`` (``-``: standard input), streamed; a regular file or
    a pipe (a device, a directory, a socket is refused). A line longer than ``limit`` bytes is an
    InputError: reading ``/dev/zero`` or a stream without line breaks never grows without bound.
    (:func:`read_request_lines` takes what it gives a block of lines at a time.)"""
    return _LineBlocks(_request_blocks(path, limit))


def _request_blocks(path: str, limit: int) -> Iterator[list[bytes]]:
    if path == "-":
        yield from _bounded_blocks(sys.stdin.buffer, "<stdin>", limit)
        return
    fd = open_input(path, what="requests file", pipes=True)
    with os.fdopen(fd, "rb") as handle:
        yield from _bounded_blocks(handle, path, limit)


class _LineBlocks(Iterator[bytes]):
    """Lines one by one from blocks of lines; :meth:`rest` gives those not read yet a block at a
    time."""

    def __init__(self, blocks: Iterator[list[bytes]]) -> None:
        self._blocks = blocks
        self._lines: Iterator[bytes] = iter(())

    def __next__(self) -> bytes:
        for line in self._lines:
            return line
        for block in self._blocks:  # the end of the blocks ends the lines
            self._lines = iter(block)
            for line in self._lines:
                return line
        raise StopIteration

    def rest(self) -> Iterator[list[bytes]]:
        """The lines not read yet: those left of the block being read, then the next blocks."""
        left = list(self._lines)
        if left:
            yield left
        yield from self._blocks


def _bounded_blocks(handle: Any, source: str, limit: int) -> Iterator[list[bytes]]:
    """Lines (without their line break) read in blocks of what is there (``read1``: a person typing
    at a terminal is answered line by line), the lines of each read given together; a line longer
    than ``limit`` is an InputError."""
    read = handle.read1
    number = 0
    rest = b""
    while True:
        try:
            block = read(_BLOCK)
        except OSError as exc:
            raise InputError(f"cannot read the requests: {exc.strerror}", source=source) from None
        if not block:
            break
        lines = (rest + block).split(b"\n") if rest else block.split(b"\n")
        rest = lines.pop()
        if lines and max(map(len, lines)) > limit:
            too_long = next(i for i, line in enumerate(lines) if len(line) > limit)
            raise _too_long(source, number + too_long + 1, limit)
        number += len(lines)
        if lines:
            yield lines
        if len(rest) > limit:
            raise _too_long(source, number + 1, limit)
    if rest:
        yield [rest]


_BLOCK = 1 << 16


def _too_long(source: str, number: int, limit: int) -> InputError:
    return InputError(
        f"the line is longer than {limit:,} bytes (one request is expected per line)",
        source=source,
        location=f"line {number}",
    )


MAX_OBJECT_BYTES = 16 << 20
"""Bytes of one request spread over several lines, at most."""


def _at_most(
    head: list[bytes | str], rest: Iterator[bytes | str], limit: int
) -> list[bytes | str] | None:
    """``head`` and the rest of the lines, or None once they hold more than ``limit`` bytes."""
    size = sum(map(len, head))
    for line in rest:
        size += len(line)
        if size > limit:
            return None
        head.append(line)
    return head


def read_request_lines(
    lines: Iterable[bytes | str], *, source: str = "<requests>"
) -> Iterator[AccessRequest]:
    """Requests from JSON Lines, lazily, in order; blank lines are skipped (they still count for
    line numbers). A single JSON object spread over several lines is accepted too: when the first
    non-blank line is not JSON by itself, the whole input is read as one request."""
    iterator = iter(lines)
    first = True
    for number, raw in enumerate(iterator, start=1):
        if not raw or raw.isspace():
            continue
        if first:
            first = False
            try:
                obj = _DECODER.decode(raw)
            except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):
                rest = _at_most([raw], iterator, MAX_OBJECT_BYTES)
                whole = b"".join(r if isinstance(r, bytes) else r.encode() for r in rest or [])
                try:
                    if rest is None:  # longer than any one request: not one object
                        raise msgspec.DecodeError
                    obj = _DECODER.decode(whole)
                except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):
                    _decode(raw, source, number)  # report the first line
                    raise  # pragma: no cover - _decode raised already
                yield parse_request(obj, source=source, line=number)
                return
            yield parse_request(obj, source=source, line=number)
            if isinstance(iterator, _LineBlocks):
                yield from _read_blocks(iterator.rest(), source, number)
                return
            continue
        yield _typed(raw) or parse_request(_decode(raw, source, number), source=source, line=number)


def _read_blocks(
    blocks: Iterable[list[bytes]], source: str, number: int
) -> Iterator[AccessRequest]:
    """The requests of the lines after line ``number``, given in blocks (:meth:`_LineBlocks.rest`):
    a block whose every line :func:`_typed` takes decoded without a Python step per line, any
    other line by line, exactly as :func:`read_request_lines` reads it."""
    decode = _TYPED.decode
    for lines in blocks:
        try:
            requests: list[AccessRequest] | None = list(map(decode, lines))
        except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):  # a blank line too
            requests = None
        if requests is not None and _plain(requests):
            yield from requests
            number += len(lines)
            continue
        for raw in lines:
            number += 1
            if not raw or raw.isspace():
                continue
            yield _typed(raw) or parse_request(
                _decode(raw, source, number), source=source, line=number
            )


_PRINCIPAL = operator.attrgetter("principalId")
_ACTION = operator.attrgetter("action")
_SCOPE = operator.attrgetter("scope")
_ATTRIBUTES = operator.attrgetter("attributes")


def _plain(requests: list[AccessRequest]) -> bool:
    """Whether :func:`_typed` takes each of ``requests`` as it is (see there)."""
    if not (
        all(map(str.strip, map(_PRINCIPAL, requests)))
        and all(map(str.strip, map(_ACTION, requests)))
        and all(map(str.startswith, map(_SCOPE, requests), repeat("/")))
    ):
        return False
    return all(
        all(map(_attribute_value, attributes.values()))
        for attributes in filter(None, map(_ATTRIBUTES, requests))
    )


def parse_requests(data: bytes | str, *, source: str = "<requests>") -> list[AccessRequest]:
    """One JSON object (possibly spread over several lines) or JSON Lines."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            check_utf8(data, source)
            raise  # pragma: no cover - check_utf8 raised already
    else:
        text = data
    stripped = text.strip()
    if not stripped:
        raise InputError("expected a JSON object or JSON Lines, found nothing", source=source)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:
        try:
            whole = _DECODER.decode(stripped)
        except (msgspec.DecodeError, RecursionError):
            return list(read_request_lines(text.splitlines(), source=source))
        return [parse_request(whole, source=source)]
    number = next(i for i, ln in enumerate(text.splitlines(), start=1) if ln.strip())
    return [parse_request(_decode(stripped, source, number), source=source, line=number)]
