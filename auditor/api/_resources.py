"""Shared client of the two writable resource kinds (clusters, domains): create-or-update,
read, list by resource group or subscription, and following the asynchronous operation."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

from auditor.api._namespace import Namespace, api_version, provider
from auditor.api._operations import OperationResult, operation_address, poll_operation
from auditor.api._paging import Page, decoded_items, iter_pages
from auditor.api._paths import segment, subscription_path
from auditor.api._transport import OperationError, Transport, json_of, parse_retry_after

NON_TERMINAL_STATES = frozenset(
    {"accepted", "creating", "updating", "inprogress", "provisioning", "running", "deleting"}
)


@dataclass(frozen=True)
class Accepted:
    """The answer to a create: the resource as returned, and where to follow the operation."""

    status_code: int
    resource: dict[str, Any]
    operation: str | None
    retry_after: float | None


class ResourceClient:
    provider = ""
    collection = ""
    api_version = ""
    operation = ""
    """The key of its api-version in ``SEED_API_VERSIONS`` (and the vendor's table)."""
    created_status: tuple[int, ...] = (200, 201)

    def __init__(self, transport: Transport, namespace: Namespace = "seed") -> None:
        self.transport = transport
        self.namespace = namespace
        self.provider = provider(type(self).provider, namespace)
        if self.operation:
            self.api_version = api_version(self.operation, namespace)

    def path(self, subscription: str, resource_group: str, name: str) -> str:
        return (
            f"{subscription_path(subscription)}/resourceGroups/{segment(resource_group)}"
            f"/providers/{self.provider}/{self.collection}/{segment(name)}"
        )

    async def put(
        self, path: str, body: dict[str, Any], *, api_version: str | None = None
    ) -> Accepted:
        """PUT ``body`` at ``path`` (a resource path; ``api-version`` is added unless the path
        carries one)."""
        params = (
            None if "api-version=" in path else {"api-version": api_version or self.api_version}
        )
        response, resource = await self.transport.request_parsed(
            "PUT", path, _with_json, params=params, json=body, ok=self.created_status
        )
        return Accepted(
            status_code=response.status_code,
            resource=resource if isinstance(resource, dict) else {},
            operation=operation_address(response),
            retry_after=parse_retry_after(response.headers.get("retry-after")),
        )

    async def create_or_update(
        self, subscription: str, resource_group: str, name: str, body: dict[str, Any]
    ) -> Accepted:
        return await self.put(self.path(subscription, resource_group, name), body)

    async def wait(self, accepted: Accepted, resource_path: str | None = None) -> OperationResult:
        """Follow the operation of ``accepted`` to its end: its status address when there is one,
        else the resource's ``provisioningState`` (polling a GET of ``resource_path``)."""
        if accepted.operation is not None:
            return await poll_operation(
                self.transport, accepted.operation, first_wait=accepted.retry_after
            )
        state = _provisioning_state(accepted.resource)
        if state is None or state.lower() not in NON_TERMINAL_STATES or resource_path is None:
            return OperationResult(state or "Succeeded", accepted.resource, 0)
        settings = self.transport.settings
        deadline = time.monotonic() + settings.operation_timeout
        polls = 0
        while True:
            await asyncio.sleep(min(settings.poll_interval, settings.poll_interval_max))
            body = await self.get_path(resource_path)
            polls += 1
            state = _provisioning_state(body)
            if state is None or state.lower() not in NON_TERMINAL_STATES:
                return OperationResult(state or "Succeeded", body, polls)
            if time.monotonic() >= deadline:
                raise OperationError("the resource did not reach a final state in time")

    async def get_path(self, path: str) -> dict[str, Any]:
        params = None if "api-version=" in path else {"api-version": self.api_version}
        body = await self.transport.request_parsed("GET", path, json_of, params=params)
        return body if isinstance(body, dict) else {}

    async def get(self, subscription: str, resource_group: str, name: str) -> dict[str, Any]:
        return await self.get_path(self.path(subscription, resource_group, name))

    def pages(self, subscription: str, resource_group: str | None = None) -> AsyncIterator[Page]:
        """Pages of the resources of a subscription, or of one of its resource groups."""
        path = subscription_path(subscription)
        if resource_group is not None:
            path += f"/resourceGroups/{segment(resource_group)}"
        path += f"/providers/{self.provider}/{self.collection}"
        return iter_pages(self.transport, path, {"api-version": self.api_version})

    async def list_resources(
        self, subscription: str, resource_group: str | None = None
    ) -> list[dict[str, Any]]:
        return await decoded_items(self.pages(subscription, resource_group))


def _with_json(response: httpx.Response) -> tuple[httpx.Response, Any]:
    return response, json_of(response)


def _provisioning_state(resource: dict[str, Any]) -> str | None:
    props = resource.get("properties")
    state = props.get("provisioningState") if isinstance(props, dict) else None
    return state if isinstance(state, str) else None
