"""The two expression languages: OData-style ``$filter`` and role-assignment conditions (v2.0), and
the linear-time glob matcher every wildcard of the estate and the command line goes through."""

from auditor.expr.errors import (
    ConditionSyntaxError,
    ExpressionSyntaxError,
    FilterSyntaxError,
    accepted_terminals,
    caret_under,
    locate,
)
from auditor.expr.glob import Dialect, compile_glob, glob_match, glob_regex

__all__ = [
    "ConditionSyntaxError",
    "Dialect",
    "ExpressionSyntaxError",
    "FilterSyntaxError",
    "accepted_terminals",
    "caret_under",
    "compile_glob",
    "glob_match",
    "glob_regex",
    "locate",
]
