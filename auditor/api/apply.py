"""Sending a plan (contracts 3) for ``auditor gate PLAN --apply``: each request's PUT in plan
order, each asynchronous operation followed to its end, and the final state of each resource.

Nothing is half-applied on what could have been known: before the first request, every request's
URL is checked (a path of the API naming the request's resource, at most one api-version), every
secret given as a reference (``<NAME>`` or ``${NAME}``, contracts 3) is resolved from ``secrets``
(the environment by default) and every body is made ready to send; any problem is an
:class:`ApplyPreflightError` naming each request and reference (never a value), and nothing is
sent. Secrets are revealed only into the bodies sent. Results never hold a secret: the service does
not return them, and the resource is re-validated and dumped masked.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from auditor.api._resources import ResourceClient
from auditor.api._transport import ApiError, ClientSettings
from auditor.api.client import ResourceManagerClient
from auditor.errors import InputError
from auditor.estate.plan import Plan, PlanRequest
from auditor.model.cluster import Cluster
from auditor.model.domain import Domain
from auditor.model.secrets import Secret
from auditor.model.snapshot import is_masked_body_key

ApplyStatus = Literal["succeeded", "failed", "skipped"]

_REFERENCE = re.compile(
    r"^(?:<(?P<a>[A-Za-z_][A-Za-z0-9_.\-]*)>|\$\{(?P<b>[A-Za-z_][A-Za-z0-9_.\-]*)\})$"
)


@dataclass(frozen=True)
class ApplyResult:
    """What became of one request of the plan."""

    index: int
    kind: str
    resource_id: str
    status: ApplyStatus
    http_status: int | None = None
    operation_status: str | None = None
    provisioning_state: str | None = None
    resource: dict[str, Any] | None = None
    """The resource's final state as the service reports it (secrets masked)."""
    error: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "resourceId": self.resource_id,
            "status": self.status,
            "httpStatus": self.http_status,
            "operationStatus": self.operation_status,
            "provisioningState": self.provisioning_state,
            "resource": self.resource,
            "error": self.error,
        }


class UnresolvedSecret(Exception):
    pass


class ApplyPreflightError(InputError):
    """The plan cannot be applied as it is (exit 2): nothing was sent. ``problems`` lists each one
    (request index, what)."""

    def __init__(self, problems: list[str], *, source: str | None = None) -> None:
        self.problems = problems
        shown = "; ".join(problems[:10]) + (
            f"; and {len(problems) - 10} more" if len(problems) > 10 else ""
        )
        super().__init__(f"nothing was applied: {shown}", source=source)


def _url_problem(request: PlanRequest) -> str | None:
    """What is wrong with the request's URL, or None: it must be a path of the API (no scheme or
    host) naming the request's own resource, with at most one api-version."""
    from urllib.parse import parse_qs, urlsplit

    try:
        parts = urlsplit(request.url)
    except ValueError:
        return "the URL does not parse"
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return "the URL is not a path of the API (no scheme or host)"
    if parts.path.rstrip("/").lower() != request.resource_id.rstrip("/").lower():
        return "the URL's path does not name the request's resource"
    if len(parse_qs(parts.query).get("api-version", [])) > 1:
        return "the URL has more than one api-version"
    return None


def prepare_bodies(plan: Plan, secrets: Mapping[str, str]) -> list[dict[str, Any]]:
    """Every request's body, ready to send, in plan order; raises :class:`ApplyPreflightError`
    naming every unusable URL, unresolved secret reference and body (nothing is sent)."""
    import json

    problems: list[str] = []
    bodies: list[dict[str, Any]] = []
    for request in plan.requests:
        where = f"request {request.index} ({request.kind} {request.name})"
        url = _url_problem(request)
        if url:
            problems.append(f"{where}: {url}")
        try:
            body = request_body(request, secrets)
        except UnresolvedSecret as exc:
            problems.append(
                f"{where}: the secret reference {exc.args[0]} has no value (set it in the "
                "environment)"
            )
            continue
        try:
            json.dumps(body, allow_nan=False)
        except (TypeError, ValueError):
            problems.append(f"{where}: the body cannot be sent as JSON")
            continue
        bodies.append(body)
    if problems:
        raise ApplyPreflightError(problems, source=plan.source)
    return bodies


def _resolve(value: Any, secrets: Mapping[str, str], masked: bool = False) -> Any:
    if isinstance(value, dict):
        return {k: _resolve(v, secrets, is_masked_body_key(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, secrets, masked) for v in value]
    if masked and isinstance(value, str):
        m = _REFERENCE.match(value)
        if m:
            name = m.group("a") or m.group("b")
            if name not in secrets:
                raise UnresolvedSecret(name)
            return secrets[name]
    return value


def request_body(request: PlanRequest, secrets: Mapping[str, str]) -> dict[str, Any]:
    """The body to send: the validated body with secrets revealed and references resolved."""
    body: dict[str, Any] = request.body.to_wire(reveal_secrets=True)
    resolved: dict[str, Any] = _resolve(body, secrets)
    return resolved


def _masked(kind: str, resource: dict[str, Any]) -> dict[str, Any]:
    model: type[Cluster] | type[Domain] = Cluster if kind == "cluster" else Domain
    try:
        return model.model_validate(resource, strict=False).to_wire()
    except ValueError:
        return {k: resource[k] for k in ("id", "name", "type") if k in resource}


def _state(resource: dict[str, Any] | None) -> str | None:
    props = resource.get("properties") if resource else None
    state = props.get("provisioningState") if isinstance(props, dict) else None
    return state if isinstance(state, str) else None


async def _apply_one(
    request: PlanRequest, client: ResourceManagerClient, body: dict[str, Any]
) -> ApplyResult:
    def result(status: ApplyStatus, **more: Any) -> ApplyResult:
        return ApplyResult(request.index, request.kind, request.resource_id, status, **more)

    resources: ResourceClient = client.clusters if request.kind == "cluster" else client.domains
    try:
        accepted = await resources.put(request.url, body)
        outcome = await resources.wait(accepted, request.resource_id)
        final = await resources.get_path(request.resource_id)
    except ApiError as exc:
        return result("failed", http_status=exc.status, error=str(exc))
    state = _state(final)
    ok = outcome.succeeded and (state is None or state.lower() == "succeeded")
    return result(
        "succeeded" if ok else "failed",
        http_status=accepted.status_code,
        operation_status=outcome.status,
        provisioning_state=state,
        resource=_masked(request.kind, final),
        error=None if ok else f"the operation ended {outcome.status} ({state or 'no state'})",
    )


async def apply_plan(
    plan: Plan,
    client: ResourceManagerClient,
    *,
    secrets: Mapping[str, str] | None = None,
    stop_on_failure: bool = True,
) -> list[ApplyResult]:
    """Send every request of ``plan`` through ``client`` (opened with ``async with``), in order,
    each followed to its end, once every URL, secret reference and body has been checked
    (:func:`prepare_bodies`: any problem raises :class:`ApplyPreflightError` and nothing is sent).
    After a failure the rest are ``skipped`` unless ``stop_on_failure`` is false."""
    values = os.environ if secrets is None else secrets
    bodies = prepare_bodies(plan, values)
    results: list[ApplyResult] = []
    failed = False
    for request, body in zip(plan.requests, bodies, strict=True):
        if failed and stop_on_failure:
            results.append(
                ApplyResult(
                    request.index,
                    request.kind,
                    request.resource_id,
                    "skipped",
                    error="not sent: an earlier request failed",
                )
            )
            continue
        outcome = await _apply_one(request, client, body)
        failed = failed or outcome.status != "succeeded"
        results.append(outcome)
    return results


def run_apply(
    plan: Plan,
    base_url: str,
    token: Secret | str,
    *,
    settings: ClientSettings | None = None,
    secrets: Mapping[str, str] | None = None,
    stop_on_failure: bool = True,
) -> list[ApplyResult]:
    """:func:`apply_plan` for synchronous callers (the CLI)."""

    async def main() -> list[ApplyResult]:
        async with ResourceManagerClient(base_url, token, settings) as client:
            return await apply_plan(plan, client, secrets=secrets, stop_on_failure=stop_on_failure)

    return asyncio.run(main())
