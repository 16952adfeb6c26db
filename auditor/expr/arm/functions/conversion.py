"""Conversions and encodings: ``string``, ``int``, ``bool``, ``json``, ``array``,
``createArray``, ``createObject``, base64, data URIs, URIs, ``uniqueString`` and ``guid``."""

from __future__ import annotations

import base64
import binascii
import json
import re
import urllib.parse
from typing import Any

from auditor.expr.arm._hashing import arm_guid, unique_string
from auditor.expr.arm.ast import Call
from auditor.expr.arm.functions._args import (
    INT64_MAX,
    INT64_MIN,
    NOT_IMPLEMENTED,
    bool_text,
    checked,
    json_text,
    limit_items,
    named,
    need,
    text_arg,
    text_args,
)
from auditor.expr.arm.functions._table import (
    Evaluation,
    Lambda,
    Problem,
    PropagateUnknown,
    builtin,
)
from auditor.expr.arm.values import (
    MAX_NESTING,
    Unknown,
    describe_type,
)


@builtin("string", 1, 1)
def _string(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    value = args[0]
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return bool_text(value)
    if isinstance(value, int):
        return str(value)
    if value is None:
        return ""
    if isinstance(value, list | dict | Lambda):
        return json_text(value, call)
    raise Problem(f"string() of {describe_type(value)} is not implemented", NOT_IMPLEMENTED)


_INTEGER_TEXT = re.compile(r"[\t\n\v\f\r ]*[+-]?[0-9]+[\t\n\v\f\r ]*\Z")


@builtin("int", 1, 1)
def _int(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    value = args[0]
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        if not _INTEGER_TEXT.match(value) or len(value) > 64:
            raise Problem("int() cannot convert the string to an integer")
        return checked(int(value.strip()), call)
    raise need(call, 0, "an integer or a string", value)


@builtin("bool", 1, 1)
def _bool(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    value = args[0]
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "false"):
            return word == "true"
        raise Problem("bool() cannot convert the string to a boolean")
    raise need(call, 0, "a boolean, an integer or a string", value)


@builtin("float", 1, 1)
def _float(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    raise Problem("float() is not implemented", NOT_IMPLEMENTED)


def _json_constant(name: str) -> Any:
    raise ValueError(name)


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError("duplicate key")
        result[key] = value
    return result


def _parse_json(text: str, call: Call) -> Any:
    try:
        value = json.loads(text, parse_constant=_json_constant, object_pairs_hook=_json_object)
    except (ValueError, RecursionError):
        raise Problem(
            f"{call.name}() of text that is not strict JSON is not implemented", NOT_IMPLEMENTED
        ) from None
    problem = _json_problem(value)
    if problem:
        raise Problem(f"{call.name}() of {problem} is not implemented", NOT_IMPLEMENTED)
    return value


def _json_problem(value: Any) -> str | None:
    """What in a parsed JSON value this evaluator does not take: an integer beyond 64 bits, or
    nesting deeper than the evaluator walks (walked without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_NESTING:
            return "JSON nested more deeply than this evaluator walks"
        if isinstance(item, int) and not isinstance(item, bool):
            if not INT64_MIN <= item <= INT64_MAX:
                return "an integer beyond 64 bits"
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
    return None


@builtin("json", 1, 1)
def _json(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _parse_json(text_arg(args, 0, call), call)


@builtin("array", 1, 1)
def _array(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    value = args[0]
    return value if isinstance(value, list) else [value]


@builtin("createArray", 0, takes_unknown=True)
def _create_array(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return limit_items(list(args), call)


@builtin("createObject", 0, takes_unknown=True)
def _create_object(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    if len(args) % 2:
        raise Problem("createObject() expects an even number of arguments (names and values)")
    result: dict[str, Any] = {}
    for position in range(0, len(args), 2):
        key = args[position]
        if isinstance(key, Unknown):
            raise PropagateUnknown(key)
        if not isinstance(key, str):
            raise need(call, position, "a property name", key)
        if key in result:
            raise Problem(f"createObject() names the property {named(call, position, key)} twice")
        result[key] = args[position + 1]
    return result


@builtin("base64", 1, 1)
def _base64(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    text = text_arg(args, 0, call)
    return base64.b64encode(_utf8(text, call)).decode("ascii")


def _utf8(text: str, call: Call) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise Problem(f"{call.name}() of text with a lone surrogate", NOT_IMPLEMENTED) from None


def _from_base64(text: str, call: Call) -> str:
    compact = re.sub(r"[\t\n\r ]", "", text)
    try:
        raw = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise Problem(f"{call.name}() expects base64 text") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Problem(f"{call.name}() of bytes that are not UTF-8", NOT_IMPLEMENTED) from None


@builtin("base64ToString", 1, 1)
def _base64_to_string(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _from_base64(text_arg(args, 0, call), call)


@builtin("base64ToJson", 1, 1)
def _base64_to_json(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _parse_json(_from_base64(text_arg(args, 0, call), call), call)


@builtin("dataUri", 1, 1)
def _data_uri(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    text = text_arg(args, 0, call)
    encoded = base64.b64encode(_utf8(text, call)).decode("ascii")
    return "data:text/plain;charset=utf8;base64," + encoded


@builtin("dataUriToString", 1, 1)
def _data_uri_to_string(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    text = text_arg(args, 0, call)
    head, comma, data = text.partition(",")
    if not head.lower().startswith("data:") or not comma:
        raise Problem("dataUriToString() expects a data URI such as 'data:;base64,...'")
    tokens = head[5:].split(";")
    charsets = [t[8:].lower() for t in tokens if t.lower().startswith("charset=")]
    if tokens[-1].lower() != "base64" or any(c not in ("utf-8", "utf8") for c in charsets):
        raise Problem(
            "dataUriToString() of a data URI that is not base64 UTF-8 is not implemented",
            NOT_IMPLEMENTED,
        )
    return _from_base64(data, call)


_URI_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*\Z")


@builtin("uri", 2, 2)
def _uri(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    base = text_arg(args, 0, call)
    relative = text_arg(args, 1, call)
    parts = urllib.parse.urlsplit(base) if _URI_CHARS.match(base) else None
    if parts is None or not parts.scheme or not parts.netloc:
        raise Problem("uri() expects an absolute URI as its base")
    simple = (
        relative
        and _URI_CHARS.match(relative)
        and "%" not in base + relative
        and parts.scheme == parts.scheme.lower()
        and parts.netloc == parts.netloc.lower()
        and parts.port is None
    )
    if not simple:
        raise Problem(
            "uri() with an empty relative part, a port, escapes or upper-case host names is not "
            "implemented",
            NOT_IMPLEMENTED,
        )
    return urllib.parse.urljoin(base, relative)


@builtin("uriComponent", 1, 1)
def _uri_component(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    text = text_arg(args, 0, call)
    return urllib.parse.quote(_utf8(text, call), safe="")


@builtin("uriComponentToString", 1, 1)
def _uri_component_to_string(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    text = text_arg(args, 0, call)
    if "+" in text:
        raise Problem("uriComponentToString() of text with '+' is not implemented", NOT_IMPLEMENTED)
    try:
        return urllib.parse.unquote(text, errors="strict")
    except UnicodeDecodeError:
        raise Problem(
            "uriComponentToString() of escapes that are not UTF-8", NOT_IMPLEMENTED
        ) from None


@builtin("uniqueString", 1)
def _unique_string(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return unique_string([_utf8_checked(text, call) for text in text_args(args, call)])


@builtin("guid", 1)
def _guid(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return arm_guid([_utf8_checked(text, call) for text in text_args(args, call)])


def _utf8_checked(text: str, call: Call) -> str:
    _utf8(text, call)
    return text
