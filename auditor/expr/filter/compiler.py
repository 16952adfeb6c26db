"""Compile a filter AST, once, into a Python callable ``record -> bool``.

The compiler generates Python source from the AST and compiles it with :func:`compile`: no AST is
walked per record.  Each comparison of a member with a literal becomes one function with the member
lookups unrolled and a fast path for the expected type (a ``str`` compared with a string literal,
an ``int``/``float`` with a number...); every other case goes through :func:`compare_values`, the one
definition of how two values compare.  ``x eq 'a' or x eq 'b'`` is evaluated as ``x in ('a', 'b')``
(one lookup, one set test).  The generated source holds no text of the filter: names and values are
passed to it as constants.

Semantics (semantics section 3):

- Records are JSON-like data (dicts, lists), pydantic models (fields by wire name, that is alias or
  field name, plus extra fields) and msgspec Structs (by encoded name); other objects expose their
  dataclass fields or instance attributes, never methods or private names.  Member names match
  case-insensitively (an exact match is tried first).
- A missing member is ``null``.  A path that crosses an array (anywhere, including its last member)
  yields every element's value and a comparison holds when it holds for ANY of them; a path through
  an empty array yields no value, so no comparison on it holds.
- ``null``: ``x eq null`` holds when ``x`` is null or missing, ``x ne null`` otherwise; any other
  comparison with null is false (``null ne 'a'`` is true: ``ne`` is always the negation of ``eq`` for
  one pair of values).
- Typed comparisons: numbers with numbers (``true`` is not ``1``), strings with strings (code point
  order, case-sensitive), booleans with booleans, date-times as instants (a string value is parsed
  as ISO 8601; a value without an offset is UTC), GUIDs case-insensitively (a GUID literal, quoted or
  not, compares with a string or :class:`uuid.UUID` value in lower case).  Values of different types
  never compare: ``eq`` and the orderings are false and ``ne`` true.  No comparison raises.
- ``any(x: p)`` holds when ``p`` holds for some element, ``all(x: p)`` when for every element
  (vacuously for an empty or missing collection); ``any()`` when there is an element.  The elements
  are the values the collection's path reaches, arrays flattened; null elements are left out.
- ``contains``/``startswith``/``endswith`` hold for strings only; ``tolower``/``toupper``/``trim``
  of a non-string is null, and so is ``length`` (a string's length in characters).
- ``@asOf`` and ``@settings/NAME`` (rule packs only) are values given when the filter is compiled
  (``compile_filter(text, parameters=...)``, :func:`bind_parameters`): each becomes the literal of its
  value (a date or date-time an aware date-time, a list a list of values for ``x in @settings/NAME``).
  Compiling a filter that holds one without its values raises :class:`FilterCompileError`, so the
  sandbox's ``$filter`` refuses them.
- ``atScope()`` and ``assignedTo()`` are not conditions on a record; only the endpoint layer
  (:mod:`auditor.expr.filter.endpoints`) accepts them, and compiling them raises
  :class:`FilterCompileError`.
"""

from __future__ import annotations

import dataclasses
import operator
import re
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any
from uuid import UUID

from auditor.errors import InputError
from auditor.expr.filter.ast import (
    And,
    BoolLit,
    Call,
    Compare,
    CompareOp,
    DateTimeLit,
    DecimalLit,
    Expr,
    GuidLit,
    In,
    InParam,
    IntLit,
    Lambda,
    LiteralNode,
    Member,
    Not,
    NullLit,
    Or,
    Param,
    StringLit,
    children,
    depth_exceeds,
)

Predicate = Callable[[Any], bool]


class FilterCompileError(InputError):
    """A filter that parses but is not a condition on a record (``atScope()``, ``assignedTo()``, or a
    hand-built tree that no filter text can express).  ``pos`` is the offending node's offset in the
    filter text, or -1."""

    def __init__(self, message: str, *, pos: int = -1, location: str | None = None) -> None:
        super().__init__(message, location=location)
        self.pos = pos


# ================================================================================================
# runtime: reading members

_MISSING: Any = object()
_MAX_FLATTEN = 32
_ALT_SPELLINGS = 4


def _lookup_ci(mapping: Mapping[Any, Any], key: str, folded: str, seen: list[str]) -> Any:
    """``mapping[key]`` matched case-insensitively (after the exact key was missed).

    ``seen`` remembers spellings found before for this path segment, so records that all spell a
    member differently from the filter cost one extra lookup, not a scan.
    """
    for spelling in seen:
        value = mapping.get(spelling, _MISSING)
        if value is not _MISSING:
            return value
    for name, value in mapping.items():
        if isinstance(name, str) and name.casefold() == folded:
            if len(seen) < _ALT_SPELLINGS:
                seen.append(name)
            return value
    return None


_FIELDS: dict[type, dict[str, str]] = {}


def _field_map(cls: type) -> dict[str, str]:
    """Case-folded wire name -> attribute name, for the declared fields of ``cls``."""
    fields: dict[str, str] = {}
    model_fields = getattr(cls, "__pydantic_fields__", None)
    struct_fields = getattr(cls, "__struct_fields__", None)
    if isinstance(model_fields, dict):
        for name, info in model_fields.items():
            fields.setdefault(name.casefold(), name)
            for alias in (
                getattr(info, "alias", None),
                getattr(info, "serialization_alias", None),
                getattr(info, "validation_alias", None),
            ):
                if isinstance(alias, str):
                    fields.setdefault(alias.casefold(), name)
    elif isinstance(struct_fields, tuple):
        encoded = getattr(cls, "__struct_encode_fields__", struct_fields)
        for name, wire in zip(struct_fields, encoded, strict=False):
            fields.setdefault(str(wire).casefold(), name)
            fields.setdefault(name.casefold(), name)
    elif dataclasses.is_dataclass(cls):
        for field in dataclasses.fields(cls):
            fields.setdefault(field.name.casefold(), field.name)
    _FIELDS[cls] = fields
    return fields


def _extras(obj: Any) -> Mapping[Any, Any] | None:
    """Members of ``obj`` beyond its declared fields: pydantic extras or plain instance attributes."""
    if hasattr(obj.__class__, "__pydantic_fields__"):
        extra = getattr(obj, "__pydantic_extra__", None)
        return extra if isinstance(extra, dict) else None
    if hasattr(obj.__class__, "__struct_fields__"):
        return None
    attributes = getattr(obj, "__dict__", None)
    if isinstance(attributes, dict):
        return {k: v for k, v in attributes.items() if isinstance(k, str) and not k.startswith("_")}
    return None


def _attribute(obj: Any, key: str, folded: str) -> Any:
    """Member ``key`` of a non-dict value: a mapping, a model, a Struct or a plain object."""
    if isinstance(obj, Mapping):
        value = obj.get(key, _MISSING)
        return _lookup_ci(obj, key, folded, []) if value is _MISSING else value
    if isinstance(obj, str | bytes | int | float | Decimal | datetime | UUID):
        return None
    cls = obj.__class__
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _field_map(cls)
    name = fields.get(folded)
    if name is not None:
        value = getattr(obj, name, None)
    else:
        extra = _extras(obj)
        if not extra:
            return None
        value = extra.get(key, _MISSING)
        if value is _MISSING:
            value = _lookup_ci(extra, key, folded, [])
    if isinstance(value, Enum) and not isinstance(value, str | int):
        value = value.value
    return value


def _flatten(value: Any, depth: int = 0) -> list[Any]:
    """The elements of a list or tuple, nested arrays flattened (depth-limited)."""
    out: list[Any] = []
    for item in value:
        if (item.__class__ is list or item.__class__ is tuple) and depth < _MAX_FLATTEN:
            out.extend(_flatten(item, depth + 1))
        else:
            out.append(item)
    return out


def _step(value: Any, key: str, folded: str, seen: list[str]) -> Any:
    if value.__class__ is dict:
        found = value.get(key, _MISSING)
        return _lookup_ci(value, key, folded, seen) if found is _MISSING else found
    if value is None:
        return None
    return _attribute(value, key, folded)


def _walk_list(
    items: Any, keys: tuple[str, ...], folded: tuple[str, ...], seen: tuple[list[str], ...]
) -> list[Any]:
    """Follow ``keys`` from every element of ``items``; the values, arrays flattened."""
    current = _flatten(items)
    for i, key in enumerate(keys):
        following: list[Any] = []
        for item in current:
            value = _step(item, key, folded[i], seen[i])
            if value.__class__ is list or value.__class__ is tuple:
                following.extend(_flatten(value))
            else:
                following.append(value)
        current = following
    return current


def _walk(
    value: Any, keys: tuple[str, ...], folded: tuple[str, ...], seen: tuple[list[str], ...]
) -> Any:
    """The value at the end of the path ``keys`` (a list when the path crossed an array)."""
    for i, key in enumerate(keys):
        if value.__class__ is list or value.__class__ is tuple:
            return _walk_list(value, keys[i:], folded[i:], seen[i:])
        value = _step(value, key, folded[i], seen[i])
    return value


def _candidates(value: Any) -> list[Any]:
    if value.__class__ is list or value.__class__ is tuple:
        return _flatten(value)
    return [value]


def _elements(value: Any) -> list[Any]:
    """The elements of a lambda's collection: the values its path reaches, arrays flattened, nulls
    left out (so a null or missing collection has none)."""
    if value is None:
        return []
    return [item for item in _candidates(value) if item is not None]


def _any(values: list[Any], test: Callable[[Any], bool]) -> bool:
    # a plain loop: any() over a generator costs a frame switch per element
    for value in values:  # noqa: SIM110
        if test(value):
            return True
    return False


def _any_flat(values: Any, test: Callable[[Any], bool]) -> bool:
    return _any(_flatten(values), test)


# ================================================================================================
# runtime: comparing values

_NULL, _BOOL, _NUMBER, _STRING, _DATETIME, _GUID, _OTHER = range(7)

_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "gt": operator.gt,
    "ge": operator.ge,
    "lt": operator.lt,
    "le": operator.le,
}
_SYMBOLS: dict[str, str] = {"eq": "==", "ne": "!=", "gt": ">", "ge": ">=", "lt": "<", "le": "<="}
_FLIPPED: dict[CompareOp, CompareOp] = {
    "eq": "eq",
    "ne": "ne",
    "gt": "lt",
    "ge": "le",
    "lt": "gt",
    "le": "ge",
}

GUID_SHAPE = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z"
)


def _kind(value: Any) -> int:
    cls = value.__class__
    if cls is str:
        return _STRING
    if cls is int or cls is float:
        return _NUMBER
    if cls is bool:
        return _BOOL
    if value is None:
        return _NULL
    if isinstance(value, str):
        return _STRING
    if isinstance(value, int | float | Decimal):
        return _NUMBER
    if isinstance(value, datetime):
        return _DATETIME
    if isinstance(value, UUID):
        return _GUID
    return _OTHER


def _instant(value: Any) -> datetime | None:
    """A timezone-aware datetime from a datetime or an ISO 8601 string (naive means UTC)."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return None
    else:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _iso(text: str) -> datetime | None:
    """:func:`_instant` of a string (the common case, inlined by the compiler)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _comparable(a: Any, b: Any) -> tuple[Any, Any] | None:
    """``a`` and ``b`` in a form Python compares as the filter means, or None if they don't compare."""
    ka = _kind(a)
    kb = _kind(b)
    if ka == kb:
        if ka == _OTHER:
            return None
        if ka == _DATETIME:
            return _instant(a), _instant(b)
        if ka == _GUID:
            return str(a), str(b)
        return a, b
    kinds = {ka, kb}
    if kinds == {_STRING, _GUID}:
        return (a.lower() if ka == _STRING else str(a)), (b.lower() if kb == _STRING else str(b))
    if kinds == {_STRING, _DATETIME}:
        x, y = _instant(a), _instant(b)
        return None if x is None or y is None else (x, y)
    return None


def compare_values(op: str, a: Any, b: Any) -> bool:
    """``a op b`` for two single values, with the null rules and typed comparisons of the module
    docstring.  Never raises."""
    if a is None or b is None:
        both = a is None and b is None
        return both if op == "eq" else (not both) if op == "ne" else False
    pair = _comparable(a, b)
    if pair is None:
        return op == "ne"
    try:
        return bool(_OPERATORS[op](pair[0], pair[1]))
    except Exception:  # an odd value (a Decimal NaN ordered...) does not compare
        return op == "ne"


def _compare_any(op: str, left: Any, right: Any) -> bool:
    for a in _candidates(left):
        for b in _candidates(right):
            if compare_values(op, a, b):
                return True
    return False


def _in(value: Any, constants: tuple[Any, ...]) -> bool:
    for constant in constants:  # noqa: SIM110 - see _any
        if compare_values("eq", value, constant):
            return True
    return False


def _in_any(value: Any, constants: tuple[Any, ...]) -> bool:
    for candidate in _candidates(value):  # noqa: SIM110 - see _any
        if _in(candidate, constants):
            return True
    return False


def _string_function(name: str, subject: Any, argument: Any) -> bool:
    test: Callable[[str, str], bool] = _STRING_FUNCTIONS[name]
    for a in _candidates(subject):
        if isinstance(a, str):
            for b in _candidates(argument):
                if isinstance(b, str) and test(a, b):
                    return True
    return False


_STRING_FUNCTIONS: dict[str, Callable[[str, str], bool]] = {
    "contains": lambda a, b: b in a,
    "startswith": str.startswith,
    "endswith": str.endswith,
}


def _case(value: Any, upper: bool) -> Any:
    if value.__class__ is list or value.__class__ is tuple:
        return [_case(item, upper) for item in _flatten(value)]
    if isinstance(value, str):
        return value.upper() if upper else value.lower()
    return None


def _tolower(value: Any) -> Any:
    return _case(value, False)


def _trim(value: Any) -> Any:
    if value.__class__ is list or value.__class__ is tuple:
        return [_trim(item) for item in _flatten(value)]
    return value.strip() if isinstance(value, str) else None


def _length(value: Any) -> Any:
    if value.__class__ is list or value.__class__ is tuple:
        return [_length(item) for item in _flatten(value)]
    return len(value) if isinstance(value, str) else None


def _toupper(value: Any) -> Any:
    return _case(value, True)


_RUNTIME: dict[str, Any] = {
    "_M": _MISSING,
    "_ci": _lookup_ci,
    "_attr": _attribute,
    "_walk": _walk,
    "_walk_list": _walk_list,
    "_elements": _elements,
    "_any": _any,
    "_any_flat": _any_flat,
    "_cmp": compare_values,
    "_iso": _iso,
    "_cmp_any": _compare_any,
    "_in": _in,
    "_in_any": _in_any,
    "_strfn": _string_function,
    "_tolower": _tolower,
    "_toupper": _toupper,
    "_trim": _trim,
    "_length": _length,
}
_BUILTINS: dict[str, Any] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "len": len,
    "Exception": Exception,
}


# ================================================================================================
# literals as the runtime sees them


def comparison_constant(node: LiteralNode) -> Any:
    """The Python value a literal compares as: a GUID (quoted or not) is a :class:`uuid.UUID`, a
    decimal a float (when finite as a float), a date-time an aware datetime."""
    if isinstance(node, StringLit):
        return UUID(node.value) if GUID_SHAPE.match(node.value) else node.value
    if isinstance(node, GuidLit):
        return UUID(node.value)
    return plain_constant(node)


def plain_constant(node: LiteralNode) -> Any:
    """The Python value of a literal used as a function argument."""
    if isinstance(node, StringLit | GuidLit | BoolLit | IntLit):
        return node.value
    if isinstance(node, DecimalLit):
        as_float = float(node.value)
        return as_float if as_float not in (float("inf"), float("-inf")) else node.value
    if isinstance(node, DateTimeLit):
        return node.value if node.value.tzinfo else node.value.replace(tzinfo=UTC)
    if isinstance(node, NullLit):
        return None
    raise FilterCompileError(f"not a literal: {node!r}")  # pragma: no cover


# ================================================================================================
# code generation


class _Codegen:
    def __init__(self, specialise: bool) -> None:
        self.specialise = specialise
        self.namespace: dict[str, Any] = {"__builtins__": _BUILTINS, **_RUNTIME}
        self.defs: list[str] = []
        self.count = 0

    # -- names --------------------------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, value: Any) -> str:
        name = self.fresh("_k")
        self.namespace[name] = value
        return name

    @staticmethod
    def params(scope: tuple[str, ...]) -> str:
        return ", ".join(["r", *(f"_x{i}" for i in range(len(scope)))])

    def resolve(self, member: Member, scope: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        """The Python name a path starts from (the record or a lambda variable) and its keys."""
        first = member.path[0].casefold()
        for i in range(len(scope) - 1, -1, -1):
            if scope[i] == first:
                return f"_x{i}", member.path[1:]
        return "r", member.path

    def path_consts(self, keys: tuple[str, ...]) -> tuple[str, str, str]:
        return (
            self.const(keys),
            self.const(tuple(key.casefold() for key in keys)),
            self.const(tuple([] for _ in keys)),
        )

    # -- conditions ---------------------------------------------------------------------------

    def condition(self, node: Expr, scope: tuple[str, ...]) -> str:
        if isinstance(node, Or):
            return "(" + " or ".join(self.condition(o, scope) for o in node.operands) + ")"
        if isinstance(node, And):
            return "(" + " and ".join(self.condition(o, scope) for o in node.operands) + ")"
        if isinstance(node, Not):
            return f"(not {self.condition(node.operand, scope)})"
        if isinstance(node, BoolLit):
            return "True" if node.value else "False"
        if isinstance(node, Compare | In | Member | Lambda):
            return self.leaf(node, scope)
        if isinstance(node, Call):
            _refuse_endpoint_function(node)
            if node.name in _STRING_FUNCTIONS:
                return self.leaf(node, scope)
        if isinstance(node, Param | InParam):
            _refuse_parameter(node)
        raise FilterCompileError(f"{_describe(node)} is not a condition")

    def leaf(self, node: Compare | In | Member | Lambda | Call, scope: tuple[str, ...]) -> str:
        name = self.fresh("_p")
        params = self.params(scope)
        if isinstance(node, Lambda):
            body = self.lambda_body(node, scope)
            fail = "False"
        else:
            fast = self.fast_leaf(node, scope, name) if self.specialise else None
            if fast is not None:
                return fast
            body = [f"return {self.generic_test(node, scope)}"]
            fail = "True" if isinstance(node, Compare) and node.op == "ne" else "False"
        lines = [f"def {name}({params}):", "    try:"]
        lines += [f"        {line}" for line in body]
        lines += ["    except Exception:", f"        return {fail}"]
        self.defs.append("\n".join(lines))
        return f"{name}({params})"

    def lambda_body(self, node: Lambda, scope: tuple[str, ...]) -> list[str]:
        collection = self.value(node.collection, scope, compared=False)
        if node.predicate is None or node.variable is None:
            return [f"return len(_elements({collection})) > 0"]
        inner = (*scope, node.variable.casefold())
        variable = f"_x{len(scope)}"
        test = self.condition(node.predicate, inner)
        if node.op == "any":
            return [
                f"for {variable} in _elements({collection}):",
                f"    if {test}:",
                "        return True",
                "return False",
            ]
        return [
            f"for {variable} in _elements({collection}):",
            f"    if not {test}:",
            "        return False",
            "return True",
        ]

    def generic_test(self, node: Compare | In | Member | Call, scope: tuple[str, ...]) -> str:
        if isinstance(node, Compare):
            left = self.value(node.left, scope, compared=True)
            right = self.value(node.right, scope, compared=True)
            return f"_cmp_any({node.op!r}, {left}, {right})"
        if isinstance(node, In):
            values = self.const(tuple(comparison_constant(v) for v in node.values))
            return f"_in_any({self.value(node.operand, scope, compared=True)}, {values})"
        if isinstance(node, Member):
            return f"_cmp_any('eq', {self.value(node, scope, compared=True)}, True)"
        subject = self.value(node.args[0], scope, compared=False)
        argument = self.value(node.args[1], scope, compared=False)
        return f"_strfn({node.name!r}, {subject}, {argument})"

    # -- values -------------------------------------------------------------------------------

    def value(self, node: Expr, scope: tuple[str, ...], *, compared: bool) -> str:
        if isinstance(
            node, StringLit | IntLit | DecimalLit | BoolLit | NullLit | GuidLit | DateTimeLit
        ):
            return self.const(comparison_constant(node) if compared else plain_constant(node))
        if isinstance(node, Member):
            root, keys = self.resolve(node, scope)
            if not keys:
                return root
            return f"_walk({root}, {', '.join(self.path_consts(keys))})"
        if isinstance(node, Call):
            _refuse_endpoint_function(node)
            if node.name in ("tolower", "toupper", "trim", "length"):
                return f"_{node.name}({self.value(node.args[0], scope, compared=False)})"
        if isinstance(node, Param | InParam):
            _refuse_parameter(node)
        return self.condition(node, scope)

    # -- the fast leaf: one member against literals -------------------------------------------

    def fast_leaf(
        self, node: Compare | In | Member | Call, scope: tuple[str, ...], name: str
    ) -> str | None:
        member: Member
        if isinstance(node, Member):
            member, test, fail, none = node, "v is True", "False", False
        elif isinstance(node, Compare):
            op = node.op
            if isinstance(node.left, Member) and _is_literal(node.right):
                member, literal = node.left, node.right
            elif isinstance(node.right, Member) and _is_literal(node.left):
                member, literal, op = node.right, node.left, _FLIPPED[op]
            else:
                return None
            test = self.compare_test(op, literal)  # type: ignore[arg-type]
            fail = "True" if op == "ne" else "False"
            none = compare_values(op, None, comparison_constant(literal))  # type: ignore[arg-type]
        elif isinstance(node, In) and isinstance(node.operand, Member):
            member = node.operand
            test = self.in_test(node.values)
            fail = "False"
            none = any(v is None for v in map(comparison_constant, node.values))
        else:
            return None
        root, keys = self.resolve(member, scope)
        names = [(self.const(k), self.const(k.casefold()), self.const([])) for k in keys]
        for start in range(len(keys), -1, -1):
            lines = [f"def {name}_{start}(v):", "    try:"]
            self.walk(lines, name, names, start, test, none)
            lines += ["    except Exception:", f"        return {fail}"]
            self.defs.append("\n".join(lines))
        return f"{name}_0({root})"

    @staticmethod
    def walk(
        lines: list[str],
        name: str,
        names: list[tuple[str, str, str]],
        start: int,
        test: str,
        none: bool,
    ) -> None:
        """Emit the lookups of the path's segments ``start..`` from the value in ``v``, then the test.

        No loop or call while the values are single; at an array, each element goes on through
        ``{name}_{i}(element)``, the same walk from segment ``i`` (emitted for every ``i``), and the
        leaf holds when it holds for ANY element.
        """
        pad = " " * 8
        for i in range(start, len(names)):
            k, f, s = names[i]
            lines += [
                f"{pad}if v.__class__ is dict:",
                f"{pad}    w = v.get({k}, _M)",
                f"{pad}    v = _ci(v, {k}, {f}, {s}) if w is _M else w",
                f"{pad}elif v is None:",
                f"{pad}    return {none}",
                f"{pad}elif v.__class__ is list or v.__class__ is tuple:",
                f"{pad}    for e in v:",
                f"{pad}        if {name}_{i}(e):",
                f"{pad}            return True",
                f"{pad}    return False",
                f"{pad}else:",
                f"{pad}    v = _attr(v, {k}, {f})",
            ]
        last = len(names)
        lines += [
            f"{pad}if v.__class__ is list or v.__class__ is tuple:",
            f"{pad}    for e in v:",
            f"{pad}        if {name}_{last}(e):",
            f"{pad}            return True",
            f"{pad}    return False",
            f"{pad}return {test}",
        ]

    def compare_test(self, op: CompareOp, literal: LiteralNode) -> str:
        """An expression over ``v`` (one value) equal to ``compare_values(op, v, literal)``, with the
        common type inlined."""
        constant = comparison_constant(literal)
        c = self.const(constant)
        generic = f"_cmp({op!r}, v, {c})"
        symbol = _SYMBOLS[op]
        if isinstance(literal, NullLit):
            return {"eq": "v is None", "ne": "v is not None"}.get(op, "False")
        if isinstance(literal, BoolLit):
            if op in ("eq", "ne"):
                return f"v is {'not ' if op == 'ne' else ''}{literal.value}"
            return f"(v {symbol} {c}) if v.__class__ is bool else {generic}"
        if isinstance(constant, UUID):
            text = self.const(str(constant))
            return f"(v.lower() {symbol} {text}) if v.__class__ is str else {generic}"
        if isinstance(constant, str):
            return f"(v {symbol} {c}) if v.__class__ is str else {generic}"
        if isinstance(constant, datetime):
            parsed = (
                "(t := _iso(v)) is None or t != " + c
                if op == "ne"
                else f"(t := _iso(v)) is not None and t {symbol} {c}"
            )
            return f"({parsed}) if v.__class__ is str else {generic}"
        if isinstance(constant, int | float) and not isinstance(constant, bool):
            return (
                f"(v {symbol} {c}) if (v.__class__ is int or v.__class__ is float) else {generic}"
            )
        return generic

    def in_test(self, values: tuple[LiteralNode, ...]) -> str:
        constants = tuple(comparison_constant(v) for v in values)
        everything = f"_in(v, {self.const(constants)})"
        if any(isinstance(c, datetime) for c in constants):
            return everything
        strings = frozenset(c for c in constants if isinstance(c, str))
        guids = frozenset(str(c) for c in constants if isinstance(c, UUID))
        numbers = frozenset(  # a Decimal hashes and compares like the int or float it equals
            c for c in constants if isinstance(c, int | float | Decimal) and not isinstance(c, bool)
        )
        string_terms = []
        if strings:
            string_terms.append(f"v in {self.const(strings)}")
        if guids:
            string_terms.append(f"v.lower() in {self.const(guids)}")
        string_test = " or ".join(string_terms) or "False"
        number_test = f"v in {self.const(numbers)}" if numbers else "False"
        return (
            f"({string_test}) if v.__class__ is str else "
            f"(({number_test}) if (v.__class__ is int or v.__class__ is float) else {everything})"
        )


def _is_literal(node: Expr) -> bool:
    return isinstance(
        node, StringLit | IntLit | DecimalLit | BoolLit | NullLit | GuidLit | DateTimeLit
    )


def _describe(node: Expr) -> str:
    if isinstance(node, Call):
        return f"{node.name}()"
    return type(node).__name__


def _refuse_endpoint_function(node: Call) -> None:
    if node.name in ("atScope", "assignedTo"):
        raise FilterCompileError(
            f"{node.name}() is not a condition on a record: only the role- and deny-assignment list "
            "endpoints accept it (see auditor.expr.filter.parse_endpoint_filter)",
            pos=node.pos,
        )


def _refuse_parameter(node: Param | InParam) -> None:
    param = node if isinstance(node, Param) else node.param
    raise FilterCompileError(
        f"@{param.name} is a rule pack's parameter (the audit's clock or a rule's setting): only a "
        "rule's predicate can read it",
        pos=param.pos,
    )


# ================================================================================================
# parameters: @asOf and @settings/NAME, bound to their values before compiling


def _literal_of(value: Any, param: Param) -> LiteralNode:
    """The literal node of a parameter's value."""
    if value is None:
        return NullLit(pos=param.pos)
    if isinstance(value, bool):
        return BoolLit(value, pos=param.pos)
    if isinstance(value, int):
        return IntLit(value, pos=param.pos)
    if isinstance(value, float | Decimal):
        number = Decimal(str(value)) if isinstance(value, float) else value
        if not number.is_finite():
            raise FilterCompileError(f"@{param.name} is not a finite number", pos=param.pos)
        return DecimalLit(number, pos=param.pos)
    if isinstance(value, str):
        return StringLit(value, pos=param.pos)
    if isinstance(value, datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return DateTimeLit(moment, pos=param.pos)
    if isinstance(value, date):
        return DateTimeLit(datetime(value.year, value.month, value.day, tzinfo=UTC), pos=param.pos)
    if isinstance(value, list | tuple | set | frozenset):
        raise FilterCompileError(
            f"@{param.name} is a list: use it as `x in @{param.name}`", pos=param.pos
        )
    raise FilterCompileError(
        f"@{param.name} holds a {type(value).__name__}, which a filter cannot compare",
        pos=param.pos,
    )


def _value_of(param: Param, parameters: Mapping[str, Any]) -> Any:
    if param.name not in parameters:
        raise FilterCompileError(f"@{param.name} has no value here", pos=param.pos)
    return parameters[param.name]


def bind_parameters(node: Expr, parameters: Mapping[str, Any]) -> Expr:
    """``node`` with every ``@asOf`` and ``@settings/NAME`` replaced by the literal of its value in
    ``parameters`` (keys ``asOf`` and ``settings/NAME``); ``x in @settings/NAME`` becomes
    ``x in (v1, v2, ...)`` (``false`` for an empty list). Raises :class:`FilterCompileError` for a
    parameter without a value or of the wrong shape (a list compared, a scalar after ``in``)."""
    if isinstance(node, Param):
        return _literal_of(_value_of(node, parameters), node)
    if isinstance(node, InParam):
        values = _value_of(node.param, parameters)
        if not isinstance(values, list | tuple | set | frozenset):
            raise FilterCompileError(
                f"@{node.param.name} is not a list: 'in' needs a list setting", pos=node.param.pos
            )
        items = tuple(_literal_of(v, node.param) for v in values)
        operand = bind_parameters(node.operand, parameters)
        return In(operand, items, pos=node.pos) if items else BoolLit(False, pos=node.pos)
    kids = children(node)
    if not kids:
        return node
    bound = tuple(bind_parameters(kid, parameters) for kid in kids)
    if bound == kids and all(a is b for a, b in zip(bound, kids, strict=True)):
        return node
    if isinstance(node, Compare):
        return Compare(node.op, bound[0], bound[1], pos=node.pos)
    if isinstance(node, And):
        return And(bound, pos=node.pos)
    if isinstance(node, Or):
        return Or(bound, pos=node.pos)
    if isinstance(node, Not):
        return Not(bound[0], pos=node.pos)
    if isinstance(node, In):
        return In(bound[0], node.values, pos=node.pos)
    if isinstance(node, Call):
        return Call(node.name, bound, pos=node.pos)
    if isinstance(node, Lambda):
        predicate = bound[1] if len(bound) > 1 else None
        return Lambda(node.collection, node.op, node.variable, predicate, pos=node.pos)
    return node  # pragma: no cover - every node with children is listed above


# ================================================================================================
# optimisation: same answers, less work


def _simplify(node: Expr) -> Expr:
    """Flatten nested and/or, and turn ``x eq a or x eq b or x in (c)`` into ``x in (a, b, c)``."""
    if isinstance(node, Or | And):
        operands: list[Expr] = []
        for operand in map(_simplify, node.operands):
            if isinstance(operand, Or | And) and type(operand) is type(node):
                operands.extend(operand.operands)
            else:
                operands.append(operand)
        if isinstance(node, Or):
            operands = _merge_equalities(operands)
        if len(operands) == 1:
            return operands[0]
        if isinstance(node, And):
            return And(tuple(operands), pos=node.pos)
        return Or(tuple(operands), pos=node.pos)
    if isinstance(node, Not):
        return Not(_simplify(node.operand), pos=node.pos)
    if isinstance(node, Lambda) and node.predicate is not None:
        predicate = _simplify(node.predicate)
        through = _through_collection(node, predicate)
        if through is not None:
            return through
        return Lambda(node.collection, node.op, node.variable, predicate, pos=node.pos)
    return node


def _through_collection(node: Lambda, predicate: Expr) -> Expr | None:
    """``c/any(x: x/p op v)`` as ``c/p op v``: a path through an array already means "any element".

    Only for ``any``, a predicate on one member of the element, and a test that is false on null
    (``c/any(x: x/p eq null)`` is false when ``c`` is missing, ``c/p eq null`` would be true).
    """
    if node.op != "any" or node.variable is None:
        return None
    variable = node.variable.casefold()

    def moved(member: Expr) -> Member | None:
        if isinstance(member, Member) and member.path[0].casefold() == variable:
            return Member(node.collection.path + member.path[1:], pos=member.pos)
        return None

    if isinstance(predicate, Member):
        return moved(predicate)
    if isinstance(predicate, In):
        member = moved(predicate.operand)
        constants = [comparison_constant(value) for value in predicate.values]
        if member is None or any(constant is None for constant in constants):
            return None
        return In(member, predicate.values, pos=predicate.pos)
    if isinstance(predicate, Compare):
        left, right = moved(predicate.left), moved(predicate.right)
        if left is not None and _is_literal(predicate.right):
            literal: Expr = predicate.right
            if compare_values(predicate.op, None, comparison_constant(literal)):  # type: ignore[arg-type]
                return None
            return Compare(predicate.op, left, literal, pos=predicate.pos)
        if right is not None and _is_literal(predicate.left):
            literal = predicate.left
            if compare_values(predicate.op, comparison_constant(literal), None):  # type: ignore[arg-type]
                return None
            return Compare(predicate.op, literal, right, pos=predicate.pos)
    return None


def _equality(node: Expr) -> tuple[Member, tuple[LiteralNode, ...]] | None:
    if isinstance(node, Compare) and node.op == "eq":
        if isinstance(node.left, Member) and _is_literal(node.right):
            return node.left, (node.right,)  # type: ignore[return-value]
        if isinstance(node.right, Member) and _is_literal(node.left):
            return node.right, (node.left,)  # type: ignore[return-value]
    if isinstance(node, In) and isinstance(node.operand, Member):
        return node.operand, node.values
    return None


def _merge_equalities(operands: list[Expr]) -> list[Expr]:
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, operand in enumerate(operands):
        equality = _equality(operand)
        if equality is not None:
            groups.setdefault(equality[0].path, []).append(i)
    merged: dict[int, Expr] = {}
    dropped: set[int] = set()
    for indexes in groups.values():
        if len(indexes) < 2:
            continue
        values: list[LiteralNode] = []
        for i in indexes:
            values.extend(_equality(operands[i])[1])  # type: ignore[index]
        member = _equality(operands[indexes[0]])[0]  # type: ignore[index]
        merged[indexes[0]] = In(member, tuple(values), pos=operands[indexes[0]].pos)
        dropped.update(indexes[1:])
    result = [merged.get(i, operand) for i, operand in enumerate(operands) if i not in dropped]
    return result


# ================================================================================================
# entry points

MAX_COMPILE_DEPTH = 100


def compile_ast(node: Expr, *, specialise: bool = True) -> Predicate:
    """Compile ``node`` into ``record -> bool`` (no caching; see :func:`compile_filter`).

    ``specialise=False`` routes every comparison through :func:`compare_values` (used by the tests
    to check the inlined fast paths against it).
    """
    if depth_exceeds(node, MAX_COMPILE_DEPTH) is not None:
        raise FilterCompileError(
            f"the filter is nested too deeply (more than {MAX_COMPILE_DEPTH} levels)"
        )
    gen = _Codegen(specialise)
    try:
        tree = _simplify(node) if specialise else node
        body = gen.condition(tree, ())
        if re.fullmatch(r"_p\d+(_0)?\(r\)", body):  # one leaf: it is the predicate
            entry = body[:-3]
            source = "\n\n".join(gen.defs)
        else:
            entry = "_filter"
            source = "\n\n".join([*gen.defs, f"def _filter(r):\n    return {body}"])
        code = compile(source, "<filter>", "exec")
    except (RecursionError, MemoryError, SyntaxError):
        raise FilterCompileError(
            "the filter is too large or nested too deeply to compile"
        ) from None
    exec(code, gen.namespace)
    function: Predicate = gen.namespace[entry]
    return function


_CACHE_SIZE = 1024
_LOCK = threading.Lock()
_BY_CANONICAL: dict[str, Predicate] = {}
_BY_TEXT: dict[str, Predicate] = {}


def _remember(cache: dict[str, Predicate], key: str, function: Predicate) -> None:
    with _LOCK:
        if len(cache) >= _CACHE_SIZE:
            cache.pop(next(iter(cache)))
        cache[key] = function


def compile_filter(filter: str | Expr, parameters: Mapping[str, Any] | None = None) -> Predicate:
    """A callable ``record -> bool`` for a filter text or AST, compiled once per canonical text.

    ``parameters`` are the values of ``@asOf`` and ``@settings/NAME`` (rule packs: keys ``asOf``
    and ``settings/NAME``); without them a filter that reads one is a :class:`FilterCompileError`.
    """
    from auditor.expr.filter.parser import line_column, parse_cached
    from auditor.expr.filter.printer import print_filter

    if isinstance(filter, str):
        cached = _BY_TEXT.get(filter) if parameters is None else None
        if cached is not None:
            return cached
        node = parse_cached(filter)
    else:
        node = filter
    if parameters is not None:
        try:
            node = bind_parameters(node, parameters)
        except FilterCompileError as exc:
            if isinstance(filter, str) and exc.pos >= 0:
                line, column = line_column(filter, exc.pos)
                where = f"column {column}" if line == 1 else f"line {line}, column {column}"
                raise FilterCompileError(exc.detail, pos=exc.pos, location=where) from None
            raise
        filter = node
    try:
        canonical = print_filter(node)
    except ValueError as exc:
        raise FilterCompileError(str(exc)) from None
    function = _BY_CANONICAL.get(canonical)
    if function is None:
        try:
            function = compile_ast(node)
        except FilterCompileError as exc:
            if isinstance(filter, str) and exc.pos >= 0:
                line, column = line_column(filter, exc.pos)
                where = f"column {column}" if line == 1 else f"line {line}, column {column}"
                raise FilterCompileError(exc.detail, pos=exc.pos, location=where) from None
            raise
        _remember(_BY_CANONICAL, canonical, function)
    if isinstance(filter, str):
        _remember(_BY_TEXT, filter, function)
    return function
