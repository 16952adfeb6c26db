"""The one place the sandbox turns a ``$filter`` into a query: a single call of the product's filter
engine (:func:`auditor.expr.filter.parse_endpoint_filter`, semantics section 3). Its typed queries
are what the store answers.

A filter that does not parse, or that the endpoint does not accept, raises :class:`FilterRejected`
with the engine's one-line message (which names the column); the app answers 400 with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from auditor.expr.errors import ExpressionSyntaxError
from auditor.expr.filter import (
    DenyAssignmentQuery,
    Endpoint,
    EndpointFilterError,
    RoleAssignmentQuery,
    parse_endpoint_filter,
)

__all__ = [
    "DenyAssignmentQuery",
    "EventPredicate",
    "FilterRejected",
    "RoleAssignmentQuery",
    "deny_assignment_query",
    "event_predicate",
    "role_assignment_query",
]

EventPredicate = Callable[[Mapping[str, Any]], bool]


class FilterRejected(Exception):
    """A ``$filter`` the endpoint does not accept; ``message`` names the column."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _rejected(exc: Exception) -> FilterRejected:
    if isinstance(exc, EndpointFilterError):
        return FilterRejected(exc.summary)
    return FilterRejected(str(exc).splitlines()[0])


def role_assignment_query(text: str | None) -> RoleAssignmentQuery:
    try:
        return parse_endpoint_filter(Endpoint.ROLE_ASSIGNMENTS, text)
    except (ExpressionSyntaxError, EndpointFilterError) as exc:
        raise _rejected(exc) from None


def deny_assignment_query(text: str | None) -> DenyAssignmentQuery:
    try:
        return parse_endpoint_filter(Endpoint.DENY_ASSIGNMENTS, text)
    except (ExpressionSyntaxError, EndpointFilterError) as exc:
        raise _rejected(exc) from None


def event_predicate(text: str | None) -> EventPredicate | None:
    """A predicate over an event's wire JSON, or None for no filter."""
    try:
        query = parse_endpoint_filter(Endpoint.HEALTH_EVENTS, text)
    except (ExpressionSyntaxError, EndpointFilterError) as exc:
        raise _rejected(exc) from None
    return None if query.filter is None else query.predicate
