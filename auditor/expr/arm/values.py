"""The values template expressions evaluate to, and the marker for a value that is not known.

A value is plain JSON in Python (``None``, ``bool``, ``int``, ``float``, ``str``, ``list``, ``dict``)
that may hold :class:`Unknown` markers anywhere. An :class:`Unknown` says why the value is not known
(:attr:`Unknown.reason`, in words, never quoting a value), what kind of unknown it is
(:class:`UnknownKind`: a secret reference such as ``listKeys(...)`` is not a literal), and where it
came from (the template text, and the sub-expression that could not be resolved).
"""

from __future__ import annotations

import enum
import json
import math
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_ITEMS",
    "MAX_NESTING",
    "MAX_STRING",
    "Unknown",
    "UnknownKind",
    "canonical",
    "describe_type",
    "find_unknown",
    "to_json_text",
    "values_equal",
]

#: Longest string an expression may produce (characters); longer is an evaluation error.
MAX_STRING = 1_048_576
#: Most elements an array (or members an object) an expression may produce.
MAX_ITEMS = 100_000
#: Deepest nesting of arrays and objects the helpers here walk into; deeper counts as too large.
MAX_NESTING = 200


class UnknownKind(enum.Enum):
    """Why a value is unknown."""

    #: A value the deployment is given, not given here (a parameter without a value or default).
    UNRESOLVED = "unresolved"
    #: Known only when the deployment runs (``reference()``, ``utcNow()``, a resource group's
    #: location that was not given).
    DEPLOYMENT = "deploymentTime"
    #: A reference to a secret, not a literal: ``listKeys(...)`` and the other ``list*`` functions,
    #: a ``securestring``/``secureObject`` parameter without a value, a Key Vault reference.
    SECRET_REFERENCE = "secretReference"
    #: A function (or a form of one) this evaluator does not implement: never guessed.
    NOT_IMPLEMENTED = "notImplemented"
    #: The expression is invalid for these values (an index out of range, a property that does not
    #: exist, a type mismatch); the vendor's engine would refuse the deployment.
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Unknown:
    """A value that could not be resolved.

    ``expression`` is the template text being evaluated (``"[concat('a', parameters('p'))]"``),
    ``origin`` the sub-expression where the value became unknown (``"parameters('p')"``), ``reason``
    why, in words (``"parameter 'p' has no value"``). None of them holds a value of the template,
    only its text.
    """

    expression: str
    reason: str
    kind: UnknownKind = UnknownKind.UNRESOLVED
    origin: str = ""
    known_parts: tuple[str | None, ...] | None = None
    """For a string built from known and unknown pieces (``concat('jdbc:x://', reference(...),
    ';encrypt=true')``): the pieces in order, ``None`` for each unknown one; None when nothing of
    the value is known. A check may judge what the known pieces settle (see
    :func:`known_text`)."""

    @property
    def is_secret_reference(self) -> bool:
        """True for a reference to a secret (fine where a secret is expected; not a literal)."""
        return self.kind is UnknownKind.SECRET_REFERENCE

    def as_evidence(self) -> dict[str, str]:
        """The unknown as finding evidence: ``{"expression", "origin", "reason", "kind"}``."""
        return {
            "expression": self.expression,
            "origin": self.origin,
            "reason": self.reason,
            "kind": self.kind.value,
        }

    def redacted(self) -> Unknown:
        """The same unknown with every string literal of its texts shown as ``'***'``: for
        evidence at a secret path, where the template's text may hold a literal secret
        (``concat('P@ss', parameters('suffix'))``). The reason never holds a value."""
        from auditor.expr.arm.parser import (  # the parser needs lark: imported on use
            ArmSyntaxError,
            parse_expression,
            parse_template_string,
        )
        from auditor.expr.arm.printer import print_expression, print_template_string

        def hide(text: str, parse: Any, show: Any) -> str:
            if not text:
                return text
            try:
                return str(show(parse(text), redact_strings=True))
            except ArmSyntaxError:  # not an expression (a path, a loop's name): hide what is quoted
                return re.sub(r"'(?:[^']|'')*'", "'***'", text)

        return Unknown(  # (the known pieces are dropped: they may be part of a secret)
            hide(self.expression, parse_template_string, print_template_string),
            self.reason,
            self.kind,
            hide(self.origin, parse_expression, print_expression),
        )

    def __str__(self) -> str:
        where = self.origin or self.expression
        return f"unknown value {where} ({self.reason})"


def describe_type(value: Any) -> str:
    """A value's type in words, for reasons (never the value itself)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, Unknown):
        return "an unknown value"
    return "a function"


class _BudgetExceeded(Exception):
    pass


def find_unknown(value: Any, budget: int = MAX_ITEMS) -> Unknown | None:
    """The first :class:`Unknown` anywhere in ``value`` (depth first), or ``None``.

    Visits at most ``budget`` nodes; a value larger than that is reported as an unknown of its own
    (kind ``ERROR``) rather than walked.
    """
    remaining = [budget]
    try:
        return _find(value, remaining, 0)
    except _BudgetExceeded:
        return Unknown("", "the value is too large to inspect", UnknownKind.ERROR)


def _find(value: Any, remaining: list[int], depth: int) -> Unknown | None:
    remaining[0] -= 1
    if remaining[0] < 0 or depth > MAX_NESTING:
        raise _BudgetExceeded
    if isinstance(value, Unknown):
        return value
    if isinstance(value, list):
        for item in value:
            found = _find(item, remaining, depth + 1)
            if found is not None:
                return found
    elif isinstance(value, dict):
        for item in value.values():
            found = _find(item, remaining, depth + 1)
            if found is not None:
                return found
    return None


def to_json_text(value: Any, limit: int = MAX_STRING) -> str | None:
    """Compact JSON text of a value without unknowns (``{"a":1,"b":[true]}``), or ``None`` when the
    text would be longer than ``limit`` characters (or the value holds a number JSON cannot write)."""
    parts: list[str] = []
    budget = [limit]
    try:
        _write(value, parts, budget, 0)
    except _BudgetExceeded:
        return None
    return "".join(parts)


def _emit(parts: list[str], text: str, budget: list[int]) -> None:
    budget[0] -= len(text)
    if budget[0] < 0:
        raise _BudgetExceeded
    parts.append(text)


def _write(value: Any, parts: list[str], budget: list[int], depth: int) -> None:
    if depth > MAX_NESTING:
        raise _BudgetExceeded
    if value is None:
        _emit(parts, "null", budget)
    elif value is True:
        _emit(parts, "true", budget)
    elif value is False:
        _emit(parts, "false", budget)
    elif isinstance(value, int):
        _emit(parts, str(value), budget)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise _BudgetExceeded
        _emit(parts, json.dumps(value), budget)
    elif isinstance(value, str):
        _emit(parts, json.dumps(value, ensure_ascii=False), budget)
    elif isinstance(value, list):
        _emit(parts, "[", budget)
        for position, item in enumerate(value):
            if position:
                _emit(parts, ",", budget)
            _write(item, parts, budget, depth + 1)
        _emit(parts, "]", budget)
    elif isinstance(value, dict):
        _emit(parts, "{", budget)
        for position, (key, item) in enumerate(value.items()):
            if position:
                _emit(parts, ",", budget)
            _emit(parts, json.dumps(str(key), ensure_ascii=False) + ":", budget)
            _write(item, parts, budget, depth + 1)
        _emit(parts, "}", budget)
    else:
        raise _BudgetExceeded  # an Unknown or a function: the caller checks for these first


def values_equal(left: Any, right: Any, budget: int = MAX_ITEMS) -> bool | None:
    """Deep equality as ``equals()`` decides it: ``True``, ``False``, or ``None`` when an unknown
    value decides it (or the values are too large to compare).

    Strings compare case-sensitively, object keys as written, ``1`` equals ``1.0``, a boolean is
    never a number. Arrays of different lengths and objects with different keys are unequal
    whatever unknowns they hold.
    """
    remaining = [budget]
    try:
        return _equal(left, right, remaining, 0)
    except _BudgetExceeded:
        return None


def _equal(left: Any, right: Any, remaining: list[int], depth: int) -> bool | None:
    remaining[0] -= 1
    if remaining[0] < 0 or depth > MAX_NESTING:
        raise _BudgetExceeded
    if isinstance(left, Unknown) or isinstance(right, Unknown):
        return None
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        if len(left) != len(right):
            return False
        undecided = False
        for a, b in zip(left, right, strict=True):
            same = _equal(a, b, remaining, depth + 1)
            if same is False:
                return False
            undecided = undecided or same is None
        return None if undecided else True
    if isinstance(left, dict) and isinstance(right, dict):
        if left.keys() != right.keys():
            return False
        undecided = False
        for key, a in left.items():
            same = _equal(a, right[key], remaining, depth + 1)
            if same is False:
                return False
            undecided = undecided or same is None
        return None if undecided else True
    if type(left) is not type(right):
        return False
    return bool(left == right)


def canonical(value: Any, budget: int = MAX_ITEMS) -> Any:
    """A hashable key that two values share exactly when :func:`values_equal` calls them equal, or
    ``None`` for a value holding an unknown (or too large to key)."""
    remaining = [budget]
    try:
        return _key(value, remaining, 0)
    except _BudgetExceeded:
        return None


def _key(value: Any, remaining: list[int], depth: int) -> Any:
    remaining[0] -= 1
    if remaining[0] < 0 or depth > MAX_NESTING:
        raise _BudgetExceeded
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", value)  # 1 and 1.0 are equal and hash alike
    if isinstance(value, str):
        return ("s", value)
    if value is None:
        return ("z",)
    if isinstance(value, list):
        return ("l", tuple(_key(item, remaining, depth + 1) for item in value))
    if isinstance(value, dict):
        return (
            "d",
            frozenset((key, _key(item, remaining, depth + 1)) for key, item in value.items()),
        )
    raise _BudgetExceeded  # an unknown or a lambda: no key
