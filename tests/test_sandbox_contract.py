"""Contract tests of the sandbox's read side over a real socket: authentication, api-version,
filters (semantics 3) and paging (semantics 4) of seed 4.1, 4.2, 4.5 and 4.6, error shapes (seed 7),
the access engine's 403, the OpenAPI document and the explorer page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import msgspec
import pytest

from auditor.estate.snapshot import loads_snapshot
from auditor.model.defaults import SEED_API_VERSIONS
from auditor.sandbox import SandboxConfig, SandboxServer
from auditor.sandbox.config import DEFAULT_PAGE_SIZE
from tests.test_sandbox_helpers import (
    BEARER_TOKENS,
    GROUP,
    MG,
    MG_OTHER,
    OTHER,
    READER_ROLE,
    RG1,
    S1,
    S2,
    USER,
    VM1,
    deny_assignment,
    estate_json,
    health_event,
    names,
    role_assignment,
    sandbox,
)

V_ACCESS = SEED_API_VERSIONS["roleAssignments.list"]
V_EVENTS = SEED_API_VERSIONS["healthEvents.list"]
RA = "/providers/Cloud.Authorization/roleAssignments"
DA = "/providers/Cloud.Authorization/denyAssignments"
EV = "/providers/Cloud.ResourceHealth/events"


@pytest.fixture(scope="module")
def server() -> Iterator[SandboxServer]:
    with sandbox() as s:
        yield s


def client(server: SandboxServer, token: str | None = "t-sandbox-reader") -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=server.url, headers=headers, timeout=10)


def get(
    server: SandboxServer, path: str, token: str | None = "t-sandbox-reader", **params: str
) -> httpx.Response:
    with client(server, token) as c:
        return c.get(path, params=params)


def all_pages(
    server: SandboxServer, path: str, **params: str
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every item of a paged list, and the nextLinks followed."""
    items: list[dict[str, Any]] = []
    links: list[str] = []
    with client(server) as c:
        response = c.get(path, params=params)
        while True:
            assert response.status_code == 200, response.text
            body = response.json()
            items.extend(body["value"])
            link = body.get("nextLink")
            if not link:
                return items, links
            links.append(link)
            response = c.get(link)


# --- authentication, api-version, routing ------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "version"),
    [
        (S1 + DA, V_ACCESS),
        (S1 + RA, V_ACCESS),
        (RA, V_ACCESS),
        (
            RG1 + "/providers/Cloud.AnalyticsCluster/clusters/x",
            SEED_API_VERSIONS["clusters.create"],
        ),
        (
            RG1 + "/providers/Cloud.EventRouting/domains/x",
            SEED_API_VERSIONS["domains.createOrUpdate"],
        ),
    ],
)
def test_401_without_or_with_unknown_bearer_areas_a_to_c(
    server: SandboxServer, path: str, version: str
) -> None:
    for token in (None, "nope"):
        r = get(server, path, token, **{"api-version": version})
        assert r.status_code == 401
        assert r.headers["www-authenticate"].startswith("Bearer")
        error = r.json()["error"]
        assert error["code"] in ("AuthenticationFailed", "InvalidAuthenticationToken")
        assert "nope" not in r.text
    with httpx.Client(base_url=server.url) as c:
        r = c.get(path, params={"api-version": version}, headers={"Authorization": "Basic abc"})
    assert r.status_code == 401


def test_401_area_d_uses_its_flat_error_shape(server: SandboxServer) -> None:
    r = get(server, S1 + EV, None, **{"api-version": V_EVENTS})
    assert r.status_code == 401
    body = r.json()
    assert set(body) == {"code", "message", "details"}
    assert isinstance(body["details"], str)


@pytest.mark.parametrize(
    ("path", "version", "area_d"),
    [
        (S1 + DA, V_ACCESS, False),
        (S1 + RA, V_ACCESS, False),
        (
            RG1 + "/providers/Cloud.AnalyticsCluster/clusters",
            SEED_API_VERSIONS["clusters.create"],
            False,
        ),
        (
            RG1 + "/providers/Cloud.EventRouting/domains",
            SEED_API_VERSIONS["domains.createOrUpdate"],
            False,
        ),
        (S1 + EV, V_EVENTS, True),
        (VM1 + EV, V_EVENTS, True),
    ],
)
def test_api_version_is_required_and_exact(
    server: SandboxServer, path: str, version: str, area_d: bool
) -> None:
    missing = get(server, path)
    wrong = get(server, path, **{"api-version": "2020-01-01"})
    right = get(server, path, **{"api-version": version})
    assert right.status_code == 200
    for response, code in (
        (missing, "MissingApiVersionParameter"),
        (wrong, "InvalidApiVersionParameter"),
    ):
        assert response.status_code == 400
        body = response.json()
        assert (body["code"] if area_d else body["error"]["code"]) == code


def test_api_version_of_another_operation_is_refused(server: SandboxServer) -> None:
    r = get(server, S1 + EV, **{"api-version": V_ACCESS})
    assert r.status_code == 400 and r.json()["code"] == "InvalidApiVersionParameter"


def test_unknown_path_404_and_wrong_method_405(server: SandboxServer) -> None:
    r = get(server, "/nothing/here")
    assert r.status_code == 404 and r.json()["error"]["code"] == "NotFound"
    with client(server) as c:
        r = c.post(S1 + RA, params={"api-version": V_ACCESS}, json={})
    assert r.status_code == 405
    assert r.headers["allow"] == "GET"
    assert r.json()["error"]["code"] == "MethodNotAllowed"


def test_paths_are_case_insensitive(server: SandboxServer) -> None:
    r = get(
        server,
        S1.upper().replace("SUBSCRIPTIONS", "subscriptions") + RA.lower(),
        **{"api-version": V_ACCESS},
    )
    assert r.status_code == 200
    assert len(r.json()["value"]) == 5


# --- 4.2 role assignments ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scope", "flt", "expected"),
    [
        (S1, None, ["ra-mg", "ra-rg1", "ra-root", "ra-sub1", "ra-vm1"]),
        (S1, "atScope()", ["ra-mg", "ra-root", "ra-sub1"]),
        (S1, f"principalId eq '{USER}'", ["ra-sub1", "ra-vm1"]),
        (S1, f"assignedTo('{USER}')", ["ra-mg", "ra-sub1", "ra-vm1"]),
        (S1, f"atScope() and assignedTo('{USER}')", ["ra-mg", "ra-sub1"]),
        (RG1, None, ["ra-mg", "ra-rg1", "ra-root", "ra-sub1", "ra-vm1"]),
        (RG1, "atScope()", ["ra-mg", "ra-rg1", "ra-root", "ra-sub1"]),
        (VM1, "atScope()", ["ra-mg", "ra-rg1", "ra-root", "ra-sub1", "ra-vm1"]),
        (S2, None, ["ra-outer", "ra-root", "ra-sub2"]),
        (S2, f"assignedTo('{USER}')", ["ra-outer"]),
        (MG, None, ["ra-mg", "ra-rg1", "ra-root", "ra-sub1", "ra-vm1"]),
        (MG, "atScope()", ["ra-mg", "ra-root"]),
        (MG_OTHER, None, ["ra-mg-empty", "ra-root"]),
    ],
)
def test_role_assignment_filters_at_a_scope(
    server: SandboxServer, scope: str, flt: str | None, expected: list[str]
) -> None:
    params = {"api-version": V_ACCESS}
    if flt is not None:
        params["$filter"] = flt
    r = get(server, scope + RA, **params)
    assert r.status_code == 200, r.text
    body = r.json()
    assert names(body) == expected
    assert "nextLink" not in body  # a call at a scope is not paged (seed 8: $skipToken)


def test_role_assignments_provider_level_pages_with_absolute_next_links(
    server: SandboxServer,
) -> None:
    items, links = all_pages(
        server, RA, **{"api-version": V_ACCESS, "$filter": f"principalId eq '{OTHER}'"}
    )
    assert sorted(i["name"] for i in items) == ["ra-mg-empty", "ra-rg1", "ra-sub2"]
    assert len(links) == 1
    link = urlsplit(links[0])
    assert f"{link.scheme}://{link.netloc}" == server.url
    assert link.path == RA
    query = parse_qs(link.query)
    assert query["api-version"] == [V_ACCESS]
    assert query["$filter"] == [f"principalId eq '{OTHER}'"]
    assert len(query["$skipToken"]) == 1


def test_role_assignments_provider_level_returns_everything_once(server: SandboxServer) -> None:
    items, links = all_pages(server, RA, **{"api-version": V_ACCESS})
    assert len(items) == 8 and len({i["id"] for i in items}) == 8
    assert len(links) == 3  # page size 2
    items, _ = all_pages(
        server, RA, **{"api-version": V_ACCESS, "$filter": f"assignedTo('{USER}')"}
    )
    assert sorted(i["name"] for i in items) == ["ra-mg", "ra-outer", "ra-sub1", "ra-vm1"]


def test_skip_token_below_provider_level_is_a_400(server: SandboxServer) -> None:
    r = get(server, S1 + RA, **{"api-version": V_ACCESS, "$skipToken": "abc"})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "UnsupportedQueryParameter" and error["target"] == "$skipToken"


def test_foreign_or_forged_skip_token_is_a_400(server: SandboxServer) -> None:
    _, links = all_pages(server, RA, **{"api-version": V_ACCESS})
    token = parse_qs(urlsplit(links[0]).query)["$skipToken"][0]
    r = get(server, RA, **{"api-version": V_ACCESS, "$filter": "atScope()", "$skipToken": token})
    assert r.status_code == 400 and r.json()["error"]["code"] == "InvalidSkipToken"
    r = get(server, RA, **{"api-version": V_ACCESS, "$skipToken": "not a token!"})
    assert r.status_code == 400


def test_filter_errors_are_400_naming_a_column(server: SandboxServer) -> None:
    r = get(server, S1 + RA, **{"api-version": V_ACCESS, "$filter": "principalId eq"})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "InvalidFilter" and error["target"] == "$filter"
    assert re.search(r"column \d+", error["message"])
    r = get(server, S1 + RA, **{"api-version": V_ACCESS, "$filter": "denyAssignmentName eq 'x'"})
    assert r.status_code == 400


@pytest.mark.parametrize(
    "query",
    [
        f"api-version={V_ACCESS}&$filter=principalId eq '{USER}'",
        f"api-version={V_ACCESS}&%24filter=principalId%20eq%20%27{USER}%27",
        f"api-version={V_ACCESS}&$filter=principalId+eq+%27{USER}%27",
        f"api-version={V_ACCESS}&$filter=assignedTo%28%27{USER}%27%29",
        f"api-version={V_ACCESS}&$filter=assignedTo('{USER}')",
    ],
)
def test_query_strings_decoded_exactly_once(server: SandboxServer, query: str) -> None:
    with client(server) as c:
        r = c.get(f"{server.url}{S1}{RA}?{query}")
    assert r.status_code == 200, r.text
    assert {"ra-sub1", "ra-vm1"} <= set(names(r.json()))


def test_double_encoded_filter_is_not_decoded_twice(server: SandboxServer) -> None:
    with client(server) as c:
        r = c.get(f"{server.url}{S1}{RA}?api-version={V_ACCESS}&$filter=atScope%2528%2529")
    assert r.status_code == 400


def test_tenant_id(server: SandboxServer) -> None:
    from tests.test_sandbox_helpers import TENANT

    own = get(server, S1 + RA, **{"api-version": V_ACCESS, "tenantId": TENANT})
    assert len(own.json()["value"]) == 5
    other = get(
        server,
        S1 + RA,
        **{"api-version": V_ACCESS, "tenantId": "12345678-1234-4234-8234-123456789012"},
    )
    assert other.status_code == 200 and other.json() == {"value": []}
    bad = get(server, S1 + RA, **{"api-version": V_ACCESS, "tenantId": "not-a-guid"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "InvalidTenantId"


def test_invalid_scope_is_a_400(server: SandboxServer) -> None:
    r = get(server, "/foo/bar" + RA, **{"api-version": V_ACCESS})
    assert r.status_code == 400 and r.json()["error"]["code"] == "InvalidScope"


def test_duplicate_parameter_is_a_400(server: SandboxServer) -> None:
    with client(server) as c:
        r = c.get(f"{server.url}{S1}{RA}?api-version={V_ACCESS}&api-version={V_ACCESS}")
    assert r.status_code == 400 and r.json()["error"]["code"] == "InvalidQueryParameter"


# --- 4.1 deny assignments ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        (None, ["da-all", "da-other", "da-root"]),
        ("atScope()", ["da-all", "da-root"]),
        ("denyAssignmentName eq 'Deny writes'", ["da-all"]),
        ("denyAssignmentName eq 'da-other'", []),
        (f"principalId eq '{USER}'", []),
        (f"principalId eq '{OTHER}'", ["da-all", "da-other", "da-root"]),
    ],
)
def test_deny_assignment_filters(
    server: SandboxServer, flt: str | None, expected: list[str]
) -> None:
    params = {"api-version": V_ACCESS}
    if flt is not None:
        params["$filter"] = flt
    items, _ = all_pages(server, S1 + DA, **params)
    assert sorted(i["name"] for i in items) == expected


def test_deny_gdpr_export_returns_names_and_excluded_only(server: SandboxServer) -> None:
    items, _ = all_pages(
        server,
        S1 + DA,
        **{"api-version": V_ACCESS, "$filter": f"gdprExportPrincipalId eq '{USER}'"},
    )
    assert items == [
        {
            "id": f"{S1}/providers/Cloud.Authorization/denyAssignments/da-all",
            "name": "da-all",
            "type": "Cloud.Authorization/denyAssignments",
            "properties": {"denyAssignmentName": "Deny writes", "description": "about da-all"},
        }
    ]


def test_deny_principal_filter_and_paging_of_other_subscription(server: SandboxServer) -> None:
    items, links = all_pages(server, S2 + DA, **{"api-version": V_ACCESS})
    assert sorted(i["name"] for i in items) == ["da-group", "da-root"] and links == []
    items, _ = all_pages(
        server, S2 + DA, **{"api-version": V_ACCESS, "$filter": f"principalId eq '{GROUP}'"}
    )
    assert [i["name"] for i in items] == ["da-group"]


def test_deny_paging_next_link_keeps_the_query(server: SandboxServer) -> None:
    items, links = all_pages(
        server, S1 + DA, **{"api-version": V_ACCESS, "$filter": f"principalId eq '{OTHER}'"}
    )
    assert len(items) == 3 and len(links) == 1
    query = parse_qs(urlsplit(links[0]).query)
    assert query["$filter"] == [f"principalId eq '{OTHER}'"]


# deny assignments at resource-group and resource scopes (the real API lists them at any of
# these scopes, like role assignments): da-all at S1, da-other at RG1, da-group at S2, da-root at /


@pytest.mark.parametrize(
    ("scope", "flt", "expected"),
    [
        (RG1, None, ["da-all", "da-other", "da-root"]),  # at, above and below
        (RG1, "atScope()", ["da-all", "da-other", "da-root"]),  # at or above
        (RG1, "denyAssignmentName eq 'da-other'", ["da-other"]),  # at the scope only
        (RG1, "denyAssignmentName eq 'Deny writes'", []),  # da-all lies above rg1
        (RG1, f"principalId eq '{USER}'", []),  # excluded from da-all
        (RG1, f"principalId eq '{OTHER}'", ["da-all", "da-other", "da-root"]),
        (RG1, f"gdprExportPrincipalId eq '{USER}'", ["da-all"]),
        (VM1, None, ["da-all", "da-other", "da-root"]),
        (VM1, "atScope()", ["da-all", "da-other", "da-root"]),
        (VM1, "denyAssignmentName eq 'da-other'", []),
        (f"{S2}/resourceGroups/rg2", None, ["da-group", "da-root"]),
        (f"{S2}/resourceGroups/rg2", f"principalId eq '{GROUP}'", ["da-group"]),
    ],
)
def test_deny_assignments_at_resource_group_and_resource_scopes(
    server: SandboxServer, scope: str, flt: str | None, expected: list[str]
) -> None:
    params = {"api-version": V_ACCESS}
    if flt is not None:
        params["$filter"] = flt
    items, _ = all_pages(server, scope + DA, **params)
    assert sorted(i["name"] for i in items) == expected


def test_deny_assignments_page_below_the_subscription(server: SandboxServer) -> None:
    # page size 2: three deny assignments concern rg1; $skipToken works at every deny scope
    items, links = all_pages(server, RG1 + DA, **{"api-version": V_ACCESS, "$filter": "atScope()"})
    assert len(links) == 1 and len({i["id"] for i in items}) == 3
    link = urlsplit(links[0])
    assert link.path == RG1 + DA
    assert parse_qs(link.query)["$filter"] == ["atScope()"]


def test_deny_assignment_read_permission_at_a_resource_group(server: SandboxServer) -> None:
    # OTHER is Reader at rg1 only: reads deny assignments there and on its resources, not above
    assert get(server, RG1 + DA, "t-other", **{"api-version": V_ACCESS}).status_code == 200
    assert get(server, VM1 + DA, "t-other", **{"api-version": V_ACCESS}).status_code == 200
    assert get(server, S1 + DA, "t-other", **{"api-version": V_ACCESS}).status_code == 403
    assert get(server, RG1 + DA, "t-nobody", **{"api-version": V_ACCESS}).status_code == 403


@pytest.mark.parametrize("scope", ["", MG, "/foo/bar", f"{S1}/resourceGroups"])
def test_deny_assignments_elsewhere_are_a_400_naming_the_scopes(
    server: SandboxServer, scope: str
) -> None:
    r = get(server, scope + DA, **{"api-version": V_ACCESS})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "InvalidScope" and error["target"] == "scope"
    assert "a subscription, a resource group or a resource" in error["message"]


# --- the default page size ---------------------------------------------------------------------


def test_long_listings_page_by_default() -> None:
    """Without ``--page-size``, a listing longer than 200 pages with nextLink, and following the
    links gives every item exactly once, in order (4.1 at a resource group, provider-level 4.2,
    4.5). A 4.2 call at a scope still answers in one page (seed 8)."""
    data = estate_json()
    data["roleAssignments"] += [
        role_assignment(f"bulk-{i:03d}", RG1, READER_ROLE, OTHER) for i in range(450)
    ]
    data["denyAssignments"] += [
        deny_assignment(f"bulk-da-{i:03d}", RG1, [(OTHER, "User")]) for i in range(230)
    ]
    data["healthEvents"] += [
        health_event(S1, f"BULK{i:03d}", "ServiceIssue", "2024-05-02T10:00:00Z") for i in range(205)
    ]
    snapshot = loads_snapshot(msgspec.json.encode(data), source="test estate")
    config = SandboxConfig(bearer_tokens=dict(BEARER_TOKENS), reader_token="t-sandbox-reader")
    assert config.page_size == DEFAULT_PAGE_SIZE == 200
    with SandboxServer(snapshot, config) as big:
        cases = [
            (RA, {"api-version": V_ACCESS}, 458, 2),
            (RG1 + DA, {"api-version": V_ACCESS}, 233, 1),
            (S1 + EV, {"api-version": V_EVENTS}, 209, 1),
        ]
        for path, params, count, links_expected in cases:
            items, links = all_pages(big, path, **params)
            ids = [i["id"] for i in items]
            assert len(ids) == count and len(set(ids)) == count, path
            assert len(links) == links_expected, path
            first = get(big, path, **params).json()
            assert len(first["value"]) == 200 and first["nextLink"] == links[0]
        at_scope = get(big, RG1 + RA, **{"api-version": V_ACCESS}).json()
        assert "nextLink" not in at_scope and len(at_scope["value"]) > 450


# --- 4.5 / 4.6 health events -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, ["EV1", "EV2", "EV3", "EV4"]),
        (
            {
                "$filter": "properties/eventType eq 'ServiceIssue' or properties/eventType eq 'SecurityAdvisory'"
            },
            ["EV1", "EV2"],
        ),
        ({"$filter": "properties/impact/impactedService eq 'Storage'"}, ["EV2", "EV4"]),
        ({"queryStartTime": "5/1/2024"}, ["EV1", "EV3", "EV4"]),
        (
            {"queryStartTime": "5/2/2024", "$filter": "properties/eventType eq 'ServiceIssue'"},
            ["EV1"],
        ),
    ],
)
def test_subscription_events(
    server: SandboxServer, params: dict[str, str], expected: list[str]
) -> None:
    items, _ = all_pages(server, S1 + EV, **{"api-version": V_EVENTS, **params})
    assert sorted(i["name"] for i in items) == expected


def test_query_start_time_with_encoded_slashes(server: SandboxServer) -> None:
    with client(server) as c:
        r = c.get(f"{server.url}{S1}{EV}?api-version={V_EVENTS}&queryStartTime=5%2F1%2F2024")
        assert r.status_code == 200
        first = r.json()
        assert (
            "$skipToken" in first["nextLink"] and "queryStartTime=5%2F1%2F2024" in first["nextLink"]
        )
        r2 = c.get(first["nextLink"])
        assert sorted(i["name"] for i in first["value"] + r2.json()["value"]) == [
            "EV1",
            "EV3",
            "EV4",
        ]
        double = c.get(
            f"{server.url}{S1}{EV}?api-version={V_EVENTS}&queryStartTime=5%252F1%252F2024"
        )
    assert double.status_code == 400
    assert double.json()["code"] == "InvalidQueryStartTime"


def test_resource_events_and_their_limits(server: SandboxServer) -> None:
    r = get(server, VM1 + EV, **{"api-version": V_EVENTS})
    assert r.status_code == 200 and names(r.json()) == ["EV3"]
    r = get(server, VM1 + EV, **{"api-version": V_EVENTS, "queryStartTime": "1/1/2024"})
    assert r.status_code == 400 and r.json()["code"] == "InvalidQueryParameter"
    r = get(server, RG1 + EV, **{"api-version": V_EVENTS})
    assert r.status_code == 404 and set(r.json()) == {"code", "message", "details"}


def test_event_filter_error_uses_area_d_shape(server: SandboxServer) -> None:
    r = get(server, S1 + EV, **{"api-version": V_EVENTS, "$filter": "properties/eventType eq"})
    assert r.status_code == 400
    assert r.json()["code"] == "InvalidFilter"


# --- 403 from the access engine (seed 5.1) -----------------------------------------------------


def test_read_permission_enforced_by_the_access_engine(server: SandboxServer) -> None:
    nobody = get(server, S1 + RA, "t-nobody", **{"api-version": V_ACCESS})
    assert nobody.status_code == 403
    error = nobody.json()["error"]
    assert error["code"] == "AuthorizationFailed"
    assert "Cloud.Authorization/roleAssignments/read" in error["message"]
    assert get(server, S1 + DA, "t-nobody", **{"api-version": V_ACCESS}).status_code == 403
    # OTHER reads at rg1 only (Reader there), not at the subscription
    assert get(server, RG1 + RA, "t-other", **{"api-version": V_ACCESS}).status_code == 200
    assert get(server, S1 + RA, "t-other", **{"api-version": V_ACCESS}).status_code == 403
    # the owner of sub1 reads there; the Reader at / reads everywhere
    assert get(server, S1 + RA, "t-user", **{"api-version": V_ACCESS}).status_code == 200
    assert get(server, S2 + DA, "t-reader", **{"api-version": V_ACCESS}).status_code == 200
    # 4.5 states no permission: any authenticated caller
    assert get(server, S1 + EV, "t-nobody", **{"api-version": V_EVENTS}).status_code == 200


# --- OpenAPI and explorer ----------------------------------------------------------------------


def test_openapi_document_lists_every_endpoint(server: SandboxServer) -> None:
    r = httpx.get(server.url + "/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    assert doc["openapi"].startswith("3.")
    ops = {(m.upper(), p) for p, item in doc["paths"].items() for m in item}
    deny = "/providers/Cloud.Authorization/denyAssignments"
    sub = "/subscriptions/{subscriptionId}"
    rg = sub + "/resourceGroups/{resourceGroupName}"
    resource = rg + "/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}"
    assert {("GET", scope + deny) for scope in (sub, rg, resource)} <= ops
    assert ("GET", "/providers/Cloud.Authorization/roleAssignments") in ops
    assert ("DELETE", "/v0.1/apps/{owner_name}/{app_name}/users/{user_email}") in ops
    assert ("POST", "/v0.1/api_tokens") in ops
    assert {"bearer", "APIToken"} <= set(doc["components"]["securitySchemes"])


def test_explorer_page_works_offline(server: SandboxServer) -> None:
    r = httpx.get(server.url + "/docs")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    page = r.text
    assert "Authorize" in page and "APIToken" in page and "/openapi.json" in page
    assert "https://" not in page and "http://" not in page  # no assets from the internet
    assert "localStorage" not in page


def test_unknown_query_parameters_are_refused(server: SandboxServer) -> None:
    r = get(server, S1 + RA, **{"api-version": V_ACCESS, "$fitler": "atScope()"})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "InvalidQueryParameter" and error["target"] == "$fitler"
    r = get(server, S1 + EV, **{"api-version": V_EVENTS, "$top": "1"})
    assert r.status_code == 400 and r.json()["code"] == "InvalidQueryParameter"
