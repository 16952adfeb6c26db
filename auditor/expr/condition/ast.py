"""Typed syntax tree of role-assignment conditions, version 2.0 (semantics §2).

Every node is a frozen, hashable dataclass, so trees compare by value (``parse(print(t)) == t``) and
can key caches. Parentheses leave no node of their own: grouping is the shape of the tree, and the
printer puts parentheses back wherever an ``And``/``Or`` sits inside another ``And``/``Or`` or under
a ``Not``.

The parser checks what the constructors do not (operand types against the operator, list lengths);
a tree built by hand that the parser would refuse prints to text that does not parse.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import TypeAlias

__all__ = [
    "SOURCES",
    "ActionMatches",
    "And",
    "Attribute",
    "BoolValue",
    "Comparison",
    "Condition",
    "CrossProduct",
    "Exists",
    "Family",
    "GuidValue",
    "IntValue",
    "ListValue",
    "Not",
    "Op",
    "Operand",
    "Or",
    "Scalar",
    "StrValue",
    "SubOperationMatches",
    "normalize_attribute_key",
]

#: The four attribute sources, spelled canonically.
SOURCES: tuple[str, ...] = ("Request", "Resource", "Principal", "Environment")

_TAG_VALUE = re.compile(r"^(.*?/tags:)(.*)(<\$key_case_sensitive\$>\])$", re.DOTALL | re.IGNORECASE)


def normalize_attribute_key(key: str) -> str:
    """The form under which attribute references are matched: case-insensitive everywhere except
    the tag key of ``.../tags:Key<$key_case_sensitive$>``, which keeps its case."""
    match = _TAG_VALUE.match(key)
    if match:
        return match.group(1).lower() + match.group(2) + match.group(3).lower()
    return key.lower()


# --------------------------------------------------------------------------------------- operands


@dataclass(frozen=True, slots=True)
class Attribute:
    """``@Source[inside]``: ``source`` is one of :data:`SOURCES`, ``name`` the text in brackets as
    written (``Cloud.Storage/storageAccounts/blobServices/containers:name``, ``UtcNow``, ...)."""

    source: str
    name: str

    @property
    def key(self) -> str:
        """The reference as conditions (and request ``attributes`` keys) write it."""
        return f"@{self.source}[{self.name}]"

    @property
    def normalized_key(self) -> str:
        return normalize_attribute_key(self.key)

    @property
    def tag_key(self) -> str | None:
        """``Key`` for ``.../tags:Key<$key_case_sensitive$>``, else ``None``."""
        match = _TAG_VALUE.match(self.key)
        return match.group(2) if match else None

    @property
    def is_tag_keys(self) -> bool:
        """True for ``.../tags&$keys$&`` (the set of tag keys)."""
        return self.name.lower().endswith("/tags&$keys$&")


@dataclass(frozen=True, slots=True)
class StrValue:
    """A single-quoted string (``''`` inside stands for one quote). Quoted GUIDs and date-times are
    strings too; the operator gives them their meaning."""

    value: str


@dataclass(frozen=True, slots=True)
class IntValue:
    value: int


@dataclass(frozen=True, slots=True)
class BoolValue:
    value: bool


@dataclass(frozen=True, slots=True)
class GuidValue:
    """A bare (unquoted) GUID, kept as written; compared case-insensitively."""

    value: str


Scalar: TypeAlias = StrValue | IntValue | BoolValue | GuidValue


@dataclass(frozen=True, slots=True)
class ListValue:
    """``{v1, v2, ...}``, at least one element."""

    items: tuple[Scalar, ...]


Operand: TypeAlias = Attribute | StrValue | IntValue | BoolValue | GuidValue | ListValue


# -------------------------------------------------------------------------------------- operators


class Family(enum.Enum):
    STRING = "String"
    NUMERIC = "Numeric"
    DATETIME = "DateTime"
    GUID = "Guid"
    BOOL = "Bool"


class CrossProduct(enum.Enum):
    """The cross-product prefixes: ``ForXOfYValues:`` quantifies X over the left values and Y over
    the right values."""

    FOR_ANY_OF_ANY = "ForAnyOfAnyValues"
    FOR_ALL_OF_ANY = "ForAllOfAnyValues"
    FOR_ANY_OF_ALL = "ForAnyOfAllValues"
    FOR_ALL_OF_ALL = "ForAllOfAllValues"

    @property
    def left_all(self) -> bool:
        return self in (CrossProduct.FOR_ALL_OF_ANY, CrossProduct.FOR_ALL_OF_ALL)

    @property
    def right_all(self) -> bool:
        return self in (CrossProduct.FOR_ANY_OF_ALL, CrossProduct.FOR_ALL_OF_ALL)


class Op(enum.Enum):
    """Comparison operators; the value is the canonical spelling."""

    STRING_EQUALS = "StringEquals"
    STRING_NOT_EQUALS = "StringNotEquals"
    STRING_EQUALS_IGNORE_CASE = "StringEqualsIgnoreCase"
    STRING_NOT_EQUALS_IGNORE_CASE = "StringNotEqualsIgnoreCase"
    STRING_STARTS_WITH = "StringStartsWith"
    STRING_NOT_STARTS_WITH = "StringNotStartsWith"
    STRING_STARTS_WITH_IGNORE_CASE = "StringStartsWithIgnoreCase"
    STRING_NOT_STARTS_WITH_IGNORE_CASE = "StringNotStartsWithIgnoreCase"
    STRING_LIKE = "StringLike"
    STRING_NOT_LIKE = "StringNotLike"
    STRING_LIKE_IGNORE_CASE = "StringLikeIgnoreCase"
    STRING_NOT_LIKE_IGNORE_CASE = "StringNotLikeIgnoreCase"
    NUMERIC_EQUALS = "NumericEquals"
    NUMERIC_NOT_EQUALS = "NumericNotEquals"
    NUMERIC_GREATER_THAN = "NumericGreaterThan"
    NUMERIC_GREATER_THAN_EQUALS = "NumericGreaterThanEquals"
    NUMERIC_LESS_THAN = "NumericLessThan"
    NUMERIC_LESS_THAN_EQUALS = "NumericLessThanEquals"
    DATETIME_EQUALS = "DateTimeEquals"
    DATETIME_NOT_EQUALS = "DateTimeNotEquals"
    DATETIME_GREATER_THAN = "DateTimeGreaterThan"
    DATETIME_GREATER_THAN_EQUALS = "DateTimeGreaterThanEquals"
    DATETIME_LESS_THAN = "DateTimeLessThan"
    DATETIME_LESS_THAN_EQUALS = "DateTimeLessThanEquals"
    GUID_EQUALS = "GuidEquals"
    GUID_NOT_EQUALS = "GuidNotEquals"
    BOOL_EQUALS = "BoolEquals"
    BOOL_NOT_EQUALS = "BoolNotEquals"

    @property
    def family(self) -> Family:
        for family in Family:
            if self.value.startswith(family.value):
                return family
        raise AssertionError(self)  # pragma: no cover

    @property
    def ignore_case(self) -> bool:
        return self.value.endswith("IgnoreCase")

    @property
    def negated(self) -> bool:
        """The ``Not`` forms (``StringNotEquals``, ``NumericNotEquals``, ...)."""
        return "Not" in self.value

    @property
    def relation(self) -> str:
        """What the positive form tests: ``equals``, ``startswith``, ``like``, ``gt``, ``ge``,
        ``lt`` or ``le``."""
        core = self.value[len(self.family.value) :].removesuffix("IgnoreCase")
        core = core.removeprefix("Not")
        return {
            "Equals": "equals",
            "StartsWith": "startswith",
            "Like": "like",
            "GreaterThan": "gt",
            "GreaterThanEquals": "ge",
            "LessThan": "lt",
            "LessThanEquals": "le",
        }[core]

    @property
    def accepts_cross_product(self) -> bool:
        """Cross-product prefixes apply to the string, numeric and GUID operators."""
        return self.family in (Family.STRING, Family.NUMERIC, Family.GUID)


# ---------------------------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class And:
    """``a AND b AND ...`` (``&&``), two operands or more."""

    operands: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Or:
    """``a OR b OR ...`` (``||``), two operands or more."""

    operands: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Not:
    """``NOT x`` / ``!x``."""

    operand: Condition


@dataclass(frozen=True, slots=True)
class ActionMatches:
    """``ActionMatches{'pattern'}``: the request's action matches the case-insensitive glob."""

    pattern: str


@dataclass(frozen=True, slots=True)
class SubOperationMatches:
    """``SubOperationMatches{'name'}``: the request's sub-operation is ``name`` (ignoring case)."""

    name: str


@dataclass(frozen=True, slots=True)
class Exists:
    """``Exists @Source[...]``."""

    attribute: Attribute


@dataclass(frozen=True, slots=True)
class Comparison:
    """``left [ForXOfYValues:]Operator right``."""

    left: Operand
    op: Op
    right: Operand
    cross: CrossProduct | None = None

    @property
    def operator_text(self) -> str:
        return f"{self.cross.value}:{self.op.value}" if self.cross else self.op.value


Condition: TypeAlias = And | Or | Not | ActionMatches | SubOperationMatches | Exists | Comparison
