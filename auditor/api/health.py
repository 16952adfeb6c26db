"""Area D client: service health events by subscription (seed 4.5) and by resource (4.6)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from typing import Any

from auditor.api._namespace import Namespace, api_version, provider
from auditor.api._paging import Page, decoded_items, iter_pages
from auditor.api._paths import scope_path, subscription_path
from auditor.api._transport import Transport
from auditor.model.defaults import SEED_API_VERSIONS


def query_start_time(day: date | str) -> str:
    """``queryStartTime`` in the service's month/day/year form."""
    if isinstance(day, str):
        return day
    return f"{day.month}/{day.day}/{day.year}"


class HealthClient:
    api_version = SEED_API_VERSIONS["healthEvents.list"]

    def __init__(self, transport: Transport, namespace: Namespace = "seed") -> None:
        self.transport = transport
        self._events = "/providers/" + provider("Cloud.ResourceHealth", namespace) + "/events"
        self.api_version = api_version("healthEvents.list", namespace)

    def subscription_event_pages(
        self,
        subscription: str,
        *,
        filter: str | None = None,
        start: date | str | None = None,
    ) -> AsyncIterator[Page]:
        params = {"api-version": self.api_version}
        if filter:
            params["$filter"] = filter
        if start is not None:
            params["queryStartTime"] = query_start_time(start)
        return iter_pages(self.transport, subscription_path(subscription) + self._events, params)

    def resource_event_pages(
        self, resource_uri: str, *, filter: str | None = None
    ) -> AsyncIterator[Page]:
        params = {"api-version": self.api_version}
        if filter:
            params["$filter"] = filter
        return iter_pages(self.transport, scope_path(resource_uri) + self._events, params)

    async def list_subscription_events(
        self,
        subscription: str,
        *,
        filter: str | None = None,
        start: date | str | None = None,
    ) -> list[dict[str, Any]]:
        return await decoded_items(
            self.subscription_event_pages(subscription, filter=filter, start=start)
        )

    async def list_resource_events(
        self, resource_uri: str, *, filter: str | None = None
    ) -> list[dict[str, Any]]:
        return await decoded_items(self.resource_event_pages(resource_uri, filter=filter))
