"""Compiling a condition once into a callable evaluated against access requests.

Semantics (semantics §2, contracts §4), with the choices this module makes:

- ``attributes`` given (even ``{}``): concrete evaluation, ``True`` or ``False``. An attribute not
  listed (or given as ``None``) is absent: every comparison reading it is false, the ``Not`` forms
  included; ``Exists`` is false; ``NOT`` inverts. An empty list is present, with no values.
- ``attributes`` is ``None``: unknown. Action and sub-operation are known; each comparison or
  ``Exists`` reading an attribute is an unknown truth value. The answer is ``None`` only when the
  value really depends on those unknowns: Kleene logic first (``NOT None = None``, ``False AND None
  = False``, ``True OR None = True``), then, if that leaves ``None``, a bounded case split on the
  unknown atoms (identical atoms share one variable), so ``p OR NOT p`` is ``True``. The split is
  sound (it never decides a value a real request could contradict); past its budget the answer
  stays ``None``.
- Attribute keys match case-insensitively, except the tag key inside
  ``.../tags:Key<$key_case_sensitive$>``, which is case-sensitive.
- ``@Request[subOperation]`` (the vendor's older spelling of ``SubOperationMatches``) reads the
  request's ``sub_operation`` when one is given, so it is known even without attributes.
- Values: strings, integers and booleans, or lists of them. An element of the wrong type for the
  operator (a number under ``StringEquals``, text that is not a date-time under ``DateTime*``, ...)
  matches nothing, under the ``Not`` forms too. ``Numeric*`` takes integers only (not booleans);
  ``DateTime*`` compares instants (ISO 8601, no offset meaning UTC, nanosecond precision);
  ``Guid*`` ignores case; ``BoolEquals`` also reads the strings ``'true'``/``'false'``.
- Cross-product prefixes: ``ForAnyOfAnyValues`` some left value matches some right value,
  ``ForAllOfAnyValues`` every left value matches some right value, ``ForAnyOfAllValues`` some left
  value matches every right value, ``ForAllOfAllValues`` every left value matches every right value.
  Over an empty left set ``ForAny...`` is false and ``ForAll...`` true.
- **No prefix**: the operator compares one value with one value. The vendor documents the plain
  operators on single values and the cross-product operators for "multiple strings and numbers"
  (its multi-value examples, e.g. multi-value custom security attributes, always use a prefix). So a
  side holding several values (or none: an empty list) makes a plain comparison false, the ``Not``
  forms included, like an absent attribute; a one-element list counts as its single value. The
  parser already refuses literal lists of several values without a prefix.
- ``ActionMatches{'p'}``: case-insensitive glob, ``*`` any run of characters including ``/``.
  ``SubOperationMatches{'n'}``: the request's sub-operation equals ``n`` ignoring case (no
  sub-operation: false).
- ``StringLike``: ``*`` any run, ``?`` one character, ``\\*`` and ``\\?`` literal, whole-string
  match; the right-hand value is the pattern.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeAlias

from auditor.expr.condition._literals import parse_guid, parse_instant
from auditor.expr.condition.ast import (
    ActionMatches,
    And,
    Attribute,
    Comparison,
    Condition,
    CrossProduct,
    Exists,
    Family,
    ListValue,
    Not,
    Op,
    Operand,
    Or,
    SubOperationMatches,
    normalize_attribute_key,
)
from auditor.expr.condition.parser import parse_condition
from auditor.expr.condition.printer import print_condition
from auditor.expr.glob import Dialect, compile_glob

__all__ = [
    "AttributeValue",
    "CompiledCondition",
    "ConditionRequest",
    "attributes_read",
    "compile_condition",
    "targeted_actions",
]

Scalar: TypeAlias = str | int | bool
AttributeValue: TypeAlias = Scalar | Sequence[Scalar]

_SUB_OPERATION_KEY = normalize_attribute_key("@Request[subOperation]")
#: Evaluations allowed for the case split of one undecided three-valued evaluation.
SPLIT_BUDGET = 256
_UNKNOWN_CACHE_SIZE = 4096


@dataclass(frozen=True)
class ConditionRequest:
    """What a condition is evaluated against (contracts §4).

    ``attributes`` keys are attribute references as conditions write them; ``None`` means the
    attributes are unknown (three-valued evaluation), ``{}`` that none is present.
    """

    action: str
    sub_operation: str | None = None
    attributes: Mapping[str, Any] | None = None
    _index: dict[str, tuple[Any, ...]] | None = field(
        init=False, default=None, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if self.attributes is None:
            return
        index: dict[str, tuple[Any, ...]] = {}
        for key, value in self.attributes.items():
            if value is None:
                continue
            values = tuple(value) if isinstance(value, list | tuple) else (value,)
            index[normalize_attribute_key(str(key))] = values
        object.__setattr__(self, "_index", index)

    @property
    def attributes_known(self) -> bool:
        return self.attributes is not None


# ------------------------------------------------------------------------------ compiled form


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


_UNKNOWN = _Unknown()
_BAD = object()  # a value of the wrong type for the operator

_Values: TypeAlias = tuple[Any, ...] | _Unknown | None  # present values / absent / unknown
_Getter: TypeAlias = Callable[[ConditionRequest], _Values]


class _Ctx:
    """Assumed truth values of unknown atoms during a three-valued evaluation."""

    __slots__ = ("assign", "first_unknown")

    def __init__(self, assign: dict[int, bool]) -> None:
        self.assign = assign
        self.first_unknown: int | None = None


_Fn: TypeAlias = Callable[[ConditionRequest, "_Ctx | None"], "bool | None"]


class CompiledCondition:
    """A condition compiled once; call it with a :class:`ConditionRequest`.

    Returns ``True`` or ``False``, or ``None`` when attributes are unknown and the value depends on
    them.
    """

    __slots__ = (
        "_atoms",
        "_root",
        "_unknown_cache",
        "attributes_read",
        "condition",
        "targeted_actions",
        "text",
    )

    def __init__(self, condition: Condition) -> None:
        self.condition = condition
        self.text = print_condition(condition)
        self.attributes_read = attributes_read(condition)
        self.targeted_actions = targeted_actions(condition)
        self._atoms: dict[Condition, int] = {}
        self._root = self._compile(condition)
        self._unknown_cache: dict[tuple[str, str | None], bool | None] = {}

    def __repr__(self) -> str:
        return f"CompiledCondition({self.text!r})"

    def __call__(self, request: ConditionRequest) -> bool | None:
        if request._index is not None:
            return self._root(request, None)
        key = (
            request.action.lower(),
            None if request.sub_operation is None else request.sub_operation.lower(),
        )
        try:
            return self._unknown_cache[key]
        except KeyError:
            pass
        result = self._decide(request)
        if len(self._unknown_cache) >= _UNKNOWN_CACHE_SIZE:
            self._unknown_cache.clear()
        self._unknown_cache[key] = result
        return result

    # -- three-valued decision

    def _decide(self, request: ConditionRequest) -> bool | None:
        budget = [SPLIT_BUDGET]

        def split(assign: dict[int, bool]) -> bool | None:
            ctx = _Ctx(assign)
            value = self._root(request, ctx)
            if value is not None:
                return value
            atom = ctx.first_unknown
            if atom is None or budget[0] <= 0:
                return None
            budget[0] -= 1
            when_true = split({**assign, atom: True})
            if when_true is None:
                return None
            when_false = split({**assign, atom: False})
            return when_true if when_false == when_true else None

        return split({})

    # -- compilation

    def _atom(self, node: Condition) -> int:
        return self._atoms.setdefault(node, len(self._atoms))

    def _compile(self, node: Condition) -> _Fn:
        if isinstance(node, And | Or):
            parts = tuple(self._compile(child) for child in node.operands)
            return _and(parts) if isinstance(node, And) else _or(parts)
        if isinstance(node, Not):
            return _not(self._compile(node.operand))
        if isinstance(node, ActionMatches):
            return _action_matches(node.pattern)
        if isinstance(node, SubOperationMatches):
            return _sub_operation_matches(node.name)
        if isinstance(node, Exists):
            return _exists(_getter(node.attribute), self._atom(node))
        if isinstance(node, Comparison):
            return _comparison(node, self._atom(node))
        raise TypeError(f"not a condition node: {type(node).__name__}")


def _unknown_atom(ctx: _Ctx | None, atom: int) -> bool | None:
    if ctx is None:
        return None
    value = ctx.assign.get(atom)
    if value is None and ctx.first_unknown is None:
        ctx.first_unknown = atom
    return value


def _and(parts: tuple[_Fn, ...]) -> _Fn:
    def evaluate(request: ConditionRequest, ctx: _Ctx | None) -> bool | None:
        result: bool | None = True
        for part in parts:
            value = part(request, ctx)
            if value is False:
                return False
            if value is None:
                result = None
        return result

    return evaluate


def _or(parts: tuple[_Fn, ...]) -> _Fn:
    def evaluate(request: ConditionRequest, ctx: _Ctx | None) -> bool | None:
        result: bool | None = False
        for part in parts:
            value = part(request, ctx)
            if value is True:
                return True
            if value is None:
                result = None
        return result

    return evaluate


def _not(part: _Fn) -> _Fn:
    def evaluate(request: ConditionRequest, ctx: _Ctx | None) -> bool | None:
        value = part(request, ctx)
        return None if value is None else not value

    return evaluate


def _action_regex(pattern: str) -> re.Pattern[str]:
    return compile_glob(pattern, Dialect.ACTION, ignore_case=True)


def action_matches(pattern: str, action: str) -> bool:
    """``action`` matches the case-insensitive glob ``pattern`` (``*`` any run, ``/`` included),
    in time linear in ``action`` whatever the pattern (:mod:`auditor.expr.glob`)."""
    return _action_regex(pattern).fullmatch(action) is not None


def _action_matches(pattern: str) -> _Fn:
    regex = _action_regex(pattern)

    def evaluate(request: ConditionRequest, ctx: _Ctx | None) -> bool | None:
        return regex.fullmatch(request.action) is not None

    return evaluate


def _sub_operation_matches(name: str) -> _Fn:
    folded = name.casefold()

    def evaluate(request: ConditionRequest, ctx: _Ctx | None) -> bool | None:
        return request.sub_operation is not None and request.sub_operation.casefold() == folded

    return evaluate


def _getter(operand: Operand) -> _Getter:
    if isinstance(operand, Attribute):
        key = operand.normalized_key
        if key == _SUB_OPERATION_KEY:

            def get_sub_operation(request: ConditionRequest) -> _Values:
                if request.sub_operation is not None:
                    return (request.sub_operation,)
                if request._index is None:
                    return _UNKNOWN
                return request._index.get(key)

            return get_sub_operation

        def get(request: ConditionRequest) -> _Values:
            index = request._index
            return _UNKNOWN if index is None else index.get(key)

        return get
    constant = _literal_values(operand)
    return lambda request: constant


def _literal_values(operand: Operand) -> tuple[Any, ...]:
    if isinstance(operand, Attribute):
        raise TypeError("an attribute is not a literal")
    if isinstance(operand, ListValue):
        return tuple(item.value for item in operand.items)
    return (operand.value,)


def _exists(get: _Getter, atom: int) -> _Fn:
    def evaluate(request: ConditionRequest, ctx: _Ctx | None) -> bool | None:
        values = get(request)
        if isinstance(values, _Unknown):
            return _unknown_atom(ctx, atom)
        return values is not None

    return evaluate


# -------------------------------------------------------------------------------- comparisons


def _coercer(op: Op) -> Callable[[Any], Any]:
    """Turn a raw value into what ``op`` compares, or ``_BAD``."""
    family = op.family
    if family is Family.STRING:
        fold = op.ignore_case

        def as_string(value: Any) -> Any:
            if not isinstance(value, str):
                return _BAD
            return value.casefold() if fold else value

        return as_string
    if family is Family.NUMERIC:
        return lambda value: (
            value if isinstance(value, int) and not isinstance(value, bool) else _BAD
        )
    if family is Family.DATETIME:

        def as_instant(value: Any) -> Any:
            instant = parse_instant(value) if isinstance(value, str) else None
            return _BAD if instant is None else instant

        return as_instant
    if family is Family.GUID:

        def as_guid(value: Any) -> Any:
            guid = parse_guid(value) if isinstance(value, str) else None
            return _BAD if guid is None else guid

        return as_guid

    def as_bool(value: Any) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        return _BAD

    return as_bool


def like_regex(pattern: str) -> re.Pattern[str]:
    """``StringLike`` pattern: ``*`` any run, ``?`` one character, ``\\*``/``\\?`` literal; a
    ``fullmatch`` takes time linear in the value whatever the pattern (:mod:`auditor.expr.glob`)."""
    return compile_glob(pattern, Dialect.LIKE)


def _relation(op: Op) -> Callable[[Any, Any], bool]:
    relation = op.relation
    if relation == "equals":
        return lambda a, b: bool(a == b)
    if relation == "startswith":
        return lambda a, b: bool(a.startswith(b))
    if relation == "like":
        return lambda a, b: like_regex(b).fullmatch(a) is not None
    if relation == "gt":
        return lambda a, b: bool(a > b)
    if relation == "ge":
        return lambda a, b: bool(a >= b)
    if relation == "lt":
        return lambda a, b: bool(a < b)
    return lambda a, b: bool(a <= b)


def _pair_test(op: Op) -> Callable[[Any, Any], bool]:
    relation = _relation(op)
    if op.negated:
        return lambda a, b: a is not _BAD and b is not _BAD and not relation(a, b)
    return lambda a, b: a is not _BAD and b is not _BAD and relation(a, b)


def _quantified(
    test: Callable[[Any, Any], bool], cross: CrossProduct | None
) -> Callable[[tuple[Any, ...], tuple[Any, ...]], bool]:
    if cross is None:

        def single(left: tuple[Any, ...], right: tuple[Any, ...]) -> bool:
            return len(left) == 1 and len(right) == 1 and test(left[0], right[0])

        return single
    outer = all if cross.left_all else any
    inner = all if cross.right_all else any

    def crossed(left: tuple[Any, ...], right: tuple[Any, ...]) -> bool:
        return outer(inner(test(a, b) for b in right) for a in left)

    return crossed


def _comparison(node: Comparison, atom: int) -> _Fn:
    coerce = _coercer(node.op)
    compare = _quantified(_pair_test(node.op), node.cross)
    get_left = _coerced_getter(node.left, coerce)
    get_right = _coerced_getter(node.right, coerce)

    def evaluate(request: ConditionRequest, ctx: _Ctx | None) -> bool | None:
        left = get_left(request)
        right = get_right(request)
        if left is None or right is None:
            return False
        if isinstance(left, _Unknown) or isinstance(right, _Unknown):
            return _unknown_atom(ctx, atom)
        return compare(left, right)

    return evaluate


def _coerced_getter(operand: Operand, coerce: Callable[[Any], Any]) -> _Getter:
    if not isinstance(operand, Attribute):
        constant = tuple(coerce(value) for value in _literal_values(operand))
        return lambda request: constant
    get = _getter(operand)

    def coerced(request: ConditionRequest) -> _Values:
        values = get(request)
        if values is None or isinstance(values, _Unknown):
            return values
        return tuple(coerce(value) for value in values)

    return coerced


# ------------------------------------------------------------------------------- public helpers


def _walk(node: Condition) -> Iterator[Condition]:
    stack: list[Condition] = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, And | Or):
            stack.extend(reversed(current.operands))
        elif isinstance(current, Not):
            stack.append(current.operand)


def attributes_read(node: Condition) -> frozenset[str]:
    """The attribute references (``@Source[...]``, canonical source spelling) ``node`` reads."""
    found: set[str] = set()
    for current in _walk(node):
        if isinstance(current, Exists):
            found.add(current.attribute.key)
        elif isinstance(current, Comparison):
            found.update(
                side.key for side in (current.left, current.right) if isinstance(side, Attribute)
            )
    return frozenset(found)


def targeted_actions(node: Condition) -> frozenset[str]:
    """The ``ActionMatches`` patterns in ``node``: what a conditioned assignment targets."""
    return frozenset(
        current.pattern for current in _walk(node) if isinstance(current, ActionMatches)
    )


@lru_cache(maxsize=4096)
def _compile_text(text: str) -> CompiledCondition:
    return CompiledCondition(parse_condition(text))


@lru_cache(maxsize=4096)
def _compile_tree(tree: Condition) -> CompiledCondition:
    return CompiledCondition(tree)


def compile_condition(text_or_ast: str | Condition) -> CompiledCondition:
    """Compile a condition (text or tree), cached; text that does not parse raises
    :class:`~auditor.expr.errors.ConditionSyntaxError`."""
    if isinstance(text_or_ast, str):
        return _compile_text(text_or_ast)
    return _compile_tree(text_or_ast)
