"""Area A client: deny assignments (seed 4.1) and role assignments (4.2)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from auditor.api._namespace import Namespace, api_version, provider
from auditor.api._paging import Page, decoded_items, iter_pages
from auditor.api._paths import scope_path, subscription_path
from auditor.api._transport import Transport
from auditor.model.defaults import SEED_API_VERSIONS


class AccessControlClient:
    api_version = SEED_API_VERSIONS["roleAssignments.list"]

    def __init__(self, transport: Transport, namespace: Namespace = "seed") -> None:
        self.transport = transport
        self._provider = "/providers/" + provider("Cloud.Authorization", namespace)
        self.api_version = api_version("roleAssignments.list", namespace)
        self._deny_version = api_version("denyAssignments.list", namespace)

    def _params(self, filter: str | None, **more: str | None) -> dict[str, str]:
        params = {"api-version": self.api_version}
        if filter:
            params["$filter"] = filter
        params.update({k: v for k, v in more.items() if v is not None})
        return params

    def role_assignment_pages(
        self, scope: str = "/", *, filter: str | None = None, tenant_id: str | None = None
    ) -> AsyncIterator[Page]:
        """Pages of 4.2 at ``scope`` (``/``: the provider-level call, paged by the service)."""
        path = scope_path(scope) + self._provider + "/roleAssignments"
        return iter_pages(self.transport, path, self._params(filter, tenantId=tenant_id))

    async def list_role_assignments(
        self, scope: str = "/", *, filter: str | None = None, tenant_id: str | None = None
    ) -> list[dict[str, Any]]:
        return await decoded_items(
            self.role_assignment_pages(scope, filter=filter, tenant_id=tenant_id)
        )

    def deny_assignment_pages(
        self, subscription: str, *, filter: str | None = None
    ) -> AsyncIterator[Page]:
        path = subscription_path(subscription) + self._provider + "/denyAssignments"
        params = self._params(filter)
        params["api-version"] = self._deny_version
        return iter_pages(self.transport, path, params)

    async def list_deny_assignments(
        self, subscription: str, *, filter: str | None = None
    ) -> list[dict[str, Any]]:
        return await decoded_items(self.deny_assignment_pages(subscription, filter=filter))
