"""The two expression languages: OData-style ``$filter`` and role-assignment conditions (v2.0)."""

from auditor.expr.errors import ConditionSyntaxError, ExpressionSyntaxError, FilterSyntaxError

__all__ = ["ConditionSyntaxError", "ExpressionSyntaxError", "FilterSyntaxError"]
