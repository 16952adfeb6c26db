"""The client of areas A to D: one transport (origin, bearer token, retries, concurrency) shared by
the per-area clients."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from auditor.api._transport import ClientSettings, Credential, Transport
from auditor.api.access import AccessControlClient
from auditor.api.clusters import ClusterClient
from auditor.api.domains import DomainClient
from auditor.api.health import HealthClient
from auditor.model.secrets import Secret


class ResourceManagerClient:
    """``async with ResourceManagerClient(url, token) as api: await api.access.list_...``

    ``token`` is the bearer token (a :class:`Secret`; sent as ``Authorization: Bearer`` to the
    configured origin only). ``transport`` (an ``httpx.AsyncBaseTransport``) is for tests.
    """

    def __init__(
        self,
        base_url: str,
        token: Secret | str | None,
        settings: ClientSettings | None = None,
        *,
        transport: Any = None,
        seed: int | None = None,
    ) -> None:
        credential = Credential.bearer(token) if token is not None else None
        self.transport = Transport(base_url, credential, settings, transport=transport, seed=seed)
        self.access = AccessControlClient(self.transport)
        self.clusters = ClusterClient(self.transport)
        self.domains = DomainClient(self.transport)
        self.health = HealthClient(self.transport)

    @property
    def base_url(self) -> str:
        return self.transport.base_url

    async def __aenter__(self) -> ResourceManagerClient:
        await self.transport.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.transport.__aexit__(exc_type, exc, tb)
