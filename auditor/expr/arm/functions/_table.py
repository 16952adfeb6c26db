"""The table of functions: what an implementation is, how one is registered and looked up,
and how it says that a call has no value (or that an unknown value decides it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from auditor.expr.arm.ast import Call, Expr
from auditor.expr.arm.context import ArmContext
from auditor.expr.arm.values import (
    Unknown,
    UnknownKind,
)


class Problem(Exception):
    """Why a call has no value; the evaluator turns it into an :class:`Unknown` of ``kind``."""

    def __init__(self, reason: str, kind: UnknownKind = UnknownKind.ERROR) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Lambda:
    """A ``lambda('x', body)`` value: only ever an argument of ``map``, ``filter`` and the like."""

    names: tuple[str, ...]
    body: Expr
    bindings: tuple[tuple[str, Any], ...]


class Evaluation(Protocol):
    """What an implementation can ask of the evaluation it runs in."""

    @property
    def context(self) -> ArmContext: ...

    def evaluate(self, node: Expr) -> Any: ...

    def parameter(self, name: str, call: Call) -> Any: ...

    def variable(self, name: str, call: Call) -> Any: ...

    def lambda_variable(self, name: str, call: Call) -> Any: ...

    def bindings(self) -> tuple[tuple[str, Any], ...]: ...

    def apply(self, function: Lambda, args: list[Any]) -> Any: ...

    def user_function(self, call: Call, args: list[Any]) -> Any: ...


Impl = Callable[[Evaluation, Call, Any], Any]


@dataclass(frozen=True, slots=True)
class Builtin:
    """One function of the table."""

    name: str
    impl: Impl
    min_args: int = 0
    max_args: int | None = None
    lazy: bool = False
    takes_unknown: bool = False


FUNCTIONS: dict[str, Builtin] = {}


def builtin(
    name: str,
    min_args: int = 0,
    max_args: int | None = None,
    *,
    lazy: bool = False,
    takes_unknown: bool = False,
) -> Callable[[Impl], Impl]:
    """Register the decorated implementation as the function ``name`` (case-insensitive)."""

    def register(impl: Impl) -> Impl:
        FUNCTIONS[name.lower()] = Builtin(name, impl, min_args, max_args, lazy, takes_unknown)
        return impl

    return register


def lookup(key: str) -> Builtin | None:
    """The built-in function called ``key`` (lower case), if there is one."""
    return FUNCTIONS.get(key)


class PropagateUnknown(Exception):
    """An unknown value decides the call's result (found inside an argument, say)."""

    def __init__(self, unknown: Unknown) -> None:
        super().__init__(unknown.reason)
        self.unknown = unknown
