"""The client of areas A to D: one transport (origin, bearer token, retries, concurrency) shared by
the per-area clients."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from auditor.api._namespace import Namespace, check_namespace
from auditor.api._transport import ClientSettings, Credential, Transport
from auditor.api.access import AccessControlClient
from auditor.api.clusters import ClusterClient
from auditor.api.domains import DomainClient
from auditor.api.health import HealthClient
from auditor.model.secrets import Secret


class ResourceManagerClient:
    """``async with ResourceManagerClient(url, token) as api: await api.access.list_...``

    ``token`` is the bearer token (a :class:`Secret`; sent as ``Authorization: Bearer`` to the
    configured origin only), or a :class:`Credential` (one that can be renewed: see
    :mod:`auditor.api.tokens`). ``namespace``: ``"seed"`` speaks the seed's paths (``Cloud.*``),
    ``"vendor"`` the vendor's (``Microsoft.*``, with the vendor's api-versions; contracts §8).
    ``transport`` (an ``httpx.AsyncBaseTransport``) is for tests.
    """

    def __init__(
        self,
        base_url: str,
        token: Secret | str | Credential | None,
        settings: ClientSettings | None = None,
        *,
        transport: Any = None,
        seed: int | None = None,
        namespace: Namespace = "seed",
    ) -> None:
        if token is None or isinstance(token, Credential):
            credential = token
        else:
            credential = Credential.bearer(token)
        self.namespace = check_namespace(namespace)
        self.transport = Transport(base_url, credential, settings, transport=transport, seed=seed)
        self.access = AccessControlClient(self.transport, namespace)
        self.clusters = ClusterClient(self.transport, namespace)
        self.domains = DomainClient(self.transport, namespace)
        self.health = HealthClient(self.transport, namespace)

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
