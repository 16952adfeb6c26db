"""Role-assignment conditions, version 2.0 (semantics §2): parse, print, compile, validate.

>>> cond = parse_condition("!(ActionMatches{'Cloud.X/*/read'}) OR (@Resource[x] StringEquals 'a')")
>>> print_condition(cond)
"!(ActionMatches{'Cloud.X/*/read'}) OR @Resource[x] StringEquals 'a'"
>>> compile_condition(cond)(ConditionRequest("Cloud.Compute/virtualMachines/write"))
True
"""

from __future__ import annotations

from auditor.expr.condition.ast import (
    SOURCES,
    ActionMatches,
    And,
    Attribute,
    BoolValue,
    Comparison,
    Condition,
    CrossProduct,
    Exists,
    Family,
    GuidValue,
    IntValue,
    ListValue,
    Not,
    Op,
    Operand,
    Or,
    Scalar,
    StrValue,
    SubOperationMatches,
    normalize_attribute_key,
)
from auditor.expr.condition.evaluator import (
    AttributeValue,
    CompiledCondition,
    ConditionRequest,
    action_matches,
    attributes_read,
    compile_condition,
    targeted_actions,
)
from auditor.expr.condition.parser import MAX_BYTES, MAX_DEPTH, parse_condition, utf8_size
from auditor.expr.condition.printer import print_condition
from auditor.expr.errors import ConditionSyntaxError

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "SOURCES",
    "SUPPORTED_VERSION",
    "ActionMatches",
    "And",
    "Attribute",
    "AttributeValue",
    "BoolValue",
    "Comparison",
    "CompiledCondition",
    "Condition",
    "ConditionRequest",
    "ConditionSyntaxError",
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
    "action_matches",
    "attributes_read",
    "compile_condition",
    "normalize_attribute_key",
    "parse_condition",
    "print_condition",
    "targeted_actions",
    "validate_condition",
]

#: The only accepted ``conditionVersion`` (seed 8).
SUPPORTED_VERSION = "2.0"


def validate_condition(text: str | None, version: str | None) -> list[str]:
    """Problems of a role assignment's ``condition``/``conditionVersion`` pair, in words.

    Empty when valid. No condition (``None`` or blank) has nothing to parse; a ``conditionVersion``
    left out next to a condition means the default '2.0' (as the vendor's REST API documents); any
    other version than '2.0' is a problem, with or without a condition. A condition over 8 KB is
    reported for its size only (it is not parsed).
    """
    problems: list[str] = []
    if version is not None and version.strip() != SUPPORTED_VERSION:
        problems.append(
            f"conditionVersion {version!r} is not supported; the only accepted value is "
            f"{SUPPORTED_VERSION!r}"
        )
    if text is None or not text.strip():
        return problems
    size = utf8_size(text)
    if size > MAX_BYTES:
        problems.append(
            f"the condition is {size} bytes long, over the 8 KB limit ({MAX_BYTES} bytes of UTF-8)"
        )
        return problems
    try:
        parse_condition(text)
    except ConditionSyntaxError as error:
        where = f"line {error.line}, column {error.column}"
        expected = f"; expected {', '.join(error.expected)}" if error.expected else ""
        problems.append(f"the condition does not parse at {where}: {error.problem}{expected}")
    return problems
