"""Integer arithmetic, 64-bit and checked, dividing as .NET does (toward zero)."""

from __future__ import annotations

from typing import Any

from auditor.expr.arm.ast import Call
from auditor.expr.arm.functions._args import (
    checked,
    int_arg,
)
from auditor.expr.arm.functions._table import (
    Evaluation,
    Problem,
    builtin,
)


def _operands(call: Call, args: list[Any]) -> tuple[int, int]:
    return int_arg(args, 0, call), int_arg(args, 1, call)


@builtin("add", 2, 2)
def _add(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    left, right = _operands(call, args)
    return checked(left + right, call)


@builtin("sub", 2, 2)
def _sub(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    left, right = _operands(call, args)
    return checked(left - right, call)


@builtin("mul", 2, 2)
def _mul(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    left, right = _operands(call, args)
    return checked(left * right, call)


def _truncated_division(call: Call, args: list[Any]) -> tuple[int, int]:
    left, right = _operands(call, args)
    if right == 0:
        raise Problem(f"{call.name}() divides by zero")
    quotient = abs(left) // abs(right)
    if (left < 0) != (right < 0):
        quotient = -quotient
    return checked(quotient, call), left - right * quotient


@builtin("div", 2, 2)
def _div(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _truncated_division(call, args)[0]


@builtin("mod", 2, 2)
def _mod(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _truncated_division(call, args)[1]
