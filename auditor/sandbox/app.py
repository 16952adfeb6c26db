"""The sandbox: an ASGI application serving every endpoint of the seed (section 4) from a snapshot.

Every API request goes through one pipeline, in this order:

1. route: the path picks an endpoint (case-insensitive); no endpoint is 404, another method 405;
2. faults and latency (``--fault-rate``, ``--latency``) for testing clients;
3. area E only: POST/PUT/PATCH without a body is 411, then ``X-API-Token`` (401);
   areas A-D: ``Authorization: Bearer`` (401), then ``api-version`` exactly as in seed 9 (400);
4. the read permission of seed 5.1 for 4.1 and 4.2, asked of the access engine (403);
5. the handler.

Every error carries the body of its area (seed 7). The route table below lists every endpoint.
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route as StarletteRoute
from starlette.types import Receive, Scope, Send

from auditor.estate.snapshot import Snapshot
from auditor.model.defaults import SEED_API_VERSIONS
from auditor.model.devtooling import API_TOKEN_HEADER
from auditor.sandbox import arm, devtooling
from auditor.sandbox._http import (
    Area,
    Ctx,
    HttpError,
    QueryError,
    error_response,
    json_response,
    parse_query,
    shorten,
)
from auditor.sandbox.auth import Authorizer, BearerIdentity, BearerRegistry
from auditor.sandbox.config import FaultInjector, SandboxConfig
from auditor.sandbox.store import PersistError, Store

Handler = Callable[[Ctx], Awaitable[Response]]

_log = logging.getLogger("auditor.sandbox")
_DIGITS = re.compile(r"[0-9]{1,30}")

_SUB = r"/subscriptions/(?P<sub>[^/]+)"
_RG = _SUB + r"/resourceGroups/(?P<rg>[^/]+)"
_CLUSTERS = r"/providers/Cloud\.AnalyticsCluster/clusters"
_DOMAINS = r"/providers/Cloud\.EventRouting/domains"
_EVENTS = r"/providers/Cloud\.ResourceHealth/events"
_APP = r"/v0\.1/apps/(?P<owner>[^/]+)/(?P<app>[^/]+)"

DENY_READ = "Cloud.Authorization/denyAssignments/read"
ROLE_READ = "Cloud.Authorization/roleAssignments/read"


@dataclass(frozen=True)
class Endpoint:
    """One operation: its seed section, method, path pattern, area, api-version, permission."""

    operation: str
    method: str
    path: str
    area: Area
    handler: Handler
    api_version: str | None = None
    permission: str | None = None
    parameters: tuple[str, ...] = ()
    """The query parameters it accepts (lower case); any other is a 400, so that a misspelt
    ``$fitler`` is not silently ignored."""

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compiled(self.path)


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _compiled(path: str) -> re.Pattern[str]:
    found = _PATTERNS.get(path)
    if found is None:
        found = _PATTERNS[path] = re.compile("^" + path + "/?$", re.IGNORECASE)
    return found


_V_ACCESS = SEED_API_VERSIONS["roleAssignments.list"]
_V_CLUSTER = SEED_API_VERSIONS["clusters.create"]
_V_DOMAIN = SEED_API_VERSIONS["domains.createOrUpdate"]
_V_EVENTS = SEED_API_VERSIONS["healthEvents.list"]

_P_VERSION = ("api-version",)
_P_LIST = ("api-version", "$skiptoken")
_P_DENY = ("api-version", "$filter", "$skiptoken")
_P_ROLE = ("api-version", "$filter", "$skiptoken", "tenantid")
_P_EVENTS = ("api-version", "$filter", "querystarttime", "$skiptoken")

ENDPOINTS: tuple[Endpoint, ...] = (
    # area A (seed 4.1, 4.2)
    Endpoint(
        "4.1 denyAssignments.list",
        "GET",
        r"(?P<scope>/.*?)?/providers/Cloud\.Authorization/denyAssignments",
        "A",
        arm.list_deny_assignments,
        SEED_API_VERSIONS["denyAssignments.list"],
        DENY_READ,
        parameters=_P_DENY,
    ),
    Endpoint(
        "4.2 roleAssignments.list",
        "GET",
        r"(?P<scope>/.*?)?/providers/Cloud\.Authorization/roleAssignments",
        "A",
        arm.list_role_assignments,
        _V_ACCESS,
        ROLE_READ,
        parameters=_P_ROLE,
    ),
    # area B (seed 4.3; GET and lists so that clients can read clusters back)
    Endpoint(
        "clusters.operation",
        "GET",
        _RG + _CLUSTERS + r"/(?P<name>[^/]+)/azureasyncoperations/(?P<op>[^/]+)",
        "B",
        arm.cluster_operation,
        _V_CLUSTER,
        parameters=_P_VERSION,
    ),
    Endpoint(
        "4.3 clusters.create",
        "PUT",
        _RG + _CLUSTERS + r"/(?P<name>[^/]+)",
        "B",
        arm.create_cluster,
        _V_CLUSTER,
        parameters=_P_VERSION,
    ),
    Endpoint(
        "clusters.get",
        "GET",
        _RG + _CLUSTERS + r"/(?P<name>[^/]+)",
        "B",
        arm.get_cluster,
        _V_CLUSTER,
        parameters=_P_VERSION,
    ),
    Endpoint(
        "clusters.listByResourceGroup",
        "GET",
        _RG + _CLUSTERS,
        "B",
        arm.list_clusters,
        _V_CLUSTER,
        parameters=_P_LIST,
    ),
    Endpoint(
        "clusters.list",
        "GET",
        _SUB + _CLUSTERS,
        "B",
        arm.list_clusters,
        _V_CLUSTER,
        parameters=_P_LIST,
    ),
    # area C (seed 4.4)
    Endpoint(
        "4.4 domains.createOrUpdate",
        "PUT",
        _RG + _DOMAINS + r"/(?P<name>[^/]+)",
        "C",
        arm.put_domain,
        _V_DOMAIN,
        parameters=_P_VERSION,
    ),
    Endpoint(
        "domains.get",
        "GET",
        _RG + _DOMAINS + r"/(?P<name>[^/]+)",
        "C",
        arm.get_domain,
        _V_DOMAIN,
        parameters=_P_VERSION,
    ),
    Endpoint(
        "domains.listByResourceGroup",
        "GET",
        _RG + _DOMAINS,
        "C",
        arm.list_domains,
        _V_DOMAIN,
        parameters=_P_LIST,
    ),
    Endpoint(
        "domains.list",
        "GET",
        _SUB + _DOMAINS,
        "C",
        arm.list_domains,
        _V_DOMAIN,
        parameters=_P_LIST,
    ),
    # area D (seed 4.5, 4.6)
    Endpoint(
        "4.5 events.listBySubscriptionId",
        "GET",
        _SUB + _EVENTS,
        "D",
        arm.list_subscription_events,
        _V_EVENTS,
        parameters=_P_EVENTS,
    ),
    Endpoint(
        "4.6 events.listBySingleResource",
        "GET",
        r"(?P<resource>/subscriptions/.+?)" + _EVENTS,
        "D",
        arm.list_resource_events,
        _V_EVENTS,
        parameters=_P_EVENTS,  # queryStartTime gets its own 400 message (seed 4.6)
    ),
    # area E (seed 4.7; the app and app-user lists are the service's, beyond the seed)
    Endpoint("4.7 user.get", "GET", r"/v0\.1/user", "E", devtooling.get_user),
    Endpoint("apps.list", "GET", r"/v0\.1/apps", "E", devtooling.list_apps),
    Endpoint("appUsers.list", "GET", _APP + r"/users", "E", devtooling.list_app_users),
    Endpoint(
        "4.7 appUsers.delete",
        "DELETE",
        _APP + r"/users/(?P<email>[^/]+)",
        "E",
        devtooling.remove_app_user,
    ),
    Endpoint("userApiTokens.list", "GET", r"/v0\.1/api_tokens", "E", devtooling.list_user_tokens),
    Endpoint(
        "userApiTokens.create", "POST", r"/v0\.1/api_tokens", "E", devtooling.create_user_token
    ),
    Endpoint("appApiTokens.list", "GET", _APP + r"/api_tokens", "E", devtooling.list_app_tokens),
    Endpoint(
        "appApiTokens.create", "POST", _APP + r"/api_tokens", "E", devtooling.create_app_token
    ),
)

_SINGLE_PARAMETERS = ("api-version", "$filter", "$skiptoken", "querystarttime", "tenantid")
_WRITES = frozenset({"POST", "PUT", "PATCH"})


def _guess_area(path: str) -> Area:
    lowered = path.lower()
    if lowered.startswith("/v0.1"):
        return "E"
    if "/providers/cloud.resourcehealth/" in lowered:
        return "D"
    return "A"


def match(method: str, path: str) -> tuple[Endpoint | None, dict[str, str], list[str]]:
    """The endpoint for ``method`` and ``path`` (the raw, percent-encoded path: an encoded ``/``
    inside a name never changes the endpoint), its path parameters decoded once, and the methods
    the path allows (for 405)."""
    allowed: list[str] = []
    for endpoint in ENDPOINTS:
        m = endpoint.pattern.match(path)
        if m is None:
            continue
        if endpoint.method == method:
            params = {k: unquote(v) for k, v in m.groupdict().items() if v is not None}
            return endpoint, params, allowed
        allowed.append(endpoint.method)
    return None, {}, allowed


class Sandbox:
    """The state and the pipeline behind the ASGI app."""

    def __init__(self, snapshot: Snapshot, config: SandboxConfig) -> None:
        self.config = config
        self.store = Store(snapshot, config)
        self.bearers = BearerRegistry()
        for value, principal in config.bearer_tokens.items():
            self.bearers.add(value, BearerIdentity(principal))
        if config.reader_token:
            self.bearers.add(
                config.reader_token, BearerIdentity("sandbox-reader", reads_everything=True)
            )
        self.authorizer = Authorizer(snapshot)
        self.faults = FaultInjector(config.faults)

    async def handle(self, request: Request) -> Response:
        """The answer to one request. Nothing escapes: an unforeseen exception is answered 500 with
        the error body of the request's area and a reference (logged on one line, no traceback),
        never a plain-text 500."""
        area: Area = "A"
        try:
            area = _guess_area(request.url.path)
            return await self._handle(request)
        except ClientDisconnect:
            # the caller went away while sending its body: nobody reads this answer
            return error_response(area, 400, "ClientDisconnected", "The request was not complete.")
        except Exception as exc:  # the guard of the last resort (see the docstring)
            reference = uuid.uuid4().hex[:12]
            _log.error(
                "internal error %s on %s %r: %s",
                reference,
                request.method,
                request.url.path[:200],
                type(exc).__name__,
            )
            return error_response(
                area,
                500,
                "InternalServerError",
                f"The sandbox met an unexpected error (reference {reference}).",
            )

    async def _handle(self, request: Request) -> Response:
        method = request.method.upper()
        path = request.url.path
        raw = request.scope.get("raw_path")
        raw_path = raw.decode("latin-1").split("?", 1)[0] if raw else path
        endpoint, params, allowed = match(method, raw_path)
        if endpoint is None:
            area = _guess_area(path)
            if allowed:
                return error_response(
                    area,
                    405,
                    "MethodNotAllowed",
                    f"{method} is not allowed here; allowed: {', '.join(sorted(set(allowed)))}.",
                    headers={"Allow": ", ".join(sorted(set(allowed)))},
                )
            return error_response(area, 404, "NotFound", f"No endpoint at {shorten(path)}.")
        area = endpoint.area
        injected = await self._faults(request, area)
        if injected is not None:
            return injected
        try:
            ctx = Ctx(
                request=request,
                store=self.store,
                area=area,
                params=params,
                query=parse_query(request.scope.get("query_string", b""), _SINGLE_PARAMETERS),
            )
        except QueryError as exc:
            return error_response(area, 400, "InvalidQueryParameter", str(exc))
        try:
            if area == "E":
                await self._developer_tooling(ctx, method)
            else:
                await self._resource_manager(ctx, endpoint, method)
            return await endpoint.handler(ctx)
        except HttpError as exc:
            return error_response(
                area, exc.status, exc.code, exc.message, target=exc.target, headers=exc.headers
            )
        except PersistError as exc:
            return error_response(
                area,
                500,
                "PersistFailed",
                f"The change was made but could not be saved ({shorten(str(exc))}).",
            )

    async def _faults(self, request: Request, area: Area) -> Response | None:
        cfg = self.config.faults
        if cfg.latency > 0:
            await asyncio.sleep(cfg.latency)
        key = f"{request.method} {request.url.path}?{request.url.query}"
        kind = self.faults.draw(key, request.url.path)
        if kind is None:
            return None
        if kind == "slow":
            await asyncio.sleep(cfg.slow_delay)
            return None
        retry = {"Retry-After": str(cfg.retry_after)}
        if kind == "429":
            return error_response(
                area, 429, "TooManyRequests", "Too many requests; retry later.", headers=retry
            )
        if kind == "503":
            return error_response(
                area, 503, "ServiceUnavailable", "The service is unavailable.", headers=retry
            )
        return error_response(area, 500, "InternalServerError", "An injected server error.")

    async def _read_body(self, ctx: Ctx) -> None:
        limit = self.config.max_body_bytes
        declared = ctx.request.headers.get("content-length", "")
        if _DIGITS.fullmatch(declared) and int(declared) > limit:
            raise HttpError(413, "RequestTooLarge", f"The body exceeds {limit} bytes.")
        chunks: list[bytes] = []
        size = 0
        async for chunk in ctx.request.stream():
            size += len(chunk)
            if size > limit:
                raise HttpError(413, "RequestTooLarge", f"The body exceeds {limit} bytes.")
            chunks.append(chunk)
        ctx.body = b"".join(chunks)

    async def _developer_tooling(self, ctx: Ctx, method: str) -> None:
        if method in _WRITES:
            await self._read_body(ctx)
            if not ctx.body:
                raise HttpError(
                    411,
                    "LengthRequired",
                    "A POST, PUT or PATCH request must carry a body; send {} when it is empty.",
                )
        value = ctx.request.headers.get(API_TOKEN_HEADER)
        token_id = self.store.api_tokens.lookup(value)
        if token_id is None:
            reason = "is missing" if not value else "is not valid"
            raise HttpError(401, "Unauthorized", f"The {API_TOKEN_HEADER} header {reason}.")
        ctx.token_id = token_id
        _known_parameters(ctx, ())

    async def _resource_manager(self, ctx: Ctx, endpoint: Endpoint, method: str) -> None:
        identity, reason = self.bearers.lookup(ctx.request.headers.get("authorization"))
        if identity is None:
            message = {
                "missing": "Authentication failed: the Authorization header is missing.",
                "scheme": "Authentication failed: expected 'Authorization: Bearer <token>'.",
            }.get(reason, "The access token is invalid.")
            code = "AuthenticationFailed" if reason != "unknown" else "InvalidAuthenticationToken"
            raise HttpError(
                401,
                code,
                message,
                headers={"WWW-Authenticate": 'Bearer realm="auditor-sandbox"'},
            )
        ctx.caller = identity
        version = ctx.query.get("api-version")
        if not version:
            raise HttpError(
                400,
                "MissingApiVersionParameter",
                "The api-version query parameter (?api-version=) is required for all requests.",
                target="api-version",
            )
        if version != endpoint.api_version:
            shown = version if len(version) <= 40 else version[:37] + "..."
            raise HttpError(
                400,
                "InvalidApiVersionParameter",
                f"The api-version '{shown}' is invalid. The supported version is "
                f"'{endpoint.api_version}'.",
                target="api-version",
            )
        _known_parameters(ctx, endpoint.parameters)
        if endpoint.permission is not None and not identity.reads_everything:
            scope = self._permission_scope(ctx, endpoint)
            if not self.authorizer.allowed(identity.principal_id, endpoint.permission, scope):
                raise HttpError(
                    403,
                    "AuthorizationFailed",
                    f"The client '{identity.principal_id}' does not have authorization to perform "
                    f"action '{endpoint.permission}' over scope '{shorten(scope)}'.",
                )
        if method in _WRITES:
            await self._read_body(ctx)

    @staticmethod
    def _permission_scope(ctx: Ctx, endpoint: Endpoint) -> str:
        if "sub" in ctx.params:
            return "/subscriptions/" + ctx.params["sub"]
        return arm.listed_scope(ctx)


def _known_parameters(ctx: Ctx, accepted: tuple[str, ...]) -> None:
    unknown = [name for name in ctx.query if name not in accepted]
    if unknown:
        shown = unknown[0] if len(unknown[0]) <= 40 else unknown[0][:37] + "..."
        which = ", ".join(accepted) if accepted else "none"
        raise HttpError(
            400,
            "InvalidQueryParameter",
            f"The query parameter '{shown}' is not accepted here (accepted: {which}).",
            target=shown,
        )


def create_app(snapshot: Snapshot, config: SandboxConfig | None = None) -> Starlette:
    """The ASGI application serving ``snapshot``. ``app.state.sandbox`` holds its state."""
    from auditor.sandbox.explorer import EXPLORER_HTML
    from auditor.sandbox.openapi import openapi_document

    sandbox = Sandbox(snapshot, config or SandboxConfig())
    namespace = sandbox.config.namespace
    if namespace != "seed":
        from auditor.sandbox import vendor
    document: dict[str, Any] = {}

    async def openapi(request: Request) -> Response:
        if not document:
            document.update(openapi_document())
        return json_response(200, document)

    async def docs(request: Request) -> Response:
        return HTMLResponse(EXPLORER_HTML)

    app = Starlette(
        routes=[
            StarletteRoute("/openapi.json", openapi, methods=["GET"]),
            StarletteRoute("/docs", docs, methods=["GET"]),
        ]
    )

    async def api(scope: Scope, receive: Receive, send: Send) -> None:
        # every other request, whatever its path (Starlette's path patterns stop at a newline),
        # goes through the sandbox's own pipeline, so every answer has the seed's error shapes
        if scope["type"] != "http":
            return
        if namespace != "seed":
            await vendor.serve(sandbox.handle, namespace, scope, receive, send)
            return
        response = await sandbox.handle(Request(scope, receive))
        await response(scope, receive, send)

    app.router.default = api
    app.state.sandbox = sandbox
    return app
