"""Print a filter AST as canonical text: ``parse(print_filter(ast)) == ast``.

Canonical means: lower-case keywords, one space around binary operators, ``, `` between arguments,
function names spelt as in the grammar (``atScope``), GUIDs in lower case, date-times in ISO 8601 with
``Z`` for UTC, and parentheses only where precedence needs them (so ``a or (b or c)`` keeps its
parentheses: the AST records that grouping).  Member names keep their spelling.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from auditor.expr.filter.ast import (
    And,
    BoolLit,
    Call,
    Compare,
    DateTimeLit,
    DecimalLit,
    Expr,
    GuidLit,
    In,
    InParam,
    IntLit,
    Lambda,
    Member,
    Not,
    NullLit,
    Or,
    Param,
    StringLit,
)
from auditor.expr.filter.parser import MAX_NUMBER_LENGTH

# Binding strength, loosest first: or, and, comparisons, not, in, primary.
_OR, _AND, _COMPARE, _NOT, _IN, _PRIMARY = range(1, 7)

_NAME = re.compile(r"(?!\d)\w+\Z")
_RESERVED = frozenset({"true", "false", "null", "not"})
_GUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")


def print_filter(node: Expr) -> str:
    """The canonical text of ``node``.

    Raises :class:`ValueError` for a tree that no filter text can express (a member named ``true``,
    a non-finite number, a naive date-time, an empty ``and``...) or that is nested too deeply.
    """
    try:
        return _print(node, _OR)
    except RecursionError:
        raise ValueError("the filter is nested too deeply to print") from None


def _level(node: Expr) -> int:
    if isinstance(node, Or):
        return _OR
    if isinstance(node, And):
        return _AND
    if isinstance(node, Compare):
        return _COMPARE
    if isinstance(node, Not):
        return _NOT
    if isinstance(node, In | InParam):
        return _IN
    return _PRIMARY


def _print(node: Expr, least: int) -> str:
    text = _text(node)
    return f"({text})" if _level(node) < least else text


def _text(node: Expr) -> str:
    if isinstance(node, Or):
        _at_least_two(node.operands, "or")
        return " or ".join(_print(item, _AND) for item in node.operands)
    if isinstance(node, And):
        _at_least_two(node.operands, "and")
        return " and ".join(_print(item, _COMPARE) for item in node.operands)
    if isinstance(node, Compare):
        return f"{_print(node.left, _NOT)} {node.op} {_print(node.right, _NOT)}"
    if isinstance(node, Not):
        return f"not {_print(node.operand, _NOT)}"
    if isinstance(node, In):
        if not node.values:
            raise ValueError("'in' needs at least one value")
        values = ", ".join(_text(value) for value in node.values)
        return f"{_print(node.operand, _PRIMARY)} in ({values})"
    if isinstance(node, InParam):
        return f"{_print(node.operand, _PRIMARY)} in {_text(node.param)}"
    if isinstance(node, Param):
        head, _, rest = node.name.partition("/")
        if not ((head == "asOf" and not rest) or (head == "settings" and rest)):
            raise ValueError(f"unknown parameter @{node.name}")
        return "@" + _path((head, *rest.split("/"))) if rest else "@asOf"
    if isinstance(node, Member):
        return _path(node.path)
    if isinstance(node, Call):
        return f"{node.name}({', '.join(_print(arg, _OR) for arg in node.args)})"
    if isinstance(node, Lambda):
        head = f"{_path(node.collection.path, lambda_=True)}/{node.op}"
        if node.predicate is None:
            if node.op != "any" or node.variable is not None:
                raise ValueError(f"{node.op}() needs a variable and a predicate")
            return f"{head}()"
        if node.variable is None:
            raise ValueError(f"{node.op}() with a predicate needs a variable")
        _name(node.variable)
        if node.variable.lower() in _RESERVED:
            raise ValueError(f"a lambda variable cannot be called {node.variable!r}")
        return f"{head}({node.variable}: {_print(node.predicate, _OR)})"
    return _literal(node)


def _literal(node: Expr) -> str:
    if isinstance(node, StringLit):
        return "'" + node.value.replace("'", "''") + "'"
    if isinstance(node, BoolLit):
        return "true" if node.value else "false"
    if isinstance(node, NullLit):
        return "null"
    if isinstance(node, IntLit):
        return _number(str(node.value))
    if isinstance(node, DecimalLit):
        return _number(_decimal(node.value))
    if isinstance(node, GuidLit):
        if not _GUID.match(node.value):
            raise ValueError(f"{node.value!r} is not a lower-case GUID")
        return node.value
    if isinstance(node, DateTimeLit):
        return _datetime(node.value)
    raise ValueError(f"not a filter node: {node!r}")


def _number(text: str) -> str:
    if len(text) > MAX_NUMBER_LENGTH:
        raise ValueError(f"a number literal has at most {MAX_NUMBER_LENGTH} characters")
    return text


def _decimal(value: Decimal) -> str:
    if not value.is_finite():
        raise ValueError(f"{value} cannot be written in a filter")
    text = str(value)
    if "." not in text and "E" not in text:
        text += ".0"  # keeps it a decimal: `5` would read back as an integer
    return text


def _datetime(value: datetime) -> str:
    offset = value.utcoffset()
    if offset is None:
        raise ValueError("a date-time literal must be timezone-aware")
    if offset % timedelta(minutes=1):
        raise ValueError("a date-time offset must be whole minutes")
    micro = value.microsecond
    spec = "seconds" if not micro else "milliseconds" if not micro % 1000 else "microseconds"
    if offset == timedelta(0):
        return value.astimezone(UTC).replace(tzinfo=None).isoformat(timespec=spec) + "Z"
    return value.isoformat(timespec=spec)


def _path(path: tuple[str, ...], *, lambda_: bool = False) -> str:
    if not path:
        raise ValueError("a member path has at least one name")
    for name in path:
        _name(name)
    if len(path) == 1 and path[0].lower() in _RESERVED and not lambda_:
        raise ValueError(f"a member called {path[0]!r} cannot be written in a filter")
    return "/".join(path)


def _name(name: str) -> None:
    if not _NAME.match(name):
        raise ValueError(f"{name!r} is not a name a filter can use")


def _at_least_two(items: tuple[Expr, ...], keyword: str) -> None:
    if len(items) < 2:
        raise ValueError(f"'{keyword}' needs at least two operands")
