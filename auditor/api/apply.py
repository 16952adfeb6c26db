"""Sending a plan (contracts 3) for ``auditor gate PLAN --apply``: each request's PUT in plan
order, each asynchronous operation followed to its end, and the final state of each resource.

Secrets are revealed only into the body that is sent. A secret given as a reference (``<NAME>`` or
``${NAME}``, contracts 3) is resolved from ``secrets`` (the environment by default) at that moment; a
reference that cannot be resolved fails its request before anything is sent. Results never hold a
secret: the service does not return them, and the resource is re-validated and dumped masked.
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
    request: PlanRequest, client: ResourceManagerClient, secrets: Mapping[str, str]
) -> ApplyResult:
    def result(status: ApplyStatus, **more: Any) -> ApplyResult:
        return ApplyResult(request.index, request.kind, request.resource_id, status, **more)

    try:
        body = request_body(request, secrets)
    except UnresolvedSecret as exc:
        return result(
            "failed",
            error=f"the secret reference {exc.args[0]} has no value (set it in the environment)",
        )
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
    each followed to its end. After a failure the rest are ``skipped`` unless
    ``stop_on_failure`` is false."""
    values = os.environ if secrets is None else secrets
    results: list[ApplyResult] = []
    failed = False
    for request in plan.requests:
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
        outcome = await _apply_one(request, client, values)
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
