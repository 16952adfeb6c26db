"""Reading access requests (contracts §4): one JSON object, or JSON Lines (one request a line), with
strict validation. Errors are :class:`~auditor.errors.InputError` naming the source, the line and the
field."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from auditor.access.decision import AccessRequest
from auditor.errors import InputError
from auditor.estate._errors import describe_value

__all__ = ["parse_request", "parse_requests", "read_request_lines"]

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
        raise _fail(f"expected a JSON object, found {describe_value(obj)}", source, line, None)
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
                f"expected an object or null, found {describe_value(attributes)}",
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
    except msgspec.DecodeError:  # ValidationError included
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
    try:
        return _DECODER.decode(data)
    except msgspec.DecodeError as exc:
        text = str(exc)
        raise _fail(f"invalid JSON: {text[:1].lower() + text[1:]}", source, line, None) from None


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
            except msgspec.DecodeError:
                rest = [raw, *iterator]
                whole = b"".join(r if isinstance(r, bytes) else r.encode() for r in rest)
                try:
                    obj = _DECODER.decode(whole)
                except msgspec.DecodeError:
                    _decode(raw, source, number)  # report the first line
                    raise  # pragma: no cover - _decode raised already
                yield parse_request(obj, source=source, line=number)
                return
            yield parse_request(obj, source=source, line=number)
            continue
        yield _typed(raw) or parse_request(_decode(raw, source, number), source=source, line=number)


def parse_requests(data: bytes | str, *, source: str = "<requests>") -> list[AccessRequest]:
    """One JSON object (possibly spread over several lines) or JSON Lines."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    stripped = text.strip()
    if not stripped:
        raise InputError("expected a JSON object or JSON Lines, found nothing", source=source)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:
        try:
            whole = _DECODER.decode(stripped)
        except msgspec.DecodeError:
            return list(read_request_lines(text.splitlines(), source=source))
        return [parse_request(whole, source=source)]
    number = next(i for i, ln in enumerate(text.splitlines(), start=1) if ln.strip())
    return [parse_request(_decode(stripped, source, number), source=source, line=number)]
