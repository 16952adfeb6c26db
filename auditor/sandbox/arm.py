"""Handlers of areas A to D (seed 4.1-4.6): the resource-manager style endpoints."""

from __future__ import annotations

import re
import time
from datetime import date
from typing import Any

from starlette.responses import Response

from auditor.model.cluster import CLUSTER_RESOURCE_TYPE
from auditor.model.defaults import SEED_API_VERSIONS
from auditor.model.domain import DOMAIN_RESOURCE_TYPE
from auditor.sandbox._http import Ctx, HttpError, json_response, list_body, page, shorten
from auditor.sandbox._scopes import (
    ROOT,
    is_deny_scope,
    is_resource_uri,
    is_valid_scope,
    scope_key,
)
from auditor.sandbox.filters import (
    FilterRejected,
    deny_assignment_query,
    event_predicate,
    role_assignment_query,
)
from auditor.sandbox.resources import (
    BodyError,
    build_cluster,
    build_domain,
    decode_object,
    validate_cluster_body,
    validate_domain_body,
)
from auditor.sandbox.store import utc_now

_GUID = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
_START_TIME = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")


def _filter_error(exc: FilterRejected) -> HttpError:
    return HttpError(400, "InvalidFilter", exc.message, target="$filter")


def _body_error(exc: BodyError) -> HttpError:
    return HttpError(400, "InvalidRequestContent", exc.describe(), target=exc.path or None)


# --- 4.2 role assignments ----------------------------------------------------------------------


def listed_scope(ctx: Ctx) -> str:
    """The scope of a 4.1 or 4.2 call as written in its path (``/`` for the provider level)."""
    return ctx.params.get("scope") or ROOT


def _invalid_scope(scope: str, expected: str) -> HttpError:
    return HttpError(
        400,
        "InvalidScope",
        f"'{shorten(scope)}' is not a scope this list accepts: expected {expected}.",
        target="scope",
    )


async def list_role_assignments(ctx: Ctx) -> Response:
    scope = listed_scope(ctx)
    key = scope_key(scope)
    if not is_valid_scope(key):
        raise _invalid_scope(
            scope, "/, a management group, a subscription, a resource group or a resource"
        )
    provider_level = key == ROOT
    if "$skiptoken" in ctx.query and not provider_level:
        raise HttpError(
            400,
            "UnsupportedQueryParameter",
            "$skipToken is supported only on the provider-level call "
            "(/providers/Cloud.Authorization/roleAssignments); a call at a scope returns every "
            "result in one response.",
            target="$skipToken",
        )
    tenant = ctx.query.get("tenantid")
    if tenant is not None and not _GUID.match(tenant):
        raise HttpError(400, "InvalidTenantId", "tenantId must be a GUID.", target="tenantId")
    try:
        query = role_assignment_query(ctx.query.get("$filter"))
    except FilterRejected as exc:
        raise _filter_error(exc) from None
    store = ctx.store
    own_tenant = store.snapshot.tenantId
    if tenant is not None and own_tenant is not None and tenant.lower() != own_tenant.lower():
        # a cross-tenant request for a tenant this sandbox does not hold: nothing to list
        return json_response(200, {"value": []})
    positions = store.role_assignments(key, query)
    if not provider_level:
        return json_response(200, {"value": store.role_assignment_items(positions)})
    chunk, link = page(ctx, positions, store.config.page_size)
    return json_response(200, list_body(store.role_assignment_items(chunk), link))


# --- 4.1 deny assignments ----------------------------------------------------------------------


async def list_deny_assignments(ctx: Ctx) -> Response:
    """4.1 at a subscription, a resource group or a resource (the real API lists deny assignments
    at any of them, like role assignments); paged at every scope."""
    scope = listed_scope(ctx)
    key = scope_key(scope)
    if not is_deny_scope(key):
        raise _invalid_scope(scope, "a subscription, a resource group or a resource")
    try:
        query = deny_assignment_query(ctx.query.get("$filter"))
    except FilterRejected as exc:
        raise _filter_error(exc) from None
    store = ctx.store
    positions = store.deny_assignments(key, query)
    chunk, link = page(ctx, positions, store.config.page_size)
    gdpr = query.names_only
    return json_response(200, list_body(store.deny_assignment_items(chunk, gdpr=gdpr), link))


# --- 4.5 / 4.6 health events -------------------------------------------------------------------


def _start_date(text: str) -> date:
    m = _START_TIME.match(text.strip())
    if m:
        try:
            return date(int(m.group(3)), int(m.group(1)), int(m.group(2)))
        except ValueError:
            pass
    raise HttpError(
        400,
        "InvalidQueryStartTime",
        "queryStartTime must be a date in month/day/year form, for example 5/1/2024.",
        target="queryStartTime",
    )


async def _events(ctx: Ctx, prefix: str, start: date | None) -> Response:
    try:
        predicate = event_predicate(ctx.query.get("$filter"))
    except FilterRejected as exc:
        raise HttpError(400, "InvalidFilter", exc.message, target="$filter") from None
    events = ctx.store.health_events(prefix, predicate, start)
    chunk, link = page(ctx, events, ctx.store.config.page_size)
    return json_response(200, list_body(chunk, link))


async def list_subscription_events(ctx: Ctx) -> Response:
    text = ctx.query.get("querystarttime")
    start = _start_date(text) if text else None
    prefix = scope_key("/subscriptions/" + ctx.params["sub"]) + "/"
    return await _events(ctx, prefix, start)


async def list_resource_events(ctx: Ctx) -> Response:
    resource = ctx.params["resource"]
    key = scope_key(resource)
    if not is_resource_uri(key):
        raise HttpError(
            404,
            "InvalidResourceUri",
            "Events are listed for a subscription or for a resource "
            "(/subscriptions/{id}/resourceGroups/{name}/providers/{namespace}/{type}/{name}, "
            "one level of nesting allowed).",
            target="resourceUri",
        )
    if "querystarttime" in ctx.query:
        raise HttpError(
            400,
            "InvalidQueryParameter",
            "queryStartTime is accepted only when listing the events of a subscription.",
            target="queryStartTime",
        )
    return await _events(ctx, key + "/providers/cloud.resourcehealth/events/", None)


# --- 4.3 clusters ------------------------------------------------------------------------------


def _resource_id(ctx: Ctx, provider: str, collection: str) -> str:
    p = ctx.params
    return (
        f"/subscriptions/{p['sub']}/resourceGroups/{p['rg']}/providers/{provider}/"
        f"{collection}/{p['name']}"
    )


async def create_cluster(ctx: Ctx) -> Response:
    resource_id = _resource_id(ctx, "Cloud.AnalyticsCluster", "clusters")
    try:
        request = validate_cluster_body(decode_object(ctx.body))
    except BodyError as exc:
        raise _body_error(exc) from None
    store = ctx.store
    cluster = build_cluster(resource_id, ctx.params["name"], request, now=utc_now())
    store.put_cluster(cluster)
    op = store.start_operation(resource_id)
    await store.persist()
    version = SEED_API_VERSIONS["clusters.create"]
    base = str(ctx.request.base_url).rstrip("/")
    location = f"{base}{resource_id}/azureasyncoperations/{op.id}?api-version={version}"
    headers = {
        "Location": location,
        "Azure-AsyncOperation": location,
        "Retry-After": str(op.retry_after(time.monotonic())),
    }
    return json_response(200, cluster.to_wire(), headers)


async def get_cluster(ctx: Ctx) -> Response:
    resource_id = _resource_id(ctx, "Cloud.AnalyticsCluster", "clusters")
    cluster = ctx.store.cluster(resource_id)
    if cluster is None:
        raise _not_found(resource_id)
    return json_response(200, cluster.to_wire())


async def cluster_operation(ctx: Ctx) -> Response:
    resource_id = _resource_id(ctx, "Cloud.AnalyticsCluster", "clusters")
    op = ctx.store.operations.get(ctx.params["op"].lower())
    if op is None or scope_key(op.resource_id) != scope_key(resource_id):
        raise HttpError(
            404,
            "OperationNotFound",
            f"No operation {shorten(ctx.params['op'], 60)} for {shorten(resource_id)}.",
        )
    now = time.monotonic()
    body: dict[str, Any] = {
        "id": f"{resource_id}/azureasyncoperations/{op.id}",
        "name": op.id,
        "startTime": op.started_at,
    }
    if op.remaining(now) > 0:
        body["status"] = "InProgress"
        return json_response(202, body, {"Retry-After": str(op.retry_after(now))})
    body["status"] = "Succeeded"
    body["percentComplete"] = 100.0
    return json_response(200, body)


async def list_clusters(ctx: Ctx) -> Response:
    return _list_resources(ctx, ctx.store.snapshot.clusters, "Cloud.AnalyticsCluster", "clusters")


# --- 4.4 domains -------------------------------------------------------------------------------


async def put_domain(ctx: Ctx) -> Response:
    resource_id = _resource_id(ctx, "Cloud.EventRouting", "domains")
    try:
        request = validate_domain_body(decode_object(ctx.body))
    except BodyError as exc:
        raise _body_error(exc) from None
    store = ctx.store
    caller = ctx.caller.principal_id if ctx.caller else "unknown"
    domain = build_domain(
        resource_id,
        ctx.params["name"],
        request,
        previous=store.domain(resource_id),
        caller=caller,
        tenant_id=store.snapshot.tenantId,
        now=utc_now(),
    )
    store.put_domain(domain)
    await store.persist()
    return json_response(201, domain.to_wire())


async def get_domain(ctx: Ctx) -> Response:
    resource_id = _resource_id(ctx, "Cloud.EventRouting", "domains")
    domain = ctx.store.domain(resource_id)
    if domain is None:
        raise _not_found(resource_id)
    return json_response(200, domain.to_wire())


async def list_domains(ctx: Ctx) -> Response:
    return _list_resources(ctx, ctx.store.snapshot.domains, "Cloud.EventRouting", "domains")


# --- shared ------------------------------------------------------------------------------------


def _not_found(resource_id: str) -> HttpError:
    return HttpError(
        404, "ResourceNotFound", f"The resource '{shorten(resource_id)}' was not found."
    )


def _list_resources(ctx: Ctx, items: list[Any], provider: str, collection: str) -> Response:
    p = ctx.params
    prefix = f"/subscriptions/{p['sub']}/resourcegroups/"
    if "rg" in p:
        prefix += f"{p['rg']}/"
    rtype = CLUSTER_RESOURCE_TYPE if collection == "clusters" else DOMAIN_RESOURCE_TYPE
    segment = f"/providers/{provider}/{collection}/".lower()
    found = [
        item
        for item in ctx.store.under(items, prefix.lower(), rtype)
        if segment in (item.id or "").lower()
    ]
    chunk, link = page(ctx, found, ctx.store.config.page_size)
    return json_response(200, list_body([item.to_wire() for item in chunk], link))
