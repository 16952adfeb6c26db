"""Tree to canonical text, on one line: ``parse_condition(print_condition(t)) == t``.

Canonical form: operators and keywords spelled as the vendor documents them (``StringEquals``,
``ForAnyOfAnyValues:GuidEquals``, ``AND``, ``OR``, ``Exists``), ``NOT`` printed as ``!(...)``, an
``And``/``Or`` inside another one always in parentheses (the tree keeps grouping), lists as
``{a, b}``, strings in single quotes with ``''`` for a quote, bare GUIDs kept bare.
"""

from __future__ import annotations

from auditor.expr.condition.ast import (
    ActionMatches,
    And,
    Attribute,
    BoolValue,
    Comparison,
    Condition,
    Exists,
    GuidValue,
    IntValue,
    ListValue,
    Not,
    Operand,
    Or,
    StrValue,
    SubOperationMatches,
)

__all__ = ["print_condition", "quote"]


def quote(value: str) -> str:
    """A single-quoted string literal."""
    return "'" + value.replace("'", "''") + "'"


def print_condition(node: Condition | Operand) -> str:
    """Canonical text of a condition (or of one operand)."""
    if isinstance(node, And | Or):
        joiner = " AND " if isinstance(node, And) else " OR "
        return joiner.join(_grouped(child) for child in node.operands)
    if isinstance(node, Not):
        return f"!({print_condition(node.operand)})"
    if isinstance(node, Comparison):
        left = print_condition(node.left)
        right = print_condition(node.right)
        return f"{left} {node.operator_text} {right}"
    if isinstance(node, ActionMatches):
        return f"ActionMatches{{{quote(node.pattern)}}}"
    if isinstance(node, SubOperationMatches):
        return f"SubOperationMatches{{{quote(node.name)}}}"
    if isinstance(node, Exists):
        return f"Exists {node.attribute.key}"
    if isinstance(node, Attribute):
        return node.key
    if isinstance(node, StrValue):
        return quote(node.value)
    if isinstance(node, BoolValue):
        return "true" if node.value else "false"
    if isinstance(node, IntValue | GuidValue):
        return str(node.value)
    if isinstance(node, ListValue):
        return "{" + ", ".join(print_condition(item) for item in node.items) + "}"
    raise TypeError(f"not a condition node: {type(node).__name__}")


def _grouped(node: Condition) -> str:
    text = print_condition(node)
    return f"({text})" if isinstance(node, And | Or) else text
