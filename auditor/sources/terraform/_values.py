"""Values of Terraform expressions: Terraform's conversions between strings, numbers and booleans,
equality, logic that a known operand decides (``true || x``), arithmetic, the iteration order of
``for`` expressions and ``for_each``, and the Unknowns the evaluator makes (their texts are source
text, folded and clipped, never text that looks like a secret)."""

from __future__ import annotations

import functools
import math
from typing import Any

from auditor.errors import clip, looks_secret
from auditor.expr.arm.values import Unknown, UnknownKind, find_unknown

__all__ = [
    "TEXT_LIMIT",
    "arithmetic",
    "first_unknown",
    "for_each_items",
    "iterate",
    "logic",
    "same",
    "source_text",
    "to_bool",
    "to_number",
    "to_string",
    "unknown",
]

TEXT_LIMIT = 200
"""Characters of source text an Unknown quotes, at most."""


@functools.lru_cache(maxsize=4096)
def source_text(text: str, fallback: str = "an expression") -> str:
    """Source text as an Unknown quotes it: white space folded, clipped, and ``fallback`` instead
    when the text looks like it holds a secret (a literal password beside a reference, say).
    (Remembered: a repository's modules repeat their references.)"""
    shown = clip(" ".join(text.split()), TEXT_LIMIT)
    return fallback if looks_secret(shown) else shown


def unknown(text: str, reason: str, kind: UnknownKind = UnknownKind.UNRESOLVED) -> Unknown:
    """An Unknown whose expression and origin are the source text ``text`` (clipped)."""
    shown = source_text(text)
    return Unknown(shown, reason, kind, shown)


def first_unknown(*values: Any) -> Unknown | None:
    for value in values:
        if isinstance(value, Unknown):
            return value
    return None


def to_string(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)
    if isinstance(value, str):
        return value
    return None


def to_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value in ("true", "false"):
        return value == "true"
    return None


def to_number(value: Any) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        if not math.isfinite(number):
            return None
        return (
            int(number)
            if number.is_integer() and "." not in value and "e" not in value.lower()
            else number
        )
    return None


def same(a: Any, b: Any) -> bool | None:
    if find_unknown(a) is not None or find_unknown(b) is not None:
        return None
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if type(a) is not type(b):
        return False
    return bool(a == b)


def logic(op: str, left: Any, right: Any, text: str) -> Any:
    values: list[bool | Unknown] = []
    for value in (left, right):
        if isinstance(value, Unknown):
            values.append(value)
            continue
        flag = to_bool(value)
        if flag is None:
            return unknown(text, f"'{op}' needs booleans", UnknownKind.ERROR)
        values.append(flag)
    a, b = values
    decisive = op == "||"  # true decides ||, false decides &&
    if a is decisive or b is decisive:
        return decisive
    missing = first_unknown(a, b)
    if missing is not None:
        return missing
    return (a or b) if op == "||" else (a and b)


def arithmetic(op: str, a: int | float, b: int | float, text: str) -> Any:
    if op in ("<", ">", "<=", ">="):
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
    try:
        if op == "+":
            result: int | float = a + b
        elif op == "-":
            result = a - b
        elif op == "*":
            if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > 256:
                return unknown(text, "the number is too large", UnknownKind.ERROR)
            result = a * b
        elif op == "/":
            result = a / b
        elif op == "%":  # the sign of the dividend, as Terraform (and Go) compute it
            if isinstance(a, int) and isinstance(b, int):
                result = abs(a) % abs(b) * (-1 if a < 0 else 1)
            else:
                result = math.fmod(a, b)
        else:
            return unknown(text, "this operator is not evaluated", UnknownKind.NOT_IMPLEMENTED)
    except (ZeroDivisionError, OverflowError):
        return unknown(
            text, "the arithmetic has no result (division by zero or overflow)", UnknownKind.ERROR
        )
    if isinstance(result, float):
        if not math.isfinite(result):
            return unknown(text, "the number is too large", UnknownKind.ERROR)
        if result.is_integer() and abs(result) < 2**53:
            return int(result)
    return result


def iterate(collection: Any) -> list[tuple[Any, Any]] | Unknown:
    """(key, value) pairs of a list (index, element) or an object (keys in lexical order)."""
    if isinstance(collection, Unknown):
        return collection
    if isinstance(collection, list):
        return list(enumerate(collection))
    if isinstance(collection, dict):
        return sorted(collection.items())
    return unknown("", "a for expression needs a list or an object", UnknownKind.ERROR)


def for_each_items(collection: Any) -> list[tuple[str, Any]] | Unknown:
    """``for_each`` instances: an object's keys and values, or a set of strings (each its own key)."""
    if isinstance(collection, Unknown):
        return collection
    if isinstance(collection, dict):
        if find_unknown(list(collection.keys())) is not None:
            return unknown("", "a key is not known", UnknownKind.UNRESOLVED)
        return sorted(collection.items())
    if isinstance(collection, list):
        keys: set[str] = set()
        for item in collection:
            if isinstance(item, Unknown):
                return item
            if not isinstance(item, str):
                return unknown("", "for_each needs a map or a set of strings", UnknownKind.ERROR)
            keys.add(item)
        return [(k, k) for k in sorted(keys)]
    return unknown("", "for_each needs a map or a set of strings", UnknownKind.ERROR)
