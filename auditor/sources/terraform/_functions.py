"""The Terraform functions evaluated where it is trivial and safe: ``lower``, ``upper``, ``format``
(``%s``, ``%d``, ``%v``, ``%q``, ``%%``), ``join``, ``trimspace``, ``concat``, ``merge``,
``coalesce``, ``lookup``, ``length``, ``tostring``, ``tonumber``, ``tobool``, ``tolist``, ``toset``,
``tomap`` and ``jsonencode``. Any other function, or a form of these this module does not handle,
is an :class:`~auditor.expr.arm.values.Unknown` (kind ``notImplemented``), never a guess.

A call whose arguments hold an unknown value is unknown too (``merge`` and ``concat`` keep the
known parts where the result's shape does not depend on the unknown one).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from auditor.expr.arm.values import (
    MAX_ITEMS,
    MAX_STRING,
    Unknown,
    UnknownKind,
    find_unknown,
    to_json_text,
)
from auditor.sources.terraform._values import first_unknown, to_bool, to_number, to_string, unknown

__all__ = ["FUNCTIONS", "call"]


def _error(shown: str, reason: str) -> Unknown:
    return unknown(shown, reason, UnknownKind.ERROR)


def _string_arg(args: list[Any], shown: str) -> str | Unknown:
    if len(args) != 1:
        return _error(shown, "expects one argument")
    text = to_string(args[0])
    return _error(shown, "expects a string") if text is None else text


def _lower(args: list[Any], shown: str) -> Any:
    text = _string_arg(args, shown)
    return text if isinstance(text, Unknown) else text.lower()


def _upper(args: list[Any], shown: str) -> Any:
    text = _string_arg(args, shown)
    return text if isinstance(text, Unknown) else text.upper()


def _trimspace(args: list[Any], shown: str) -> Any:
    text = _string_arg(args, shown)
    return text if isinstance(text, Unknown) else text.strip()


def _tostring(args: list[Any], shown: str) -> Any:
    if len(args) == 1 and args[0] is None:
        return None
    return _string_arg(args, shown)


def _tonumber(args: list[Any], shown: str) -> Any:
    if len(args) != 1:
        return _error(shown, "expects one argument")
    if args[0] is None:
        return None
    number = to_number(args[0])
    return _error(shown, "cannot convert this value to a number") if number is None else number


def _tobool(args: list[Any], shown: str) -> Any:
    if len(args) != 1:
        return _error(shown, "expects one argument")
    if args[0] is None:
        return None
    flag = to_bool(args[0])
    return _error(shown, "cannot convert this value to a boolean") if flag is None else flag


def _tolist(args: list[Any], shown: str) -> Any:
    if len(args) != 1 or not isinstance(args[0], list):
        return _error(shown, "expects one list")
    return list(args[0])


def _toset(args: list[Any], shown: str) -> Any:
    if len(args) != 1 or not isinstance(args[0], list):
        return _error(shown, "expects one list")
    items = args[0]
    if find_unknown(items) is not None:
        return unknown(shown, "an element is not known", UnknownKind.UNRESOLVED)
    if all(isinstance(i, str) for i in items):
        return sorted(set(items))  # Terraform orders a set of strings lexically
    out: list[Any] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _tomap(args: list[Any], shown: str) -> Any:
    if len(args) != 1 or not isinstance(args[0], dict):
        return _error(shown, "expects one object")
    return dict(args[0])


def _concat(args: list[Any], shown: str) -> Any:
    out: list[Any] = []
    for arg in args:
        if not isinstance(arg, list):
            return _error(shown, "expects lists")
        out.extend(arg)
        if len(out) > MAX_ITEMS:
            return _error(shown, "the result is too large")
    return out


def _merge(args: list[Any], shown: str) -> Any:
    out: dict[str, Any] = {}
    for arg in args:
        if arg is None:
            continue
        if not isinstance(arg, dict):
            return _error(shown, "expects objects")
        out.update(arg)
    return out


def _coalesce(args: list[Any], shown: str) -> Any:
    for arg in args:
        if isinstance(arg, Unknown):
            return arg  # whether it is null decides the result
        if arg is not None and arg != "":
            return arg
    return _error(shown, "no argument is non-null and non-empty")


def _lookup(args: list[Any], shown: str) -> Any:
    if len(args) not in (2, 3) or not isinstance(args[0], dict):
        return _error(shown, "expects an object, a key and maybe a default")
    key = args[1]
    if isinstance(key, Unknown):
        return key
    if key in args[0]:
        return args[0][key]
    if len(args) == 3:
        return args[2]
    return _error(shown, "the key is not in the object and there is no default")


def _length(args: list[Any], shown: str) -> Any:
    if len(args) != 1:
        return _error(shown, "expects one argument")
    value = args[0]
    if isinstance(value, list | dict | str):
        return len(value)
    return _error(shown, "expects a list, an object or a string")


def _join(args: list[Any], shown: str) -> Any:
    if len(args) < 2 or not isinstance(args[0], str):
        return _error(shown, "expects a separator and lists")
    items: list[str] = []
    for arg in args[1:]:
        if not isinstance(arg, list):
            return _error(shown, "expects lists")
        for item in arg:
            if isinstance(item, Unknown):
                return item
            text = to_string(item)
            if text is None:
                return _error(shown, "expects lists of strings")
            items.append(text)
    out = args[0].join(items)
    return _error(shown, "the string is too long") if len(out) > MAX_STRING else out


_VERB = re.compile(r"%(%|[-+# 0]*(?:\d+)?(?:\.\d+)?([a-zA-Z]))")


def _format(args: list[Any], shown: str) -> Any:
    if not args or not isinstance(args[0], str):
        return _error(shown, "expects a format string")
    spec, values = args[0], args[1:]
    out: list[str] = []
    position = 0
    used = 0
    for m in _VERB.finditer(spec):
        out.append(spec[position : m.start()])
        position = m.end()
        if m.group(1) == "%":
            out.append("%")
            continue
        verb = m.group(2)
        if m.group(0) != "%" + verb or verb not in "sdvq":
            return unknown(
                shown,
                f"the format verb %{m.group(1)} is not evaluated",
                UnknownKind.NOT_IMPLEMENTED,
            )
        if used >= len(values):
            return _error(shown, "too few arguments for the format")
        value = values[used]
        used += 1
        if verb == "d":
            if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
                return _error(shown, "%d needs a whole number")
            out.append(str(int(value)))
        elif verb == "q":
            if not isinstance(value, str):
                return _error(shown, "%q needs a string")
            out.append(json.dumps(value, ensure_ascii=False))
        else:
            text = to_string(value)
            if text is None:
                return unknown(
                    shown,
                    f"%{verb} of a list or object is not evaluated",
                    UnknownKind.NOT_IMPLEMENTED,
                )
            out.append(text)
    out.append(spec[position:])
    if used != len(values):
        return _error(shown, "too many arguments for the format")
    text = "".join(out)
    return _error(shown, "the string is too long") if len(text) > MAX_STRING else text


def _jsonencode(args: list[Any], shown: str) -> Any:
    if len(args) != 1:
        return _error(shown, "expects one argument")
    text = to_json_text(args[0])
    return _error(shown, "the value cannot be written as JSON") if text is None else text


FUNCTIONS: dict[str, Callable[[list[Any], str], Any]] = {
    "lower": _lower,
    "upper": _upper,
    "trimspace": _trimspace,
    "format": _format,
    "join": _join,
    "concat": _concat,
    "merge": _merge,
    "coalesce": _coalesce,
    "lookup": _lookup,
    "length": _length,
    "tostring": _tostring,
    "tonumber": _tonumber,
    "tobool": _tobool,
    "tolist": _tolist,
    "toset": _toset,
    "tomap": _tomap,
    "jsonencode": _jsonencode,
}

# Functions whose result keeps its shape when an argument holds an unknown somewhere inside: they
# are called with the unknowns in place (a top-level unknown argument still makes them unknown).
_SHAPE_KEEPING = frozenset({"concat", "merge", "tolist", "tomap", "coalesce", "lookup", "length"})


def call(name: str, args: list[Any], shown: str) -> Any:
    """The value of ``name(args...)``; ``shown`` is the call as an Unknown quotes it."""
    function = FUNCTIONS.get(name)
    if function is None:
        return unknown(
            shown, f"the function {name}() is not evaluated", UnknownKind.NOT_IMPLEMENTED
        )
    if name != "coalesce":
        missing = first_unknown(*args)
        if missing is not None:
            return missing
    if name not in _SHAPE_KEEPING and name != "toset" and find_unknown(args) is not None:
        inner = find_unknown(args)
        assert inner is not None
        return Unknown(
            shown, f"an argument is not known ({inner.reason})", inner.kind, inner.origin
        )
    return function(args, shown)
