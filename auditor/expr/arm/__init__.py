"""The ARM template expression language: ``"[concat('a', parameters('p'))]"``.

- :func:`parse_template_string` a JSON string value ``"[...]"`` -> typed AST
  (:mod:`auditor.expr.arm.ast`), raising :class:`ArmSyntaxError` (line, column, caret) on any problem;
  :func:`parse_expression` the same for the text inside the brackets; :func:`is_expression` and
  :func:`literal_value` tell expressions from literal strings (``"[[x]"`` is ``"[x]"``);
- :func:`print_expression` / :func:`print_template_string` AST -> canonical text, with
  ``parse_expression(print_expression(t)) == t``;
- :func:`evaluate` one expression, :func:`evaluate_value` a whole JSON value (objects, arrays,
  property copy loops), against an :class:`ArmContext` (parameters, variables, user-defined
  functions, the :class:`Deployment`'s scope, copy loops); what cannot be resolved is an
  :class:`Unknown` that says why (:class:`UnknownKind`: a value not given, known only at deployment,
  a reference to a secret such as ``listKeys(...)``, not implemented, or an error);
- the functions are one table in :mod:`auditor.expr.arm.functions` (a new function is one
  decorated implementation).

The grammar is ``grammar/arm.lark``; ``lark`` is imported when the first expression is parsed.
"""

from __future__ import annotations

from auditor.expr.arm.ast import Call, Expr, Index, IntLit, Property, StrLit
from auditor.expr.arm.context import ArmContext, Deployment, ParameterSpec
from auditor.expr.arm.evaluator import evaluate, evaluate_value, validate_expressions
from auditor.expr.arm.functions import FUNCTIONS
from auditor.expr.arm.parser import (
    MAX_DEPTH,
    MAX_LENGTH,
    ArmSyntaxError,
    is_expression,
    literal_value,
    parse_expression,
    parse_template_string,
)
from auditor.expr.arm.printer import print_expression, print_template_string
from auditor.expr.arm.values import Unknown, UnknownKind, find_unknown

__all__ = [
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "ArmContext",
    "ArmSyntaxError",
    "Call",
    "Deployment",
    "Expr",
    "Index",
    "IntLit",
    "ParameterSpec",
    "Property",
    "StrLit",
    "Unknown",
    "UnknownKind",
    "evaluate",
    "evaluate_value",
    "find_unknown",
    "is_expression",
    "literal_value",
    "parse_expression",
    "parse_template_string",
    "print_expression",
    "print_template_string",
    "validate_expressions",
]
