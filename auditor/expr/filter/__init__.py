"""OData-style ``$filter`` expressions (semantics section 3).

- :func:`parse_filter` text -> typed AST (:mod:`auditor.expr.filter.ast`), raising
  :class:`~auditor.expr.errors.FilterSyntaxError` (with line, column and a caret) on any problem;
- :func:`print_filter` AST -> canonical text, with ``parse_filter(print_filter(ast)) == ast``;
- :func:`compile_filter` text or AST -> ``record -> bool``, compiled once per canonical text (a rule
  pack's ``@asOf`` and ``@settings/NAME`` are bound to their values first: :func:`bind_parameters`);
- :func:`parse_endpoint_filter` the shapes each list endpoint accepts, as typed queries.

The grammar is ``grammar/filter.lark``; ``lark`` is imported when the first filter is parsed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor._lazy import lazy_exports
from auditor.expr.errors import FilterSyntaxError
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
    parameters,
)
from auditor.expr.filter.parser import parse_cached as _parse_cached
from auditor.expr.filter.printer import print_filter

if TYPE_CHECKING:
    from auditor.expr.filter.compiler import (
        FilterCompileError,
        Predicate,
        bind_parameters,
        compare_values,
        compile_filter,
    )
    from auditor.expr.filter.endpoints import (
        ACCEPTED_FORMS,
        DenyAssignmentQuery,
        Endpoint,
        EndpointFilterError,
        EndpointQuery,
        HealthEventQuery,
        Reach,
        RoleAssignmentQuery,
        parse_endpoint_filter,
    )

# The compiler and the endpoint shapes load on first use, so `auditor filter check` (parse and print
# only) starts without them.
_LAZY = {
    "FilterCompileError": "compiler",
    "Predicate": "compiler",
    "compare_values": "compiler",
    "bind_parameters": "compiler",
    "compile_filter": "compiler",
    "ACCEPTED_FORMS": "endpoints",
    "DenyAssignmentQuery": "endpoints",
    "Endpoint": "endpoints",
    "EndpointFilterError": "endpoints",
    "EndpointQuery": "endpoints",
    "HealthEventQuery": "endpoints",
    "Reach": "endpoints",
    "RoleAssignmentQuery": "endpoints",
    "parse_endpoint_filter": "endpoints",
}


__getattr__ = lazy_exports(__name__, _LAZY)


def parse_filter(text: str) -> Expr:
    """Parse ``$filter`` text into its AST (cached per text; ASTs are immutable).

    Raises :class:`~auditor.expr.errors.FilterSyntaxError`, and nothing else, for any string.
    """
    return _parse_cached(text)


__all__ = [
    "ACCEPTED_FORMS",
    "And",
    "BoolLit",
    "Call",
    "Compare",
    "CompareOp",
    "DateTimeLit",
    "DecimalLit",
    "DenyAssignmentQuery",
    "Endpoint",
    "EndpointFilterError",
    "EndpointQuery",
    "Expr",
    "FilterCompileError",
    "FilterSyntaxError",
    "GuidLit",
    "HealthEventQuery",
    "In",
    "InParam",
    "IntLit",
    "Lambda",
    "LiteralNode",
    "Member",
    "Not",
    "NullLit",
    "Or",
    "Param",
    "Predicate",
    "Reach",
    "RoleAssignmentQuery",
    "StringLit",
    "bind_parameters",
    "compare_values",
    "compile_filter",
    "parameters",
    "parse_endpoint_filter",
    "parse_filter",
    "print_filter",
]
