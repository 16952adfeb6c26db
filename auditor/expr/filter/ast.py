"""The typed AST of a ``$filter`` expression (semantics section 3).

Every node is a frozen dataclass.  ``pos`` is the 0-based offset in the source text of the token that
defines the node (the operator of a binary node, the first token otherwise; ``-1`` for nodes built in
code); it is ignored by ``==`` and ``hash``, so a parsed tree equals one built by hand.

Member names keep the spelling of the source (they are matched case-insensitively when evaluated);
keywords and function names are normalised (``eq``, ``atScope``), GUIDs are lower case, and
date-times are timezone-aware (a date-time written without an offset is UTC).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Literal, TypeAlias

CompareOp: TypeAlias = Literal["eq", "ne", "gt", "ge", "lt", "le"]
LambdaOp: TypeAlias = Literal["any", "all"]
FunctionName: TypeAlias = Literal[
    "contains",
    "startswith",
    "endswith",
    "tolower",
    "toupper",
    "trim",
    "length",
    "atScope",
    "assignedTo",
]

COMPARE_OPS: tuple[CompareOp, ...] = ("eq", "ne", "gt", "ge", "lt", "le")
FUNCTIONS: dict[str, FunctionName] = {
    "contains": "contains",
    "startswith": "startswith",
    "endswith": "endswith",
    "tolower": "tolower",
    "toupper": "toupper",
    "trim": "trim",
    "length": "length",
    "atscope": "atScope",
    "assignedto": "assignedTo",
}
"""Known functions by lower-case name, mapped to their canonical spelling."""

ARITY: dict[FunctionName, int] = {
    "contains": 2,
    "startswith": 2,
    "endswith": 2,
    "tolower": 1,
    "toupper": 1,
    "trim": 1,
    "length": 1,
    "atScope": 0,
    "assignedTo": 1,
}
BOOLEAN_FUNCTIONS: frozenset[str] = frozenset(
    {"contains", "startswith", "endswith", "atScope", "assignedTo"}
)
"""Functions whose result is a condition (the others give a value: ``tolower``, ``toupper`` and
``trim`` a string, ``length`` a number)."""

PARAMETERS = ("asOf", "settings")
"""What ``@NAME`` may name (rule packs only): ``@asOf``, the audit's clock, and ``@settings/NAME``,
the rule's setting in force."""


# --- literals -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StringLit:
    value: str
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class IntLit:
    value: int
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class DecimalLit:
    """A number written with a fraction or an exponent (``1.5``, ``2e3``); finite."""

    value: Decimal
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class BoolLit:
    value: bool
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class NullLit:
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class GuidLit:
    """An unquoted GUID; ``value`` is lower case."""

    value: str
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class DateTimeLit:
    """An unquoted date-time; ``value`` is timezone-aware."""

    value: datetime
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


# --- member paths, functions, lambdas -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Member:
    """A member path such as ``properties/eventType``: one name per segment.

    Inside a lambda, a path whose first segment is the lambda variable starts at the element.
    """

    path: tuple[str, ...]
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Call:
    """``name(args...)``; ``name`` is the canonical spelling of a known function."""

    name: FunctionName
    args: tuple[Expr, ...] = ()
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Lambda:
    """``collection/any(variable: predicate)``, ``collection/all(...)`` or ``collection/any()``."""

    collection: Member
    op: LambdaOp
    variable: str | None = None
    predicate: Expr | None = None
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Param:
    """``@asOf`` or ``@settings/NAME``: a value the filter is given when it is compiled (rule packs
    only; ``name`` is ``asOf`` or ``settings/NAME``). A filter holding one compiles only with the
    values in force (see :func:`auditor.expr.filter.bind_parameters`)."""

    name: str
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


# --- operators ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Compare:
    op: CompareOp
    left: Expr
    right: Expr
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class In:
    """``operand in (v1, v2, ...)``: at least one literal value."""

    operand: Expr
    values: tuple[LiteralNode, ...]
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class InParam:
    """``operand in @settings/NAME``: membership in a list setting (rule packs only)."""

    operand: Expr
    param: Param
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Not:
    operand: Expr
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class And:
    """Two or more operands (a chain ``a and b and c`` is one node)."""

    operands: tuple[Expr, ...]
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Or:
    """Two or more operands (a chain ``a or b or c`` is one node)."""

    operands: tuple[Expr, ...]
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)


LiteralNode: TypeAlias = StringLit | IntLit | DecimalLit | BoolLit | NullLit | GuidLit | DateTimeLit
"""Any literal node."""

Expr: TypeAlias = (
    StringLit
    | IntLit
    | DecimalLit
    | BoolLit
    | NullLit
    | GuidLit
    | DateTimeLit
    | Member
    | Param
    | Call
    | Lambda
    | Compare
    | In
    | InParam
    | Not
    | And
    | Or
)
"""Any node of a filter expression."""

LITERAL_TYPES: tuple[type, ...] = (
    StringLit,
    IntLit,
    DecimalLit,
    BoolLit,
    NullLit,
    GuidLit,
    DateTimeLit,
)


def is_condition(node: Expr) -> bool:
    """Whether ``node`` may stand where a condition is expected (a filter, an operand of and/or/not,
    a lambda predicate): anything but a non-boolean literal or a string function.  A bare member is a
    condition (a boolean member such as ``properties/isHIR``)."""
    if isinstance(node, LITERAL_TYPES):
        return isinstance(node, BoolLit)
    if isinstance(node, Call):
        return node.name in BOOLEAN_FUNCTIONS
    return True


def children(node: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of ``node``, in source order."""
    if isinstance(node, Compare):
        return (node.left, node.right)
    if isinstance(node, And | Or):
        return node.operands
    if isinstance(node, Not):
        return (node.operand,)
    if isinstance(node, In):
        return (node.operand, *node.values)
    if isinstance(node, InParam):
        return (node.operand, node.param)
    if isinstance(node, Call):
        return node.args
    if isinstance(node, Lambda):
        return (node.collection,) if node.predicate is None else (node.collection, node.predicate)
    return ()


def parameters(node: Expr) -> tuple[Param, ...]:
    """The ``@`` parameters ``node`` reads, in source order."""
    found: list[Param] = []
    stack: list[Expr] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Param):
            found.append(current)
        stack.extend(reversed(children(current)))
    return tuple(found)


def depth_exceeds(node: Expr, limit: int) -> Expr | None:
    """The first node found deeper than ``limit`` levels, or ``None``; iterative, so safe on any tree."""
    stack: list[tuple[Expr, int]] = [(node, 1)]
    while stack:
        current, level = stack.pop()
        if level > limit:
            return current
        stack.extend((child, level + 1) for child in children(current))
    return None
