"""The sandbox's OpenAPI 3.1 document (served at ``/openapi.json``).

Paths and parameters are written here by hand from seed section 4; the schemas of the bodies come
from the pydantic wire models (:mod:`auditor.model`), so the document and the server cannot drift
apart on field names or types. A path parameter that holds a scope with slashes (seed 4.2, 4.6) is
given as one path per scope form.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from auditor import __version__
from auditor.model.access import DenyAssignmentListResult, RoleAssignmentListResult
from auditor.model.cluster import Cluster, ClusterCreateRequest
from auditor.model.defaults import SEED_API_VERSIONS
from auditor.model.devtooling import DevToolingAppUser, DevToolingUser
from auditor.model.domain import Domain, DomainCreateRequest
from auditor.model.errors import ErrorResponse, HealthErrorResponse
from auditor.model.health import HealthEventListResult

_REF = "#/components/schemas/{model}"

_MODELS: list[tuple[type[BaseModel], JsonSchemaMode]] = [
    (DenyAssignmentListResult, "serialization"),
    (RoleAssignmentListResult, "serialization"),
    (Cluster, "serialization"),
    (ClusterCreateRequest, "validation"),
    (Domain, "serialization"),
    (DomainCreateRequest, "validation"),
    (HealthEventListResult, "serialization"),
    (ErrorResponse, "serialization"),
    (HealthErrorResponse, "serialization"),
    (DevToolingUser, "serialization"),
    (DevToolingAppUser, "serialization"),
]


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _REF.format(model=name)}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _path_param(name: str, description: str = "") -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {"type": "string", "minLength": 1},
    }


def _query(name: str, description: str, *, required: bool = False) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": required,
        "description": description,
        "schema": {"type": "string"},
    }


def _api_version(value: str) -> dict[str, Any]:
    return {
        "name": "api-version",
        "in": "query",
        "required": True,
        "description": "Exactly the value of seed section 9 for this operation.",
        "schema": {"type": "string", "enum": [value]},
    }


_BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
_API_TOKEN: list[dict[str, list[str]]] = [{"APIToken": []}]

_ERRORS = {"default": _json(_ref("ErrorResponse"), "ErrorResponse (seed 7)")}
_HEALTH_ERRORS = {"default": _json(_ref("HealthErrorResponse"), "Area D error (seed 7)")}
_RETRY_AFTER = {"Retry-After": {"schema": {"type": "string"}, "description": "seconds"}}

_FILTER_A = (
    "atScope(); principalId eq '{id}'; assignedTo('{id}'); atScope() and assignedTo('{id}') "
    "(semantics 3)"
)
_FILTER_DENY = (
    "atScope(); denyAssignmentName eq '{name}'; principalId eq '{id}'; "
    "gdprExportPrincipalId eq '{id}' (semantics 3)"
)
_FILTER_EVENTS = "eq / or / and over event fields, e.g. properties/eventType eq 'ServiceIssue'"


def _get(
    operation_id: str,
    summary: str,
    tag: str,
    params: list[dict[str, Any]],
    ok: dict[str, Any],
    errors: dict[str, Any],
    security: list[dict[str, list[str]]],
) -> dict[str, Any]:
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "tags": [tag],
            "parameters": params,
            "security": security,
            "responses": {"200": ok, **errors},
        }
    }


def _role_assignment_paths() -> dict[str, Any]:
    version = _api_version(SEED_API_VERSIONS["roleAssignments.list"])
    common = [version, _query("$filter", _FILTER_A), _query("tenantId", "cross-tenant request")]
    ok = _json(_ref("RoleAssignmentListResult"), "RoleAssignmentListResult")
    forms: list[tuple[str, str, list[dict[str, Any]]]] = [
        ("/providers/Cloud.Authorization/roleAssignments", "Provider level (scope /), paged", []),
        (
            "/providers/Cloud.Management/managementGroups/{managementGroupId}"
            "/providers/Cloud.Authorization/roleAssignments",
            "Scope: a management group",
            [_path_param("managementGroupId")],
        ),
        (
            "/subscriptions/{subscriptionId}/providers/Cloud.Authorization/roleAssignments",
            "Scope: a subscription",
            [_path_param("subscriptionId")],
        ),
        (
            "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}"
            "/providers/Cloud.Authorization/roleAssignments",
            "Scope: a resource group",
            [_path_param("subscriptionId"), _path_param("resourceGroupName")],
        ),
        (
            "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/"
            "{resourceProviderNamespace}/{resourceType}/{resourceName}"
            "/providers/Cloud.Authorization/roleAssignments",
            "Scope: a resource",
            [
                _path_param("subscriptionId"),
                _path_param("resourceGroupName"),
                _path_param("resourceProviderNamespace"),
                _path_param("resourceType"),
                _path_param("resourceName"),
            ],
        ),
    ]
    out: dict[str, Any] = {}
    for i, (path, summary, params) in enumerate(forms):
        extra = [_query("$skipToken", "next page (provider level only)")] if i == 0 else []
        out[path] = _get(
            f"RoleAssignments_List{['Provider', 'ManagementGroup', 'Subscription', 'ResourceGroup', 'Resource'][i]}",
            f"4.2 List role assignments. {summary}.",
            "A. Access control",
            params + common + extra,
            ok,
            _ERRORS,
            _BEARER,
        )
    return out


def _deny_assignment_paths() -> dict[str, Any]:
    """4.1 at each scope the real API lists deny assignments at: subscription (the seed's path),
    resource group, resource; paged at every one."""
    version = _api_version(SEED_API_VERSIONS["denyAssignments.list"])
    common = [version, _query("$filter", _FILTER_DENY), _query("$skipToken", "next page")]
    ok = _json(_ref("DenyAssignmentListResult"), "DenyAssignmentListResult")
    sub = "/subscriptions/{subscriptionId}"
    rg = sub + "/resourceGroups/{resourceGroupName}"
    resource = rg + "/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}"
    forms = [
        ("Subscription", sub, "a subscription", ["subscriptionId"]),
        ("ResourceGroup", rg, "a resource group", ["subscriptionId", "resourceGroupName"]),
        (
            "Resource",
            resource,
            "a resource",
            [
                "subscriptionId",
                "resourceGroupName",
                "resourceProviderNamespace",
                "resourceType",
                "resourceName",
            ],
        ),
    ]
    out: dict[str, Any] = {}
    for stem, path, what, names in forms:
        out[path + "/providers/Cloud.Authorization/denyAssignments"] = _get(
            "DenyAssignments_List" if stem == "Subscription" else f"DenyAssignments_ListFor{stem}",
            f"4.1 List deny assignments. Scope: {what}, paged.",
            "A. Access control",
            [*(_path_param(n) for n in names), *common],
            ok,
            _ERRORS,
            _BEARER,
        )
    return out


def _resource_paths(
    provider: str,
    collection: str,
    param: str,
    version_key: str,
    model: str,
    request: str,
    tag: str,
    put_status: str,
    put_summary: str,
) -> dict[str, Any]:
    version = _api_version(SEED_API_VERSIONS[version_key])
    sub, rg, name = (
        _path_param("subscriptionId"),
        _path_param("resourceGroupName"),
        _path_param(param),
    )
    base = f"/subscriptions/{{subscriptionId}}/resourceGroups/{{resourceGroupName}}/providers/{provider}/{collection}"
    list_schema = {
        "type": "object",
        "required": ["value"],
        "properties": {
            "value": {"type": "array", "items": _ref(model)},
            "nextLink": {"type": "string"},
        },
    }
    item = f"{base}/{{{param}}}"
    put_headers = (
        _RETRY_AFTER | {"Location": {"schema": {"type": "string"}}} if put_status == "200" else {}
    )
    stem = collection[:1].upper() + collection[1:]
    paths: dict[str, Any] = {
        item: {
            "put": {
                "operationId": f"{stem}_Create",
                "summary": put_summary,
                "tags": [tag],
                "parameters": [sub, rg, name, version],
                "security": _BEARER,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref(request)}},
                },
                "responses": {
                    put_status: {**_json(_ref(model), model), "headers": put_headers},
                    **_ERRORS,
                },
            },
            **_get(
                f"{stem}_Get",
                f"Read one of the {collection}",
                tag,
                [sub, rg, name, version],
                _json(_ref(model), model),
                _ERRORS,
                _BEARER,
            ),
        },
        base: _get(
            f"{stem}_ListByResourceGroup",
            f"List the {collection} of a resource group",
            tag,
            [sub, rg, version, _query("$skipToken", "next page")],
            _json(list_schema, "list"),
            _ERRORS,
            _BEARER,
        ),
        f"/subscriptions/{{subscriptionId}}/providers/{provider}/{collection}": _get(
            f"{stem}_List",
            f"List the {collection} of a subscription",
            tag,
            [sub, version, _query("$skipToken", "next page")],
            _json(list_schema, "list"),
            _ERRORS,
            _BEARER,
        ),
    }
    return paths


def _operation_status_path() -> dict[str, Any]:
    status_schema = {
        "type": "object",
        "required": ["status"],
        "properties": {
            "id": {"type": "string"},
            "name": {"type": "string"},
            "status": {"type": "string", "enum": ["InProgress", "Succeeded", "Failed", "Canceled"]},
            "startTime": {"type": "string"},
            "percentComplete": {"type": "number"},
        },
    }
    path = (
        "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/"
        "Cloud.AnalyticsCluster/clusters/{clusterName}/azureasyncoperations/{operationId}"
    )
    op = _get(
        "Clusters_GetOperationStatus",
        "Status of an asynchronous cluster create (the Location of 4.3)",
        "B. Analytics clusters",
        [
            _path_param("subscriptionId"),
            _path_param("resourceGroupName"),
            _path_param("clusterName"),
            _path_param("operationId"),
            _api_version(SEED_API_VERSIONS["clusters.create"]),
        ],
        _json(status_schema, "done"),
        {"202": {**_json(status_schema, "running"), "headers": _RETRY_AFTER}, **_ERRORS},
        _BEARER,
    )
    return {path: op}


def _event_paths() -> dict[str, Any]:
    version = _api_version(SEED_API_VERSIONS["healthEvents.list"])
    ok = _json(_ref("HealthEventListResult"), "events")
    tag = "D. Health events"
    skip = _query("$skipToken", "next page")
    by_sub = _get(
        "Events_ListBySubscriptionId",
        "4.5 List health events of a subscription",
        tag,
        [
            _path_param("subscriptionId"),
            version,
            _query("$filter", _FILTER_EVENTS),
            _query("queryStartTime", "M/D/YYYY; slashes may be URL-encoded"),
            skip,
        ],
        ok,
        _HEALTH_ERRORS,
        _BEARER,
    )
    params = [
        _path_param("subscriptionId"),
        _path_param("resourceGroupName"),
        _path_param("resourceProviderNamespace"),
        _path_param("resourceType"),
        _path_param("resourceName"),
    ]
    by_resource = _get(
        "Events_ListBySingleResource",
        "4.6 List health events of a single resource",
        tag,
        [*params, version, _query("$filter", _FILTER_EVENTS), skip],
        ok,
        _HEALTH_ERRORS,
        _BEARER,
    )
    return {
        "/subscriptions/{subscriptionId}/providers/Cloud.ResourceHealth/events": by_sub,
        "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/"
        "{resourceProviderNamespace}/{resourceType}/{resourceName}"
        "/providers/Cloud.ResourceHealth/events": by_resource,
    }


def _devtooling_paths() -> dict[str, Any]:
    tag = "E. Developer tooling"
    token = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "kind": {"type": "string", "enum": ["user", "app"]},
            "app": {"type": ["string", "null"]},
            "accessType": {"type": "string", "enum": ["full", "readOnly"]},
            "description": {"type": ["string", "null"]},
            "createdAt": {"type": ["string", "null"]},
        },
    }
    created = {
        "allOf": [
            token,
            {"type": "object", "required": ["value"], "properties": {"value": {"type": "string"}}},
        ]
    }
    create_body = {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "description": {"type": "string"},
                        "accessType": {"type": "string", "enum": ["full", "readOnly"]},
                    },
                }
            }
        },
    }
    owner, app = _path_param("owner_name"), _path_param("app_name")
    app_list = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "owner": {"type": ["string", "null"]},
                "ownerType": {"type": ["string", "null"]},
                "name": {"type": ["string", "null"]},
            },
        },
    }

    def tokens_path(prefix: str, params: list[dict[str, Any]], kind: str) -> dict[str, Any]:
        return {
            **_get(
                f"{kind}ApiTokens_List",
                f"List {kind.lower()} API tokens (metadata only)",
                tag,
                params,
                _json({"type": "array", "items": token}, "tokens"),
                _ERRORS,
                _API_TOKEN,
            ),
            "post": {
                "operationId": f"{kind}ApiTokens_Create",
                "summary": f"Create a {kind.lower()} API token; its value is shown once",
                "tags": [tag],
                "parameters": params,
                "security": _API_TOKEN,
                "requestBody": create_body,
                "responses": {"201": _json(created, "created"), **_ERRORS},
            },
        }

    return {
        "/v0.1/user": _get(
            "User_Get",
            "4.7 The authenticated user's profile",
            tag,
            [],
            _json(_ref("DevToolingUser"), "user"),
            _ERRORS,
            _API_TOKEN,
        ),
        "/v0.1/apps": _get(
            "Apps_List",
            "Apps the token can see",
            tag,
            [],
            _json(app_list, "apps"),
            _ERRORS,
            _API_TOKEN,
        ),
        "/v0.1/apps/{owner_name}/{app_name}/users": _get(
            "AppUsers_List",
            "Users of an app",
            tag,
            [owner, app],
            _json({"type": "array", "items": _ref("DevToolingAppUser")}, "users"),
            _ERRORS,
            _API_TOKEN,
        ),
        "/v0.1/apps/{owner_name}/{app_name}/users/{user_email}": {
            "delete": {
                "operationId": "AppUsers_Delete",
                "summary": "4.7 Remove a user from an app",
                "tags": [tag],
                "parameters": [owner, app, _path_param("user_email")],
                "security": _API_TOKEN,
                "responses": {"204": {"description": "removed"}, **_ERRORS},
            }
        },
        "/v0.1/api_tokens": tokens_path("/v0.1", [], "User"),
        "/v0.1/apps/{owner_name}/{app_name}/api_tokens": tokens_path("", [owner, app], "App"),
    }


@cache
def _components() -> dict[str, Any]:
    _, schema = models_json_schema(_MODELS, ref_template=_REF)
    return dict(schema.get("$defs", {}))


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of every sandbox endpoint."""
    paths: dict[str, Any] = {
        **_deny_assignment_paths(),
        **_role_assignment_paths(),
        **_resource_paths(
            "Cloud.AnalyticsCluster",
            "clusters",
            "clusterName",
            "clusters.create",
            "Cluster",
            "ClusterCreateRequest",
            "B. Analytics clusters",
            "200",
            "4.3 Create an analytics cluster (asynchronous: follow Location)",
        ),
        **_operation_status_path(),
        **_resource_paths(
            "Cloud.EventRouting",
            "domains",
            "domainName",
            "domains.createOrUpdate",
            "Domain",
            "DomainCreateRequest",
            "C. Event-routing domains",
            "201",
            "4.4 Create or update an event-routing domain",
        ),
        **_event_paths(),
        **_devtooling_paths(),
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "auditor sandbox",
            "version": __version__,
            "description": "The seed's API (areas A-E) served from a snapshot, for tests and demos.",
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "schemas": _components(),
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "APIToken": {"type": "apiKey", "in": "header", "name": "X-API-Token"},
            },
        },
    }
