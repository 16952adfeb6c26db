"""Logical and comparison functions: ``true``, ``false``, ``null``, ``not``, ``and``, ``or``,
``if``, ``coalesce``, ``equals``, ``less`` and the like."""

from __future__ import annotations

import re
from typing import Any

from auditor.expr.arm.ast import Call, Expr
from auditor.expr.arm.functions._args import (
    NOT_IMPLEMENTED,
    bool_arg,
    need,
)
from auditor.expr.arm.functions._table import (
    Evaluation,
    Problem,
    PropagateUnknown,
    builtin,
)
from auditor.expr.arm.values import (
    Unknown,
    find_unknown,
    values_equal,
)


@builtin("true", 0, 0)
def _true(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return True


@builtin("false", 0, 0)
def _false(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return False


@builtin("null", 0, 0)
def _null(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return None


@builtin("not", 1, 1)
def _not(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return not bool_arg(args, 0, call)


def _logic(call: Call, args: list[Any], decisive: bool) -> Any:
    unknown: Unknown | None = None
    for position, value in enumerate(args):
        if isinstance(value, Unknown):
            unknown = unknown or value
        elif not isinstance(value, bool):
            raise need(call, position, "a boolean", value)
    if decisive in args:
        return decisive
    if unknown is not None:
        raise PropagateUnknown(unknown)
    return not decisive


@builtin("and", 2, takes_unknown=True)
def _and(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _logic(call, args, False)


@builtin("or", 2, takes_unknown=True)
def _or(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _logic(call, args, True)


@builtin("if", 3, 3, lazy=True)
def _if(ev: Evaluation, call: Call, exprs: tuple[Expr, ...]) -> Any:
    condition = ev.evaluate(exprs[0])
    if isinstance(condition, Unknown):
        # determined anyway when both branches have the same known value
        when_true = ev.evaluate(exprs[1])
        when_false = ev.evaluate(exprs[2])
        if values_equal(when_true, when_false) and find_unknown(when_true) is None:
            return when_true
        raise PropagateUnknown(condition)
    if not isinstance(condition, bool):
        raise need(call, 0, "a boolean", condition)
    return ev.evaluate(exprs[1] if condition else exprs[2])


@builtin("coalesce", 1, lazy=True)
def _coalesce(ev: Evaluation, call: Call, exprs: tuple[Expr, ...]) -> Any:
    for expr in exprs:
        value = ev.evaluate(expr)
        if isinstance(value, Unknown):
            raise PropagateUnknown(value)  # it may or may not be null
        if value is not None:
            return value
    return None


@builtin("equals", 2, 2, takes_unknown=True)
def _equals(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    same = values_equal(args[0], args[1])
    if same is None:
        raise PropagateUnknown(
            find_unknown(args) or Unknown("", "the values are too large to compare")
        )
    return same


_LOWER_ALNUM = re.compile(r"[0-9a-z]*\Z")
_UPPER_ALNUM = re.compile(r"[0-9A-Z]*\Z")


def _compare(call: Call, args: list[Any]) -> int:
    left, right = args
    if isinstance(left, str) or isinstance(right, str):
        if not (isinstance(left, str) and isinstance(right, str)):
            raise Problem(f"{call.name}() compares two strings or two numbers")
        # The vendor's engine compares strings culture-aware; for text of only lower-case (or
        # only upper-case) ASCII letters and digits that is the order of the code points.
        same_form = (_LOWER_ALNUM.match(left) and _LOWER_ALNUM.match(right)) or (
            _UPPER_ALNUM.match(left) and _UPPER_ALNUM.match(right)
        )
        if not same_form:
            raise Problem(
                f"{call.name}() of strings other than lower-case (or upper-case) ASCII letters and "
                "digits is not implemented",
                NOT_IMPLEMENTED,
            )
        return (left > right) - (left < right)
    for position, value in enumerate(args):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise need(call, position, "an integer or a string", value)
    return int(left > right) - int(left < right)


@builtin("less", 2, 2)
def _less(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _compare(call, args) < 0


@builtin("lessOrEquals", 2, 2)
def _less_or_equals(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _compare(call, args) <= 0


@builtin("greater", 2, 2)
def _greater(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _compare(call, args) > 0


@builtin("greaterOrEquals", 2, 2)
def _greater_or_equals(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _compare(call, args) >= 0
