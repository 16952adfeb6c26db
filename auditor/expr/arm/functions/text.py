"""String functions: ``concat``, ``format`` (.NET composite formatting), case, ``trim``,
``replace``, ``split``, ``join``, ``substring``, ``padLeft``, ``length``, ``empty``, ``contains`` and
the searches."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from auditor.expr.arm.ast import Call
from auditor.expr.arm.functions._args import (
    ASTRAL,
    NOT_IMPLEMENTED,
    bmp,
    bool_text,
    find_key,
    int_arg,
    limit_items,
    limit_text,
    need,
    require_ascii,
    text_arg,
)
from auditor.expr.arm.functions._table import (
    Evaluation,
    Problem,
    PropagateUnknown,
    builtin,
)
from auditor.expr.arm.values import (
    MAX_STRING,
    Unknown,
    describe_type,
    find_unknown,
    values_equal,
)


def _concat_text(value: Any, position: int, call: Call) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return bool_text(value)
    if isinstance(value, int):
        return str(value)
    if value is None:
        return ""
    raise need(call, position, "strings or integers (or arrays only)", value)


def _partial_concat(args: list[Any], first: Unknown, call: Call) -> Unknown:
    """A string concatenation with unknown pieces: unknown, keeping the known pieces in order
    (``None`` for each unknown one) so that a check can judge what they settle."""
    parts: list[str | None] = []
    for position, value in enumerate(args):
        if isinstance(value, Unknown):
            parts.extend(value.known_parts or (None,))
        elif isinstance(value, list | dict):
            return first  # an array concatenation, or an error: nothing of it is known
        else:
            parts.append(_concat_text(value, position, call))
    merged: list[str | None] = []
    for part in parts:
        if part == "":
            continue
        if part is not None and merged and merged[-1] is not None:
            merged[-1] = f"{merged[-1]}{part}"
        else:
            merged.append(part)
    if sum(len(part) for part in merged if part is not None) > MAX_STRING:
        return first
    return replace(first, known_parts=tuple(merged))


@builtin("concat", 1, takes_unknown=True)
def _concat(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    first = next((value for value in args if isinstance(value, Unknown)), None)
    if first is not None:
        return _partial_concat(args, first, call)
    if all(isinstance(value, list) for value in args):
        return limit_items([item for value in args for item in value], call)
    text = "".join(_concat_text(value, i, call) for i, value in enumerate(args))
    return limit_text(text, call)


@builtin("format", 1)
def _format(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return limit_text(_composite_format(text_arg(args, 0, call), args[1:], call), call)


def _format_problem(call: Call) -> Problem:
    return Problem(f"{call.name}() got a malformed format string")


def _composite_format(template: str, values: list[Any], call: Call) -> str:
    """.NET composite formatting: ``{index[,alignment][:format]}``, ``{{`` and ``}}``."""
    out: list[str] = []
    position = 0
    length = len(template)
    while position < length:
        char = template[position]
        if char == "}":
            if template.startswith("}}", position):
                out.append("}")
                position += 2
                continue
            raise _format_problem(call)
        if char != "{":
            out.append(char)
            position += 1
            continue
        if template.startswith("{{", position):
            out.append("{")
            position += 2
            continue
        close = template.find("}", position)
        if close < 0:
            raise _format_problem(call)
        item = template[position + 1 : close]
        if "{" in item or template.startswith("}}", close):
            raise Problem(
                f"{call.name}() with braces inside a format item is not implemented",
                NOT_IMPLEMENTED,
            )
        match = re.fullmatch(r"([0-9]+) *(?:, *(-?[0-9]+) *)?(?::(.*))?", item, re.DOTALL)
        if match is None:
            raise _format_problem(call)
        index = int(match.group(1))
        if index >= len(values):
            raise Problem(
                f"{call.name}() refers to argument {{{index}}} but has {len(values)} to format"
            )
        text = _format_value(values[index], match.group(3), call)
        if match.group(2) is not None:
            width = int(match.group(2))
            if abs(width) > MAX_STRING:
                raise _format_problem(call)
            text = text.rjust(width) if width > 0 else text.ljust(-width)
        out.append(text)
        position = close + 1
    return "".join(out)


def _format_value(value: Any, spec: str | None, call: Call) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return bool_text(value)
    if value is None:
        return ""
    if isinstance(value, int):
        return _format_int(value, spec or "", call)
    raise Problem(f"{call.name}() of {describe_type(value)} is not implemented", NOT_IMPLEMENTED)


def _format_int(value: int, spec: str, call: Call) -> str:
    if spec == "" or spec in ("G", "g"):
        return str(value)
    match = re.fullmatch(r"([NnDdXxFf])([0-9]{0,2})", spec)
    if match is None:
        raise Problem(
            f"{call.name}() with that format specifier is not implemented", NOT_IMPLEMENTED
        )
    kind = match.group(1).upper()
    digits = match.group(2)
    if kind == "D":
        text = str(abs(value)).rjust(int(digits or 0), "0")
        return "-" + text if value < 0 else text
    if kind == "X":
        hexa = format(value & 0xFFFFFFFFFFFFFFFF, "x")
        hexa = hexa.rjust(int(digits or 0), "0")
        return hexa.upper() if match.group(1) == "X" else hexa
    decimals = int(digits) if digits else 2
    fraction = "." + "0" * decimals if decimals else ""
    if kind == "N":
        return f"{value:,}" + fraction
    return str(value) + fraction


def _case_map(text: str, mapping: Callable[[str], str], call: Call) -> str:
    """Per-character (simple) case mapping, as .NET's invariant culture does."""
    if text.isascii():
        return mapping(text)
    out = []
    for char in text:
        mapped = mapping(char)
        if len(mapped) != 1:
            raise Problem(
                f"{call.name}() of a character whose case maps to several is not implemented",
                NOT_IMPLEMENTED,
            )
        out.append(mapped)
    return "".join(out)


@builtin("toLower", 1, 1)
def _to_lower(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _case_map(text_arg(args, 0, call), str.lower, call)


@builtin("toUpper", 1, 1)
def _to_upper(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _case_map(text_arg(args, 0, call), str.upper, call)


# .NET's Char.IsWhiteSpace set (Python's str.isspace also counts U+001C..U+001F).
_WHITESPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


@builtin("trim", 1, 1)
def _trim(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return text_arg(args, 0, call).strip(_WHITESPACE)


@builtin("replace", 3, 3)
def _replace(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    text, old, new = (text_arg(args, i, call) for i in range(3))
    if not old:
        raise Problem("replace() cannot replace an empty string")
    exact = text.replace(old, new)
    # Whether the vendor's replace() ignores case is not documented: answer only where it does not
    # matter (the text holds no other-case spelling of what is replaced).
    require_ascii(call, text, old)
    folded = re.sub(re.escape(old), lambda _: new, text, flags=re.IGNORECASE)
    if folded != exact:
        raise Problem(
            "replace() where the text holds the replaced string in another case is not implemented",
            NOT_IMPLEMENTED,
        )
    return limit_text(exact, call)


def _split_text(text: str, separators: list[str]) -> list[str]:
    """.NET ``String.Split(string[], None)``: at each position the first separator (in the given
    order) that matches; a regular expression's alternation tries them in the same order."""
    pattern = "|".join(re.escape(separator) for separator in separators if separator)
    return re.split(pattern, text)


@builtin("split", 2, 2)
def _split(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    text = text_arg(args, 0, call)
    delimiter = args[1]
    found = find_unknown(delimiter)
    if found is not None:
        raise PropagateUnknown(found)
    if isinstance(delimiter, str):
        separators = [delimiter]
    elif isinstance(delimiter, list) and all(isinstance(d, str) for d in delimiter):
        separators = list(delimiter)
    else:
        raise need(call, 1, "a string or an array of strings", delimiter)
    if not any(separators) or len(separators) > 100:
        raise Problem(
            "split() with only empty delimiters, or over 100 of them, is not implemented",
            NOT_IMPLEMENTED,
        )
    return limit_items(_split_text(text, separators), call)


@builtin("join", 2, 2)
def _join(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    items = args[0]
    if not isinstance(items, list):
        raise need(call, 0, "an array", items)
    delimiter = text_arg(args, 1, call)
    for item in items:
        if isinstance(item, Unknown):
            raise PropagateUnknown(item)
        if not isinstance(item, str):
            raise Problem("join() expects an array of strings")
    return limit_text(delimiter.join(items), call)


@builtin("substring", 2, 3)
def _substring(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    text = bmp(text_arg(args, 0, call), call)
    start = int_arg(args, 1, call)
    if start < 0 or start > len(text):
        raise Problem("substring() start index is outside the string")
    if len(args) == 2:
        return text[start:]
    count = int_arg(args, 2, call)
    if count < 0 or start + count > len(text):
        raise Problem("substring() length reaches outside the string")
    return text[start : start + count]


@builtin("padLeft", 2, 3)
def _pad_left(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    value = args[0]
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise need(call, 0, "a string or an integer", value)
    width = int_arg(args, 1, call)
    pad = " "
    if len(args) == 3 and args[2] is not None:
        pad = text_arg(args, 2, call)
        if len(pad) != 1 or ASTRAL.search(pad):
            raise Problem("padLeft() expects a single padding character")
    if width > MAX_STRING:
        raise Problem(f"padLeft() makes a string over {MAX_STRING} characters")
    return bmp(value, call).rjust(width, pad)


@builtin("length", 1, 1)
def _length(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    value = args[0]
    if value is None:
        return 0
    if isinstance(value, list | dict):
        return len(value)
    if isinstance(value, str):
        return len(value) + len(ASTRAL.findall(value))  # UTF-16 code units
    raise need(call, 0, "a string, an array or an object", value)


@builtin("empty", 1, 1)
def _empty(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    value = args[0]
    if value is None:
        return True
    if isinstance(value, str | list | dict):
        return len(value) == 0
    raise need(call, 0, "a string, an array or an object", value)


def _search_array(items: list[Any], target: Any, order: range) -> int | Unknown:
    undecided: Unknown | None = None
    for position in order:
        same = values_equal(items[position], target)
        if same:
            return position if undecided is None else undecided
        if same is None:
            undecided = (
                undecided
                or find_unknown([items[position], target])
                or Unknown("", "the values are too large to compare")
            )
    return -1 if undecided is None else undecided


@builtin("contains", 2, 2, takes_unknown=True)
def _contains(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    container, item = args
    if isinstance(container, Unknown):
        raise PropagateUnknown(container)
    if isinstance(container, list):
        found = _search_array(container, item, range(len(container)))
        if isinstance(found, Unknown):
            raise PropagateUnknown(found)
        return found >= 0
    if isinstance(item, Unknown):
        raise PropagateUnknown(item)
    if isinstance(container, dict):
        key = text_arg(args, 1, call)
        return find_key(container, key) is not None
    if isinstance(container, str):
        if not isinstance(item, str):
            raise Problem(
                "contains() of a string with a non-string to find is not implemented",
                NOT_IMPLEMENTED,
            )
        return item in container
    raise need(call, 0, "a string, an array or an object", container)


def _fold_index(text: str, target: str, last: bool, call: Call) -> int:
    require_ascii(call, text, target)
    bmp(text, call)
    folded, wanted = text.lower(), target.lower()
    return folded.rfind(wanted) if last else folded.find(wanted)


def _index_of(call: Call, args: list[Any], last: bool) -> Any:
    container, item = args
    if isinstance(container, Unknown):
        raise PropagateUnknown(container)
    if container is None:
        return -1
    if isinstance(container, list):
        order = range(len(container) - 1, -1, -1) if last else range(len(container))
        found = _search_array(container, item, order)
        if isinstance(found, Unknown):
            raise PropagateUnknown(found)
        return found
    if isinstance(item, Unknown):
        raise PropagateUnknown(item)
    if isinstance(container, str):
        target = text_arg(args, 1, call)
        if last and not target:
            raise Problem("lastIndexOf() of an empty string is not implemented", NOT_IMPLEMENTED)
        return _fold_index(container, target, last, call)
    raise need(call, 0, "a string or an array", container)


@builtin("indexOf", 2, 2, takes_unknown=True)
def _index_of_first(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _index_of(call, args, last=False)


@builtin("lastIndexOf", 2, 2, takes_unknown=True)
def _index_of_last(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _index_of(call, args, last=True)


@builtin("startsWith", 2, 2)
def _starts_with(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    text, prefix = text_arg(args, 0, call), text_arg(args, 1, call)
    require_ascii(call, text, prefix)
    return text.lower().startswith(prefix.lower())


@builtin("endsWith", 2, 2)
def _ends_with(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    text, suffix = text_arg(args, 0, call), text_arg(args, 1, call)
    require_ascii(call, text, suffix)
    return text.lower().endswith(suffix.lower())
