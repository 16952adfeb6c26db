"""Lambdas and the functions that take them: ``lambda``, ``lambdaVariables``, ``map``,
``filter``, ``reduce``, ``sort``, ``toObject``, ``mapValues``."""

from __future__ import annotations

import functools
from typing import Any

from auditor.expr.arm.ast import Call, Expr, StrLit
from auditor.expr.arm.functions._args import (
    need,
    text_arg,
)
from auditor.expr.arm.functions._table import (
    Evaluation,
    Lambda,
    Problem,
    PropagateUnknown,
    builtin,
)
from auditor.expr.arm.values import (
    Unknown,
)


@builtin("lambda", 2, lazy=True)
def _lambda(ev: Evaluation, call: Call, exprs: tuple[Expr, ...]) -> Any:
    names: list[str] = []
    for expr in exprs[:-1]:
        if not isinstance(expr, StrLit):
            raise Problem("lambda() names its variables with string literals")
        names.append(expr.value)
    return Lambda(tuple(names), exprs[-1], ev.bindings())


@builtin("lambdaVariables", 1, 1)
def _lambda_variables(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return ev.lambda_variable(text_arg(args, 0, call), call)


def _lambda_arg(args: list[Any], position: int, call: Call, arity: tuple[int, ...]) -> Lambda:
    value = args[position]
    if not isinstance(value, Lambda):
        raise need(call, position, "a lambda", value)
    if len(value.names) not in arity:
        raise Problem(
            f"{call.name}() expects a lambda of {' or '.join(map(str, arity))} variable(s)"
        )
    return value


def _array_arg(args: list[Any], position: int, call: Call) -> list[Any]:
    value = args[position]
    if not isinstance(value, list):
        raise need(call, position, "an array", value)
    return value


@builtin("map", 2, 2)
def _map(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    items = _array_arg(args, 0, call)
    function = _lambda_arg(args, 1, call, (1, 2))
    return [
        ev.apply(function, [item, index][: len(function.names)]) for index, item in enumerate(items)
    ]


@builtin("filter", 2, 2)
def _filter(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    items = _array_arg(args, 0, call)
    function = _lambda_arg(args, 1, call, (1, 2))
    kept: list[Any] = []
    for index, item in enumerate(items):
        keep = ev.apply(function, [item, index][: len(function.names)])
        if isinstance(keep, Unknown):
            raise PropagateUnknown(keep)
        if not isinstance(keep, bool):
            raise Problem("filter()'s lambda must return a boolean")
        if keep:
            kept.append(item)
    return kept


@builtin("reduce", 3, 3)
def _reduce(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    items = _array_arg(args, 0, call)
    function = _lambda_arg(args, 2, call, (2, 3))
    current = args[1]
    for index, item in enumerate(items):
        current = ev.apply(function, [current, item, index][: len(function.names)])
    return current


@builtin("sort", 2, 2)
def _sort(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    items = _array_arg(args, 0, call)
    function = _lambda_arg(args, 1, call, (2,))

    def before(left: Any, right: Any) -> int:
        answer = ev.apply(function, [left, right])
        if isinstance(answer, Unknown):
            raise PropagateUnknown(answer)
        if not isinstance(answer, bool):
            raise Problem("sort()'s lambda must return a boolean")
        if answer:
            return -1
        reverse = ev.apply(function, [right, left])
        if isinstance(reverse, Unknown):
            raise PropagateUnknown(reverse)
        return 1 if reverse is True else 0

    return sorted(items, key=functools.cmp_to_key(before))


@builtin("toObject", 2, 3)
def _to_object(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    items = _array_arg(args, 0, call)
    key_of = _lambda_arg(args, 1, call, (1,))
    value_of = _lambda_arg(args, 2, call, (1,)) if len(args) == 3 else None
    result: dict[str, Any] = {}
    for item in items:
        key = ev.apply(key_of, [item])
        if isinstance(key, Unknown):
            raise PropagateUnknown(key)
        if not isinstance(key, str):
            raise Problem("toObject()'s key lambda must return a string")
        result[key] = item if value_of is None else ev.apply(value_of, [item])
    return result


@builtin("mapValues", 2, 2)
def _map_values(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    value = args[0]
    if not isinstance(value, dict):
        raise need(call, 0, "an object", value)
    function = _lambda_arg(args, 1, call, (1,))
    return {key: ev.apply(function, [item]) for key, item in value.items()}
