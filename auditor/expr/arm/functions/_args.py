"""Helpers the function implementations share: argument checks, limits, text rules, property
access. A reason built here never quotes a computed value."""

from __future__ import annotations

import re
from typing import Any

from auditor.expr.arm.ast import Call, StrLit
from auditor.expr.arm.functions._table import (
    Lambda,
    Problem,
    PropagateUnknown,
)
from auditor.expr.arm.values import (
    MAX_ITEMS,
    MAX_STRING,
    UnknownKind,
    describe_type,
    find_unknown,
    to_json_text,
)

NOT_IMPLEMENTED = UnknownKind.NOT_IMPLEMENTED
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def need(call: Call, position: int, wanted: str, value: Any) -> Problem:
    return Problem(
        f"{call.name}() expects {wanted} as argument {position + 1}, found {describe_type(value)}"
    )


def text_arg(args: list[Any], position: int, call: Call) -> str:
    value = args[position]
    if not isinstance(value, str):
        raise need(call, position, "a string", value)
    return value


def int_arg(args: list[Any], position: int, call: Call) -> int:
    value = args[position]
    if not isinstance(value, int) or isinstance(value, bool):
        raise need(call, position, "an integer", value)
    return value


def bool_arg(args: list[Any], position: int, call: Call) -> bool:
    value = args[position]
    if not isinstance(value, bool):
        raise need(call, position, "a boolean", value)
    return value


def checked(value: int, call: Call) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise Problem(f"{call.name}() overflows a 64-bit integer")
    return value


ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def bmp(text: str, call: Call) -> str:
    """``text``, when indexing it the way .NET does (UTF-16 code units) is indexing it here."""
    if ASTRAL.search(text):
        raise Problem(
            f"{call.name}() on text with characters outside the Basic Multilingual Plane is not "
            "implemented",
            NOT_IMPLEMENTED,
        )
    return text


def require_ascii(call: Call, *texts: str) -> None:
    """Case-insensitive comparison is implemented for ASCII text (where it is unambiguous)."""
    if not all(text.isascii() for text in texts):
        raise Problem(
            f"{call.name}() compares text case-insensitively; for non-ASCII text that is not "
            "implemented",
            NOT_IMPLEMENTED,
        )


def bool_text(value: bool) -> str:
    return "True" if value else "False"


def limit_text(text: str, call: Call) -> str:
    if len(text) > MAX_STRING:
        raise Problem(f"{call.name}() makes a string over {MAX_STRING} characters")
    return text


def limit_items(items: list[Any], call: Call) -> list[Any]:
    if len(items) > MAX_ITEMS:
        raise Problem(f"{call.name}() makes an array of more than {MAX_ITEMS} elements")
    return items


def find_key(obj: dict[str, Any], name: str) -> str | None:
    """The key of ``obj`` called ``name``: as written if present, else ignoring case."""
    if name in obj:
        return name
    folded = name.lower()
    for key in obj:
        if key.lower() == folded:
            return key
    return None


def json_text(value: Any, call: Call) -> str:
    found = find_unknown(value)
    if found is not None:
        raise PropagateUnknown(found)
    if holds_lambda(value):
        raise Problem(f"{call.name}() cannot convert a lambda to text")
    text = to_json_text(value)
    if text is None:
        raise Problem(f"{call.name}() makes a string over {MAX_STRING} characters")
    return text


def holds_lambda(value: Any) -> bool:
    """True when a lambda sits anywhere in ``value`` (walked without recursion)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Lambda):
            return True
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return False


def member(value: Any, key: Any, *, quote: bool = False) -> Any:
    """``value.key`` / ``value[key]``: an object's property (case-insensitive) or an array's
    element; anything else is a :class:`Problem` (the expression cannot have that value).

    A reason names the property only when ``quote`` (its name is template text, not a value)."""
    if isinstance(value, dict):
        if not isinstance(key, str):
            raise Problem(f"an object is indexed by a property name, not {describe_type(key)}")
        found = find_key(value, key)
        if found is None:
            raise Problem(f"the object has no property {quoted(key, quote)}")
        return value[found]
    if isinstance(value, list):
        if isinstance(key, bool) or not isinstance(key, int):
            raise Problem(f"an array is indexed by an integer, not {describe_type(key)}")
        if not 0 <= key < len(value):
            raise Problem(f"index {key} is out of range for an array of {len(value)} elements")
        return value[key]
    shown = f"property {quoted(key, quote)}" if isinstance(key, str) else f"index {key}"
    raise Problem(f"{describe_type(value)} has no {shown}")


def quoted(name: str, quote: bool) -> str:
    return f"'{name}'" if quote else "named by an expression"


def named(call: Call, position: int, value: Any) -> str:
    """A name an argument gives, for a reason: quoted when the argument is a string literal (text
    of the template), not when it was computed (a computed value is never quoted)."""
    literal = position < len(call.args) and isinstance(call.args[position], StrLit)
    return quoted(str(value), literal)


def text_args(args: list[Any], call: Call) -> list[str]:
    """Every argument, each a string."""
    return [text_arg(args, position, call) for position in range(len(args))]
