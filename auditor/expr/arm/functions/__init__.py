"""The template functions: one table, one entry per function.

Adding a function is one decorated implementation in the module of its kind (``scope``, ``logic``,
``conversion``, ``text``, ``arrays``, ``arithmetic``, ``lambdas``)::

    @builtin("toLower", 1, 1)
    def _to_lower(ev: Evaluation, call: Call, args: list[Any]) -> Any:
        return _case_map(text_arg(args, 0, call), str.lower, call)

An implementation gets the evaluation (the context, a way to evaluate expressions), the call node, and
the evaluated arguments. By default an argument that is unknown makes the call's result that unknown
before the implementation runs; ``takes_unknown=True`` lets it see them (``createArray`` keeps an
unknown element, ``and(false, x)`` is false whatever ``x`` is), and ``lazy=True`` hands it the
argument expressions to evaluate itself (``if``, ``coalesce``, ``lambda``, the deployment-time
functions that never evaluate their arguments).

An implementation never guesses: where the vendor's behaviour is not known for certain (a .NET
format specifier not implemented here, culture-aware comparison of non-ASCII text, a character
outside the Basic Multilingual Plane where strings are indexed) it raises :class:`Problem` with kind
``NOT_IMPLEMENTED``, which the evaluator turns into an unknown value. A value the expression cannot
have (an index out of range, a missing property, a type mismatch) is a ``Problem`` of kind ``ERROR``.
Reasons never quote a computed value, only types, template names and positions.
"""

from __future__ import annotations

# The modules register their functions when imported.
from auditor.expr.arm.functions import (  # noqa: F401
    arithmetic,
    arrays,
    conversion,
    lambdas,
    logic,
    scope,
    text,
)
from auditor.expr.arm.functions._args import holds_lambda, member, named
from auditor.expr.arm.functions._table import (
    FUNCTIONS,
    Builtin,
    Evaluation,
    Lambda,
    Problem,
    PropagateUnknown,
    builtin,
    lookup,
)
from auditor.expr.arm.functions.scope import secret_reference

__all__ = [
    "FUNCTIONS",
    "Builtin",
    "Evaluation",
    "Lambda",
    "Problem",
    "PropagateUnknown",
    "builtin",
    "holds_lambda",
    "lookup",
    "member",
    "named",
    "secret_reference",
]
