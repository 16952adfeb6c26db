"""The ``$filter`` forms each list endpoint accepts (seed 4.1, 4.2, 4.5, 4.6; semantics section 3)."""

from __future__ import annotations

import pytest

from auditor.errors import InputError
from auditor.expr.errors import FilterSyntaxError
from auditor.expr.filter import (
    ACCEPTED_FORMS,
    DenyAssignmentQuery,
    Endpoint,
    EndpointFilterError,
    HealthEventQuery,
    Reach,
    RoleAssignmentQuery,
    parse_endpoint_filter,
    parse_filter,
)

P = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"


# --- role assignments (4.2) --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "query"),
    [
        (None, RoleAssignmentQuery()),
        ("", RoleAssignmentQuery()),
        ("   ", RoleAssignmentQuery()),
        ("atScope()", RoleAssignmentQuery(at_scope=True)),
        (f"principalId eq '{P}'", RoleAssignmentQuery(principal_id=P)),
        (f"principalId eq {P.upper()}", RoleAssignmentQuery(principal_id=P)),
        (f"PrincipalId EQ '{P}'", RoleAssignmentQuery(principal_id=P)),
        (f"assignedTo('{P}')", RoleAssignmentQuery(assigned_to=P)),
        (f"atScope() and assignedTo('{P}')", RoleAssignmentQuery(at_scope=True, assigned_to=P)),
        (f"(atScope()) and (assignedTo('{P}'))", RoleAssignmentQuery(at_scope=True, assigned_to=P)),
        ("ATSCOPE() AND ASSIGNEDTO('x')", RoleAssignmentQuery(at_scope=True, assigned_to="x")),
    ],
)
def test_role_assignment_forms(text: str | None, query: RoleAssignmentQuery) -> None:
    assert parse_endpoint_filter("role-assignments", text) == query
    assert parse_endpoint_filter(Endpoint.ROLE_ASSIGNMENTS, text) == query


def test_role_assignment_query_meaning() -> None:
    assert RoleAssignmentQuery().reach is Reach.AT_ABOVE_AND_BELOW
    assert RoleAssignmentQuery(at_scope=True).reach is Reach.AT_OR_ABOVE
    by_principal = RoleAssignmentQuery(principal_id="p")
    assert (by_principal.principal, by_principal.include_groups) == ("p", False)
    assigned = RoleAssignmentQuery(at_scope=True, assigned_to="p")
    assert (assigned.principal, assigned.include_groups, assigned.reach) == (
        "p",
        True,
        Reach.AT_OR_ABOVE,
    )


@pytest.mark.parametrize(
    ("text", "column", "problem"),
    [
        ("atScope() or principalId eq 'p'", 11, "'or' is not accepted"),
        ("principalId eq 'p' and atScope()", 1, "only atScope() and assignedTo"),
        ("assignedTo('p') and atScope()", 1, "only atScope() and assignedTo"),
        ("atScope() and principalId eq 'p'", 15, "only atScope() and assignedTo"),
        ("atScope() and assignedTo('p') and atScope()", 35, "only atScope() and assignedTo"),
        ("principalId ne 'p'", 13, "'ne' is not accepted"),
        ("roleDefinitionId eq 'r'", 1, "'roleDefinitionId' cannot be filtered on here"),
        ("properties/principalId eq 'p'", 1, "cannot be filtered on here"),
        ("principalId eq 5", 16, "compared with a value in quotes"),
        ("principalId eq ''", 16, "is empty"),
        ("'p' eq principalId", 1, "cannot be filtered on here"),
        ("not atScope()", 1, "'not' is not accepted"),
        ("principalId in ('a', 'b')", 13, "'in' is not accepted"),
        ("contains(principalId, 'a')", 1, "contains() is not accepted"),
        ("principalId", 1, "a bare member is not accepted"),
        ("gdprExportPrincipalId eq 'p'", 1, "cannot be filtered on here"),
        ("assignedTo('  ')", 12, "principal id is empty"),
    ],
)
def test_role_assignment_rejections(text: str, column: int, problem: str) -> None:
    with pytest.raises(EndpointFilterError) as info:
        parse_endpoint_filter("role-assignments", text)
    error = info.value
    assert isinstance(error, InputError)
    assert error.column == column
    assert problem in error.problem
    message = str(error)
    assert f"at column {column}" in message
    for form in ACCEPTED_FORMS[Endpoint.ROLE_ASSIGNMENTS]:
        assert form in message
    assert message.splitlines()[1] == f"  {text}"
    assert message.splitlines()[2] == "  " + " " * (column - 1) + "^"
    assert "\n" not in error.summary


# --- deny assignments (4.1) --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "query", "reach"),
    [
        (None, DenyAssignmentQuery(), Reach.AT_ABOVE_AND_BELOW),
        ("atScope()", DenyAssignmentQuery(at_scope=True), Reach.AT_OR_ABOVE),
        (
            "denyAssignmentName eq 'Deny writes'",
            DenyAssignmentQuery(deny_assignment_name="Deny writes"),
            Reach.AT,
        ),
        (f"principalId eq '{P}'", DenyAssignmentQuery(principal_id=P), Reach.AT_ABOVE_AND_BELOW),
        (
            f"gdprExportPrincipalId eq '{P}'",
            DenyAssignmentQuery(gdpr_export_principal_id=P),
            Reach.AT_ABOVE_AND_BELOW,
        ),
        (
            "DENYASSIGNMENTNAME eq 'it''s'",
            DenyAssignmentQuery(deny_assignment_name="it's"),
            Reach.AT,
        ),
    ],
)
def test_deny_assignment_forms(text: str | None, query: DenyAssignmentQuery, reach: Reach) -> None:
    found = parse_endpoint_filter("deny-assignments", text)
    assert found == query
    assert found.reach is reach


def test_gdpr_export_meaning() -> None:
    query = parse_endpoint_filter("deny-assignments", "gdprExportPrincipalId eq 'p'")
    assert (query.principal, query.include_excluded, query.names_only) == ("p", True, True)
    plain = parse_endpoint_filter("deny-assignments", "principalId eq 'p'")
    assert (plain.principal, plain.include_excluded, plain.names_only) == ("p", False, False)


@pytest.mark.parametrize(
    ("text", "column", "problem"),
    [
        ("assignedTo('p')", 1, "assignedTo() is not accepted"),
        ("atScope() and principalId eq 'p'", 11, "'and' is not accepted"),
        ("denyAssignmentName eq 'a' or denyAssignmentName eq 'b'", 27, "'or' is not accepted"),
        ("name eq 'x'", 1, "'name' cannot be filtered on here"),
        ("principalId ge 'p'", 13, "'ge' is not accepted"),
    ],
)
def test_deny_assignment_rejections(text: str, column: int, problem: str) -> None:
    with pytest.raises(EndpointFilterError) as info:
        parse_endpoint_filter("deny-assignments", text)
    assert info.value.column == column
    assert problem in info.value.problem
    for form in ACCEPTED_FORMS[Endpoint.DENY_ASSIGNMENTS]:
        assert form in str(info.value)


# --- health events (4.5, 4.6) ------------------------------------------------------------------------

EVENTS = [
    {"properties": {"eventType": "ServiceIssue", "impact": [{"impactedService": "Storage"}]}},
    {"properties": {"eventType": "SecurityAdvisory", "impact": []}},
    {"properties": {"eventType": "PlannedMaintenance", "impact": [{"impactedService": "SQL"}]}},
]


@pytest.mark.parametrize(
    ("text", "selected"),
    [
        (None, [0, 1, 2]),
        (
            "properties/eventType eq 'ServiceIssue' or properties/eventType eq 'SecurityAdvisory'",
            [0, 1],
        ),
        ("properties/impact/impactedService eq 'SQL'", [2]),
        (
            "(properties/eventType eq 'ServiceIssue' or properties/eventType eq 'PlannedMaintenance')"
            " and properties/impact/impactedService eq 'Storage'",
            [0],
        ),
        ("Properties/EventType EQ 'SecurityAdvisory'", [1]),
        ("properties/missing eq null", [0, 1, 2]),
    ],
)
def test_health_event_predicates(text: str | None, selected: list[int]) -> None:
    for endpoint in ("health-events", Endpoint.HEALTH_EVENTS, "healthEvents", "events"):
        query = parse_endpoint_filter(endpoint, text)
        assert isinstance(query, HealthEventQuery)
        assert [i for i, event in enumerate(EVENTS) if query.matches(event)] == selected
    if text is not None:
        assert parse_endpoint_filter("health-events", text).filter == parse_filter(text)


@pytest.mark.parametrize(
    ("text", "column", "problem"),
    [
        ("properties/eventType ne 'ServiceIssue'", 22, "'ne' is not accepted, only 'eq'"),
        ("properties/priority lt 3", 21, "'lt' is not accepted"),
        ("not (properties/eventType eq 'RCA')", 1, "'not' is not accepted"),
        ("properties/eventType in ('RCA', 'ServiceIssue')", 22, "'in' is not accepted"),
        ("contains(properties/title, 'x')", 1, "contains() is not accepted"),
        ("properties/impact/any(i: i/impactedService eq 'SQL')", 1, "any() is not accepted"),
        ("properties/isHIR", 1, "a bare member is not accepted"),
        ("'RCA' eq properties/eventType", 1, "the left of 'eq' must be an event field"),
        ("properties/eventType eq properties/level", 25, "the right of 'eq' must be a value"),
        ("a eq 'x' or atScope()", 13, "atScope() is not accepted"),
        ("a eq 'x' and\n  b ne 'y'", 5, "'ne' is not accepted"),
    ],
)
def test_health_event_rejections(text: str, column: int, problem: str) -> None:
    with pytest.raises(EndpointFilterError) as info:
        parse_endpoint_filter("health-events", text)
    assert info.value.column == column
    assert problem in info.value.problem
    assert "properties/eventType eq 'ServiceIssue' or" in str(info.value)


def test_rejection_on_a_later_line_names_the_line() -> None:
    with pytest.raises(EndpointFilterError) as info:
        parse_endpoint_filter("health-events", "a eq 'x' and\n  b ne 'y'")
    assert (info.value.line, info.value.column) == (2, 5)
    assert "at line 2, column 5" in info.value.summary


def test_syntax_errors_come_first() -> None:
    with pytest.raises(FilterSyntaxError) as info:
        parse_endpoint_filter("role-assignments", "principalId eq")
    assert info.value.column == 15


def test_unknown_endpoint() -> None:
    with pytest.raises(InputError, match="role-assignments, deny-assignments, health-events"):
        parse_endpoint_filter("clusters", "a eq 1")


def test_accepted_forms_are_written_in_the_filter_language() -> None:
    for endpoint in (Endpoint.ROLE_ASSIGNMENTS, Endpoint.DENY_ASSIGNMENTS):
        for form in ACCEPTED_FORMS[endpoint]:
            example = form.replace("{id}", P).replace("{name}", "n")
            parse_endpoint_filter(endpoint, example)
