"""The one place that says which ``$filter`` each list endpoint accepts, and what it means.

Seed 4.1, 4.2, 4.5, 4.6 and semantics section 3.  A filter is parsed once
(:func:`auditor.expr.filter.parse_filter`), then matched against the shapes its endpoint accepts and
turned into a typed query; anything else raises :class:`EndpointFilterError`, whose message names the
accepted forms and the column (the sandbox answers 400 with it, ``auditor query`` exits 2).

================  ===============================================  ====================================
endpoint          ``$filter``                                      query
================  ===============================================  ====================================
role assignments  (none)                                           at, above and below the scope
                  ``atScope()``                                    at or above the scope
                  ``principalId eq '{id}'``                        at, above and below; that principal
                  ``assignedTo('{id}')``                           as principalId, plus its groups
                  ``atScope() and assignedTo('{id}')``             both
deny assignments  (none)                                           at, above and below the scope
                  ``atScope()``                                    at or above the scope
                  ``denyAssignmentName eq '{name}'``               by name, at the scope
                  ``principalId eq '{id}'``                        at, above and below; the principal
                                                                   directly or as all-principals
                  ``gdprExportPrincipalId eq '{id}'``              as principalId, also where the
                                                                   principal is excluded; only
                                                                   denyAssignmentName and description
health events     (none)                                           every event
                  ``eq`` over event fields, with ``and``/``or``    a compiled predicate
                  and parentheses, any path
================  ===============================================  ====================================

Keywords and member names are case-insensitive, ids may be quoted or bare GUIDs.  Deny assignments
without a filter are taken, like role assignments, at, above and below the scope (the seed does not
say; semantics section 3 says so for role assignments).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, NoReturn, TypeAlias, overload

from auditor.errors import InputError
from auditor.expr.filter.ast import (
    LITERAL_TYPES,
    And,
    Call,
    Compare,
    Expr,
    GuidLit,
    In,
    Lambda,
    Member,
    Not,
    Or,
    StringLit,
    is_condition,
)
from auditor.expr.filter.compiler import compile_filter
from auditor.expr.filter.parser import line_column, parse_cached


class Endpoint(StrEnum):
    """The list endpoints that take a ``$filter`` (the ``KIND`` names of ``auditor query``)."""

    ROLE_ASSIGNMENTS = "role-assignments"
    DENY_ASSIGNMENTS = "deny-assignments"
    HEALTH_EVENTS = "health-events"


class Reach(StrEnum):
    """Which assignments a list returns, relative to the scope of the request."""

    AT = "at"
    AT_OR_ABOVE = "at-or-above"
    AT_ABOVE_AND_BELOW = "at-above-and-below"


ACCEPTED_FORMS: dict[Endpoint, tuple[str, ...]] = {
    Endpoint.ROLE_ASSIGNMENTS: (
        "atScope()",
        "principalId eq '{id}'",
        "assignedTo('{id}')",
        "atScope() and assignedTo('{id}')",
    ),
    Endpoint.DENY_ASSIGNMENTS: (
        "atScope()",
        "denyAssignmentName eq '{name}'",
        "principalId eq '{id}'",
        "gdprExportPrincipalId eq '{id}'",
    ),
    Endpoint.HEALTH_EVENTS: (
        "<field path> eq <value>, combined with and, or and parentheses, for example "
        "properties/eventType eq 'ServiceIssue' or properties/eventType eq 'SecurityAdvisory'",
    ),
}
"""What each endpoint accepts besides no filter at all, as shown in error messages."""

_LABELS = {
    Endpoint.ROLE_ASSIGNMENTS: "role assignments",
    Endpoint.DENY_ASSIGNMENTS: "deny assignments",
    Endpoint.HEALTH_EVENTS: "health events",
}


# ------------------------------------------------------------------------------------------------
# queries


@dataclass(frozen=True, slots=True)
class RoleAssignmentQuery:
    """An accepted role-assignment filter (seed 4.2)."""

    at_scope: bool = False
    principal_id: str | None = None
    assigned_to: str | None = None

    @property
    def reach(self) -> Reach:
        return Reach.AT_OR_ABOVE if self.at_scope else Reach.AT_ABOVE_AND_BELOW

    @property
    def principal(self) -> str | None:
        """The principal the list is limited to, if any."""
        return self.principal_id or self.assigned_to

    @property
    def include_groups(self) -> bool:
        """Whether assignments to the principal's groups count (``assignedTo``)."""
        return self.assigned_to is not None


@dataclass(frozen=True, slots=True)
class DenyAssignmentQuery:
    """An accepted deny-assignment filter (seed 4.1)."""

    at_scope: bool = False
    deny_assignment_name: str | None = None
    principal_id: str | None = None
    gdpr_export_principal_id: str | None = None

    @property
    def reach(self) -> Reach:
        if self.at_scope:
            return Reach.AT_OR_ABOVE
        if self.deny_assignment_name is not None:
            return Reach.AT
        return Reach.AT_ABOVE_AND_BELOW

    @property
    def principal(self) -> str | None:
        """The principal the list is limited to, if any."""
        return self.principal_id or self.gdpr_export_principal_id

    @property
    def include_excluded(self) -> bool:
        """Whether assignments that exclude the principal are returned too (GDPR export)."""
        return self.gdpr_export_principal_id is not None

    @property
    def names_only(self) -> bool:
        """Whether only id, name, type, denyAssignmentName and description are returned."""
        return self.gdpr_export_principal_id is not None


def _match_everything(record: Any) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class HealthEventQuery:
    """An accepted health-event filter (seed 4.5, 4.6): ``matches(event)`` tells whether to list it."""

    filter: Expr | None = None
    predicate: Callable[[Any], bool] = field(default=_match_everything, compare=False, repr=False)

    def matches(self, event: Any) -> bool:
        return self.predicate(event)


EndpointQuery: TypeAlias = RoleAssignmentQuery | DenyAssignmentQuery | HealthEventQuery


# ------------------------------------------------------------------------------------------------
# errors


class EndpointFilterError(InputError):
    """A filter that parses but is not one the endpoint accepts.

    ``summary`` is the one-line message (for an HTTP ErrorResponse); ``str()`` adds the filter with a
    caret under ``column``.
    """

    def __init__(self, endpoint: Endpoint, problem: str, *, text: str, pos: int) -> None:
        self.endpoint = endpoint
        self.problem = problem
        self.text = text
        self.pos = max(pos, 0)
        self.line, self.column = line_column(text, self.pos)
        self.accepted = ACCEPTED_FORMS[endpoint]
        where = (
            f"column {self.column}" if self.line == 1 else f"line {self.line}, column {self.column}"
        )
        self.summary = (
            f"unsupported $filter for {_LABELS[endpoint]} at {where}: {problem}; "
            f"accepted forms: {', '.join(self.accepted)} (or no filter)"
        )
        lines = text.splitlines() or [""]
        source = lines[self.line - 1] if self.line <= len(lines) else ""
        caret = "".join("\t" if ch == "\t" else " " for ch in source[: self.column - 1]) + "^"
        super().__init__(f"{self.summary}\n  {source}\n  {caret}")


# ------------------------------------------------------------------------------------------------
# entry point


@overload
def parse_endpoint_filter(
    endpoint: Literal[Endpoint.ROLE_ASSIGNMENTS, "role-assignments"], text: str | None
) -> RoleAssignmentQuery: ...
@overload
def parse_endpoint_filter(
    endpoint: Literal[Endpoint.DENY_ASSIGNMENTS, "deny-assignments"], text: str | None
) -> DenyAssignmentQuery: ...
@overload
def parse_endpoint_filter(
    endpoint: Literal[Endpoint.HEALTH_EVENTS, "health-events"], text: str | None
) -> HealthEventQuery: ...
@overload
def parse_endpoint_filter(endpoint: Endpoint | str, text: str | None) -> EndpointQuery: ...


def parse_endpoint_filter(endpoint: Endpoint | str, text: str | None) -> EndpointQuery:
    """The typed query for ``$filter=text`` on ``endpoint`` (``None`` or blank: no filter).

    Raises :class:`~auditor.expr.errors.FilterSyntaxError` for text that does not parse and
    :class:`EndpointFilterError` for a filter the endpoint does not accept.
    """
    kind = endpoint_kind(endpoint)
    if text is None or not text.strip():
        return _DEFAULTS[kind]
    node = parse_cached(text)
    if kind is Endpoint.ROLE_ASSIGNMENTS:
        return _role_assignments(node, text)
    if kind is Endpoint.DENY_ASSIGNMENTS:
        return _deny_assignments(node, text)
    _check_event_predicate(node, text)
    return HealthEventQuery(node, compile_filter(node))


_DEFAULTS: dict[Endpoint, EndpointQuery] = {
    Endpoint.ROLE_ASSIGNMENTS: RoleAssignmentQuery(),
    Endpoint.DENY_ASSIGNMENTS: DenyAssignmentQuery(),
    Endpoint.HEALTH_EVENTS: HealthEventQuery(),
}

_ALIASES = {
    "roleassignments": Endpoint.ROLE_ASSIGNMENTS,
    "denyassignments": Endpoint.DENY_ASSIGNMENTS,
    "healthevents": Endpoint.HEALTH_EVENTS,
    "events": Endpoint.HEALTH_EVENTS,
}


def endpoint_kind(endpoint: Endpoint | str) -> Endpoint:
    """``endpoint`` as an :class:`Endpoint` (``"roleAssignments"``, ``"role-assignments"``... work)."""
    if isinstance(endpoint, Endpoint):
        return endpoint
    key = str(endpoint).lower().replace("-", "").replace("_", "").replace(" ", "")
    found = _ALIASES.get(key)
    if found is None:
        known = ", ".join(kind.value for kind in Endpoint)
        raise InputError(f"no list endpoint takes a $filter for {endpoint!r}; known: {known}")
    return found


# ------------------------------------------------------------------------------------------------
# shapes


def _role_assignments(node: Expr, text: str) -> RoleAssignmentQuery:
    fail = _failer(Endpoint.ROLE_ASSIGNMENTS, text)
    if _is_call(node, "atScope"):
        return RoleAssignmentQuery(at_scope=True)
    if _is_call(node, "assignedTo"):
        return RoleAssignmentQuery(assigned_to=_argument(node, fail))
    if isinstance(node, Compare):
        return RoleAssignmentQuery(principal_id=_equality(node, ("principalId",), fail)[1])
    if isinstance(node, And):
        first, second, *rest = node.operands
        combined = "only atScope() and assignedTo('{id}') may be combined, in that order"
        if not _is_call(first, "atScope"):
            fail(_start(first), combined)
        if not _is_call(second, "assignedTo"):
            fail(_start(second), combined)
        if rest:
            fail(_start(rest[0]), combined)
        return RoleAssignmentQuery(at_scope=True, assigned_to=_argument(second, fail))
    fail(node, _not_accepted(node))


def _deny_assignments(node: Expr, text: str) -> DenyAssignmentQuery:
    fail = _failer(Endpoint.DENY_ASSIGNMENTS, text)
    if _is_call(node, "atScope"):
        return DenyAssignmentQuery(at_scope=True)
    if isinstance(node, Compare):
        name, value = _equality(
            node, ("denyAssignmentName", "principalId", "gdprExportPrincipalId"), fail
        )
        if name == "denyAssignmentName":
            return DenyAssignmentQuery(deny_assignment_name=value)
        if name == "principalId":
            return DenyAssignmentQuery(principal_id=value)
        return DenyAssignmentQuery(gdpr_export_principal_id=value)
    fail(node, _not_accepted(node))


def _check_event_predicate(node: Expr, text: str) -> None:
    fail = _failer(Endpoint.HEALTH_EVENTS, text)
    stack: list[Expr] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, And | Or):
            stack.extend(current.operands)
        elif isinstance(current, Compare):
            if current.op != "eq":
                fail(current, f"'{current.op}' is not accepted, only 'eq'")
            if not isinstance(current.left, Member):
                fail(
                    current.left,
                    "the left of 'eq' must be an event field such as properties/eventType",
                )
            if not _is_literal(current.right):
                fail(current.right, "the right of 'eq' must be a value such as 'ServiceIssue'")
        else:
            fail(current, _not_accepted(current))


# ------------------------------------------------------------------------------------------------
# helpers

_Fail: TypeAlias = Callable[[Expr, str], NoReturn]


def _failer(endpoint: Endpoint, text: str) -> _Fail:
    def fail(node: Expr, problem: str) -> NoReturn:
        raise EndpointFilterError(endpoint, problem, text=text, pos=node.pos)

    return fail


def _start(node: Expr) -> Expr:
    """The leftmost node of ``node`` (where its text starts)."""
    while isinstance(node, Compare | And | Or | In):
        node = (
            node.left
            if isinstance(node, Compare)
            else (node.operand if isinstance(node, In) else node.operands[0])
        )
    return node


def _is_call(node: Expr, name: str) -> bool:
    return isinstance(node, Call) and node.name == name


def _is_literal(node: Expr) -> bool:
    return isinstance(node, LITERAL_TYPES)


def _argument(node: Expr, fail: _Fail) -> str:
    assert isinstance(node, Call)
    argument = node.args[0]
    value = argument.value if isinstance(argument, StringLit | GuidLit) else ""
    if not value.strip():
        fail(argument, "the principal id is empty")
    return value


def _equality(node: Compare, names: tuple[str, ...], fail: _Fail) -> tuple[str, str]:
    """``name eq 'value'`` for one of ``names`` (case-insensitive): the canonical name and value."""
    left = node.left
    spelled = "/".join(left.path) if isinstance(left, Member) else ""
    name = next((n for n in names if n.lower() == spelled.lower()), None)
    if name is None:
        what = f"{spelled!r}" if spelled else "this"
        fail(left, f"{what} cannot be filtered on here")
    if node.op != "eq":
        fail(node, f"'{node.op}' is not accepted, only '{name} eq'")
    right = node.right
    if not isinstance(right, StringLit | GuidLit):
        fail(right, f"{name} is compared with a value in quotes")
    if not right.value.strip():
        fail(right, f"the {name} value is empty")
    return name, right.value


def _not_accepted(node: Expr) -> str:
    if isinstance(node, Or):
        return "'or' is not accepted here"
    if isinstance(node, And):
        return "'and' is not accepted here"
    if isinstance(node, Not):
        return "'not' is not accepted"
    if isinstance(node, In):
        return "'in' is not accepted"
    if isinstance(node, Lambda):
        return f"{node.op}() is not accepted"
    if isinstance(node, Call):
        return f"{node.name}() is not accepted here"
    if isinstance(node, Member):
        return "a bare member is not accepted; compare it with eq"
    if not is_condition(node):  # pragma: no cover - the parser refuses non-conditions
        return "this is not a condition"
    return "this is not accepted"
